"""House profiles: a built-in by name, or a house file, and rule selection.

The :class:`Profile` record, its knobs and the four built-ins are in :mod:`audit.house`
(re-exported here, where the callers look for them). A house file is TOML::

    extends = "robert"          # a built-in name, or a path to another house file
    name = "bay-city"           # optional
    cap_raises = 3              # any knob below, by its field name
    select = ["B", "O201"]      # optional: codes or code prefixes to keep
    ignore = ["B103"]           # optional: codes or prefixes to drop
    severity = { B103 = "major" }

Amounts are integer cents (see :mod:`audit.house` for what a "counter" of the old
books is worth).
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from audit.house import (
    BUILTIN,
    DiscardsSetAside,
    FalseOpenerStyle,
    PassedOutButton,
    Profile,
    ProfileError,
    ProgressionEnd,
)
from audit.registry import codes
from schemas.findings import Severity
from schemas.records import Openers

__all__ = [
    "BUILTIN",
    "DiscardsSetAside",
    "FalseOpenerStyle",
    "PassedOutButton",
    "Profile",
    "ProfileError",
    "ProgressionEnd",
    "check_codes",
    "load_profile",
    "profile_from_mapping",
]


#: Keys of a house file that are not knobs ([review] and [report]: schemas.office;
#: [nightly]: the nightly job's expectations of a night, openers/nightly/quality.py).
_META_KEYS = frozenset({"extends", "name", "select", "ignore", "severity", "review", "report",
                        "nightly"})
_KNOBS = frozenset(f.name for f in dataclasses.fields(Profile)) - _META_KEYS
_ENUM_KNOBS: Mapping[str, type[StrEnum]] = {
    "progression_end": ProgressionEnd,
    "passed_out_button": PassedOutButton,
    "false_opener": FalseOpenerStyle,
    "discards_set_aside": DiscardsSetAside,
}
_OPTIONAL_INT_KNOBS = frozenset({"abandon_penalty", "cap_raises", "fattening", "ante_limit"})
_INT_KNOBS = frozenset({"after_draw_multiple", "unproven_opener_penalty_antes"})
_RATE_KNOBS = frozenset({"integrity_fdr"})
_BOOL_KNOBS = frozenset(
    {"bobtail", "passed_openers_may_declare", "unproven_opener_rejackpot"}
)


def load_profile(name_or_path: str | Path, known_codes: Iterable[str] | None = None) -> Profile:
    """A built-in profile by name, or a house TOML file (see the module docstring).

    ``known_codes`` (default: the registry's codes) validates ``select``, ``ignore`` and
    ``severity``. Raises :class:`ProfileError` naming the offending key.
    """
    key = str(name_or_path)
    if key in BUILTIN:
        return BUILTIN[key]
    path = Path(key)
    if not path.is_file():
        raise ProfileError(
            f"unknown profile {key!r}: not a built-in ({', '.join(BUILTIN)}) nor a file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{path}: not UTF-8 text at byte {exc.start + 1} (expected a TOML "
                           "house file)") from None
    except OSError as exc:
        raise ProfileError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not valid TOML: {exc}") from exc
    if known_codes is None:
        known_codes = codes()
    return profile_from_mapping(data, frozenset(known_codes), where=str(path))


def profile_from_mapping(
    data: Mapping[str, Any], known_codes: frozenset[str], where: str = "profile"
) -> Profile:
    """Build a profile from a parsed house file (``extends`` + overrides)."""
    base_name = data.get("extends", "robert")
    if not isinstance(base_name, str):
        raise ProfileError(f"{where}: key 'extends' must be a string")
    if base_name in BUILTIN:
        base = BUILTIN[base_name]
    else:
        base_path = Path(where).parent / base_name
        if not base_path.is_file():
            raise ProfileError(f"{where}: key 'extends': unknown base profile {base_name!r}")
        base = load_profile(base_path, known_codes)
    changes: dict[str, Any] = {"name": data.get("name", Path(where).stem)}
    if not isinstance(changes["name"], str):
        raise ProfileError(f"{where}: key 'name' must be a string")
    for key, value in data.items():
        if key in _META_KEYS:
            continue
        if key not in _KNOBS:
            raise ProfileError(f"{where}: unknown key {key!r} (knobs: {', '.join(sorted(_KNOBS))})")
        changes[key] = _knob_value(key, value, where)
    if "select" in data:
        changes["select"] = frozenset(_codes(data["select"], "select", known_codes, where))
    if "ignore" in data:
        changes["ignore"] = base.ignore | _codes(data["ignore"], "ignore", known_codes, where)
    if "severity" in data:
        changes["severity"] = _severities(data["severity"], base, known_codes, where)
    return dataclasses.replace(base, **changes)


def _knob_value(key: str, value: Any, where: str) -> Any:
    def bad(expected: str) -> ProfileError:
        return ProfileError(f"{where}: key {key!r} must be {expected}, not {value!r}")

    if key in _BOOL_KNOBS:
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if key in _INT_KNOBS or key in _OPTIONAL_INT_KNOBS:
        # TOML has no null: a house says "no cap" / "no limit" with false.
        if key in _OPTIONAL_INT_KNOBS and value is False:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            extra = " or false" if key in _OPTIONAL_INT_KNOBS else ""
            raise bad("a non-negative integer" + extra)
        return value
    if key in _RATE_KNOBS:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
            raise bad("a rate between 0 and 1 (exclusive)")
        return float(value)
    if key in _ENUM_KNOBS:
        enum = _ENUM_KNOBS[key]
        try:
            return enum(value)
        except ValueError:
            raise bad("one of " + ", ".join(repr(e.value) for e in enum)) from None
    if key == "openers_progression":
        if not isinstance(value, list) or not value:
            raise bad("a non-empty list such as ['JJ', 'QQ', 'KK']")
        try:
            return tuple(Openers(v) for v in value)
        except ValueError:
            raise bad("a list of JJ, QQ, KK, AA or ANY") from None
    raise ProfileError(f"{where}: key {key!r} cannot be set in a house file")


def _codes(value: Any, key: str, known: frozenset[str], where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProfileError(f"{where}: key {key!r} must be a list of rule codes")
    return frozenset(check_codes(value, known, f"{where}: key {key!r}"))


def check_codes(values: Iterable[str], known: frozenset[str], where: str) -> list[str]:
    """Normalise codes/prefixes (upper case) and reject any that match no known code."""
    out = []
    for raw in values:
        code = raw.strip().upper()
        if not code or not any(k.startswith(code) for k in known):
            raise ProfileError(f"{where}: unknown rule code {raw!r}")
        out.append(code)
    return out


def _severities(
    value: Any, base: Profile, known: frozenset[str], where: str
) -> tuple[tuple[str, Severity], ...]:
    if not isinstance(value, dict):
        raise ProfileError(f"{where}: key 'severity' must be a table such as {{B103 = \"major\"}}")
    merged = dict(base.severity)
    for code, sev in value.items():
        if code not in known:
            raise ProfileError(f"{where}: key 'severity.{code}': unknown rule code")
        try:
            merged[code] = Severity(sev)
        except ValueError:
            raise ProfileError(
                f"{where}: key 'severity.{code}' must be critical, major or minor, not {sev!r}"
            ) from None
    return tuple(sorted(merged.items()))
