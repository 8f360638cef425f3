"""The office settings of a house file: who reviews, how cases are kept, how money looks.

A house file (``--profile FILE``, see :mod:`audit.profiles`) may carry two tables
besides its rule knobs::

    [review]
    reviewers = ["ana.ortiz", "bo.lee"]      # who may decide; empty: the OS user
    dismiss_reasons = ["log error", "floor ruling"]
    due_days = { critical = 1, major = 3, minor = 7 }

    [report]
    currency = "$"                            # written before every amount
    dashboard_url = "https://audit.example/"  # where the report's hand links point

``extends`` naming another house file is followed, the nearer file winning key by key.
"""

from __future__ import annotations

import getpass
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from schemas.reviews import DISMISS_REASONS

#: Keys of a house file read here (the rule knobs are read by audit.profiles).
OFFICE_TABLES: tuple[str, ...] = ("review", "report")
DEFAULT_DUE_DAYS: Mapping[str, int] = {"critical": 1, "major": 3, "minor": 7}


class OfficeError(ValueError):
    """A house file's [review] or [report] table that cannot be used; names the key."""


@dataclass(frozen=True)
class Office:
    """Review and report settings of one cardroom."""

    reviewers: tuple[str, ...] = ()
    dismiss_reasons: tuple[str, ...] = DISMISS_REASONS
    due_days: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_DUE_DAYS))
    currency: str = "$"
    dashboard_url: str = "http://localhost:8501"

    def people(self) -> tuple[str, ...]:
        """Who may decide: the house list, or else the OS user running the program."""
        return self.reviewers or (os_user(),)


def os_user() -> str:
    """The login name of the process (the reviewer when the house lists nobody)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid-{os.getuid()}"


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise OfficeError(f"{where}: key {key!r} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def office_from_mapping(data: Mapping[str, Any], where: str, base: Office | None = None) -> Office:
    """The office settings of a parsed house file over ``base``."""
    office = base or Office()
    review = data.get("review", {})
    report = data.get("report", {})
    if not isinstance(review, dict) or not isinstance(report, dict):
        raise OfficeError(f"{where}: [review] and [report] must be tables")
    changes: dict[str, Any] = {}
    for key, value in review.items():
        if key in ("reviewers", "dismiss_reasons"):
            changes[key] = _strings(value, f"review.{key}", where)
        elif key == "due_days":
            if not isinstance(value, dict) or not all(
                k in DEFAULT_DUE_DAYS and isinstance(v, int) and not isinstance(v, bool)
                and v >= 0 for k, v in value.items()
            ):  # fmt: skip
                raise OfficeError(f"{where}: key 'review.due_days' must map severities to days")
            changes["due_days"] = {**office.due_days, **value}
        else:
            raise OfficeError(f"{where}: unknown key 'review.{key}'")
    for key, value in report.items():
        if key not in ("currency", "dashboard_url"):
            raise OfficeError(f"{where}: unknown key 'report.{key}'")
        if not isinstance(value, str):
            raise OfficeError(f"{where}: key 'report.{key}' must be a string")
        changes[key] = value
    return replace(office, **changes)


def load_office(path: str | Path | None) -> Office:
    """The office settings of a house file; the defaults for None or a built-in name."""
    if path is None or not Path(path).is_file():
        return Office()
    where = Path(path)
    try:
        data = tomllib.loads(where.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise OfficeError(f"{where}: not a readable TOML file: {exc}") from exc
    parent = data.get("extends")
    base = load_office(where.parent / parent) if isinstance(parent, str) else None
    return office_from_mapping(data, str(where), base)
