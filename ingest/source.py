"""The bytes of a log file, plain or gzip, as a stream that never raises.

Every reader (the ingest reader, ``validate``, ``check``) reads files through
:class:`ByteSource`. A fault (the file cannot be opened or read, gzip data that is
not gzip, corrupt, or cut before its end) does not raise: the stream ends there and
:attr:`ByteSource.fault` says what happened and where. Everything delivered before
the fault is good data, so the hands before it are still read, and the reader
reports the fault as a quarantine item of the file.

Gzip is decoded with :mod:`zlib` rather than :class:`gzip.GzipFile`, which raises
from ``read`` and so loses the data it decoded in the same call; here the output
of each call is bounded (a small file that inflates to gigabytes is read in
pieces), members are concatenated as ``gzip`` does, and zero padding after the
last member is ignored as ``gzip`` ignores it.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from ingest.errors import ErrorKind

__all__ = ["ByteSource", "Fault", "is_gzip_name"]

#: Compressed bytes read from disk at a time.
_DISK_BLOCK = 1 << 18
_GZIP = 16 + zlib.MAX_WBITS  # a gzip header and trailer (CRC-32 and size checked)
_MAGIC = b"\x1f\x8b"


def is_gzip_name(path: str | Path) -> bool:
    """A ``.gz`` file name: read through gzip."""
    return str(path).lower().endswith(".gz")


@dataclass(frozen=True, slots=True)
class Fault:
    """Why a stream ended early: the kind, a precise message, and where in the text."""

    kind: ErrorKind
    message: str
    #: Offset in the (decompressed) stream where good data stops.
    offset: int


class ByteSource:
    """Read ``path`` (plain, or gzip when its name ends in ``.gz``) from ``start_offset``.

    ``read(n)`` returns up to ``n`` bytes and ``b""`` at the end of the data or at a
    fault. :attr:`sha256` is the SHA-256 of the bytes on disk that were read, so the
    file's content is identified without a second pass over it.
    """

    def __init__(self, path: str | Path, *, start_offset: int = 0) -> None:
        self.path = Path(path)
        self.fault: Fault | None = None
        #: Offset in the (decompressed) stream of the next byte ``read`` returns.
        self.position = 0
        self._digest = hashlib.sha256()
        self._disk_bytes = 0
        self._gzip = is_gzip_name(self.path)
        self._pending = b""  # decompressed, not yet returned
        self._input = b""  # compressed, not yet given to the decompressor
        self._inflate: zlib._Decompress | None = None
        self._inflate_fresh = False  # no input given to the current member yet
        self._disk_done = False
        self._file: BinaryIO | None = None
        try:
            self._file = open(self.path, "rb")  # noqa: SIM115 (closed by close())
        except OSError as exc:
            self._fail(ErrorKind.UNREADABLE_FILE, f"cannot read file: {_os_reason(exc)}")
            return
        if start_offset:
            self._skip(start_offset)

    # ---- the stream ------------------------------------------------------------
    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes (``-1``: all that is left); ``b""`` at the end or a fault."""
        if size < 0:
            parts = []
            while block := self.read(1 << 20):
                parts.append(block)
            return b"".join(parts)
        data = self._read_gzip(size) if self._gzip else self._read_disk(size)
        self.position += len(data)
        return data

    @property
    def sha256(self) -> str:
        """The SHA-256 of the bytes read from disk so far (the whole file, once read)."""
        return self._digest.hexdigest()

    @property
    def disk_bytes(self) -> int:
        """How many bytes of the file on disk were read."""
        return self._disk_bytes

    def close(self) -> None:
        """Close the file."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> ByteSource:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ---- internals -------------------------------------------------------------
    def _fail(self, kind: ErrorKind, message: str) -> None:
        if self.fault is None:
            self.fault = Fault(kind, message, self.position + len(self._pending))
        self._disk_done = True
        self.close()

    def _skip(self, count: int) -> None:
        if not self._gzip and self._file is not None:
            try:
                self._file.seek(count)
                self._digest = hashlib.sha256()  # a part of the file: no content hash
            except OSError as exc:
                self._fail(ErrorKind.UNREADABLE_FILE, f"cannot read file: {_os_reason(exc)}")
                return
            self.position = count
            return
        while count > 0:
            block = self.read(min(count, 1 << 20))
            if not block:
                return
            count -= len(block)

    def _disk(self, size: int) -> bytes:
        if self._file is None or self._disk_done:
            return b""
        try:
            data = self._file.read(size)
        except OSError as exc:
            self._fail(ErrorKind.UNREADABLE_FILE,
                       f"cannot read file after byte {self._disk_bytes:,}: {_os_reason(exc)}")
            return b""
        if not data:
            self._disk_done = True
        self._digest.update(data)
        self._disk_bytes += len(data)
        return data

    def _read_disk(self, size: int) -> bytes:
        return self._disk(size)

    def _read_gzip(self, size: int) -> bytes:
        while len(self._pending) < size and self.fault is None:
            if not self._inflate_more(size - len(self._pending)):
                break
        data, self._pending = self._pending[:size], self._pending[size:]
        return data

    def _inflate_more(self, want: int) -> bool:
        """Decompress up to about ``want`` more bytes into the pending output; False at
        the end of the data (or a fault)."""
        if not self._input:
            self._input = self._disk(_DISK_BLOCK)
        if self._inflate is None:  # between members: zero padding may follow the last one
            self._input = self._input.lstrip(b"\0")
            while not self._input:
                if self._disk_done:
                    return False
                self._input = self._disk(_DISK_BLOCK).lstrip(b"\0")
            self._inflate = zlib.decompressobj(_GZIP)
            self._inflate_fresh = True
        elif not self._input:
            self._fail(ErrorKind.BAD_GZIP, "the compressed data stops before its end (the "
                                           f"file is cut after {self._disk_bytes:,} bytes)")
            return False
        consumed = self._disk_bytes - len(self._input)
        if self._inflate_fresh and not self._input.startswith(_MAGIC[:len(self._input)]):
            self._fail(ErrorKind.BAD_GZIP, f"not gzip data at compressed byte {consumed:,} "
                                           "(a gzip member starts with the bytes 1f 8b)")
            return False
        saved = self._inflate.copy()
        try:
            out = self._inflate.decompress(self._input, max(want, 1 << 16))
        except zlib.error as exc:
            good, at = _salvage(saved, self._input, max(want, 1 << 16))
            self._pending += good
            self._fail(ErrorKind.BAD_GZIP, f"corrupt compressed data at compressed byte "
                                           f"{consumed + at:,} (zlib: {exc})")
            return False
        self._inflate_fresh = False
        self._input = self._inflate.unconsumed_tail
        self._pending += out
        if self._inflate.eof:
            self._input = self._inflate.unused_data
            self._inflate = None
        return True


def _salvage(inflate: zlib._Decompress, data: bytes, limit: int) -> tuple[bytes, int]:
    """What ``inflate`` (a copy taken before the failing call) decodes from ``data``
    before the byte it fails on: (the good output, that byte's position in ``data``).

    The input is given a byte at a time, so the text up to the corruption is kept.
    """
    out: list[bytes] = []
    size = 0
    for at in range(len(data)):
        try:
            piece = inflate.decompress(data[at:at + 1], limit - size)
        except zlib.error:
            return b"".join(out), at
        out.append(piece)
        size += len(piece)
        if size >= limit or inflate.eof:
            break
    return b"".join(out), len(data)


def _os_reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
