"""The JSON Lines form of the hand log (``*.jsonl``, ``*.jsonl.gz``): its lines, streamed
with a bound on their length, and what can be said of a line that is not a valid record.

:class:`ingest.reader.HandReader` reads it; a line longer than a hand may be is streamed
past, never held whole (``schemas.limits``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pydantic_core
from pydantic import ValidationError

from ingest.chunks import BLOCK_SIZE
from ingest.source import ByteSource
from schemas.limits import MAX_HAND_BYTES

__all__ = ["is_json_syntax_error", "json_hand_id", "json_lines"]


def json_lines(stream: ByteSource) -> Iterator[tuple[bytes, int, bool]]:
    """The lines of ``stream``: (the line's bytes, up to MAX_HAND_BYTES + 2 of them, with
    its line end; its full size; whether it ends with a line end)."""
    buffer = b""
    while True:
        block = stream.read(BLOCK_SIZE)
        buffer += block
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            yield buffer[start:end + 1], end + 1 - start, True
            start = end + 1
        buffer = buffer[start:]
        if not block:
            break
        if len(buffer) > MAX_HAND_BYTES + 2:  # a line too long: stream past its rest
            keep, size = buffer[:MAX_HAND_BYTES + 3], len(buffer)
            while True:
                block = stream.read(BLOCK_SIZE)
                end = block.find(b"\n")
                if end >= 0 or not block:
                    size += end + 1 if end >= 0 else 0
                    yield keep, size, end >= 0
                    buffer = block[end + 1:] if end >= 0 else b""
                    break
                size += len(block)
            if not block:
                return
    if buffer:
        yield buffer, len(buffer), False


def is_json_syntax_error(exc: ValidationError) -> bool:
    """Whether pydantic refused the line as JSON at all (not as a record)."""
    return any(e["type"] == "json_invalid" for e in exc.errors())


def json_hand_id(text: str) -> str | None:
    """The hand id of a JSON line that is not a valid record, if it names one."""
    try:  # the JSON parser pydantic uses: nesting is bounded, nothing recurses in Python
        value = pydantic_core.from_json(text)
    except ValueError:
        return None
    hand_id = value.get("hand_id") if isinstance(value, dict) else None
    return hand_id if isinstance(hand_id, str) else None
