"""Baselines: findings a house has already accepted, so a check shows only what is new.

``openers check --write-baseline FILE`` records every item of a check;
``openers check --baseline FILE`` then leaves out the items it records. An item is
matched by its key: hand, code and place in the hand (see
:func:`schemas.findings.finding_key`), never by line, so a log exported again with
other line numbers still matches. Matching counts: two accepted findings of one key
hide two, a third is new.

The file is JSON, written sorted so that it diffs well under version control::

    {"openers_baseline": 1, "findings": [
        {"key": "H-1|B105|7|1", "hand_id": "H-1", "code": "B105", "file": "…",
         "message": "…"}, …]}

Only ``key`` is matched; the rest is for the reader.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from audit.output import Item

VERSION = 1


class BaselineError(ValueError):
    """A baseline file that cannot be used; the message says what was expected."""


def write_baseline(items: list[Item], path: Path) -> None:
    """Record ``items`` in ``path`` (replacing it)."""
    rows = sorted(({"key": i.key, "hand_id": i.hand_id, "code": i.code, "file": i.file,
                    "message": i.message} for i in items), key=lambda r: str(r["key"]))
    try:
        path.write_text(json.dumps({"openers_baseline": VERSION, "findings": rows}, indent=1)
                        + "\n", encoding="utf-8")
    except OSError as exc:
        raise BaselineError(f"cannot write the baseline {path}: {exc.strerror}") from None


def read_baseline(path: Path) -> Counter[str]:
    """The accepted keys of ``path``, with their counts."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"no baseline file {path} (make one with --write-baseline)") \
            from None
    except OSError as exc:
        raise BaselineError(f"cannot read the baseline {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BaselineError(f"{path} is not a baseline: expected the JSON that "
                            "--write-baseline writes") from None
    if not isinstance(data, dict) or data.get("openers_baseline") != VERSION \
            or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path} is not a baseline: expected a JSON object with "
                            f'"openers_baseline": {VERSION} and a "findings" list')
    accepted: Counter[str] = Counter()
    for n, row in enumerate(data["findings"], 1):
        if not isinstance(row, dict) or not isinstance(row.get("key"), str):
            raise BaselineError(f"{path}: finding {n} needs its key, a string")
        accepted[row["key"]] += 1
    return accepted


def apply_baseline(items: list[Item], accepted: Counter[str]) -> tuple[list[Item], int]:
    """The items not accepted, and how many were left out."""
    left = Counter(accepted)
    new: list[Item] = []
    for item in items:
        if left[item.key] > 0:
            left[item.key] -= 1
        else:
            new.append(item)
    return new, len(items) - len(new)
