"""House profiles: the knobs of rules.md's "House profiles" table, and rule selection.

A :class:`Profile` is frozen and typed. The four built-ins follow the rulebooks
(``robert`` = seed 004, ``house23`` = seed 000, ``foster`` = seed 001, ``laws`` =
seed 002). A house file is TOML::

    extends = "robert"          # a built-in name, or a path to another house file
    name = "bay-city"           # optional
    cap_raises = 3              # any knob below, by its field name
    select = ["B", "O201"]      # optional: codes or code prefixes to keep
    ignore = ["B103"]           # optional: codes or prefixes to drop
    severity = { B103 = "major" }

Amounts are integer cents. One "counter" of the old books (Foster's white
counter) is taken as one unit of the table's currency, 100 cents; a house file
overrides the amounts where its counters are worth something else.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from schemas.findings import Severity
from schemas.records import Game, Openers


class ProfileError(ValueError):
    """A profile name or house file that cannot be used; the message names the key."""


class PassedOutButton(StrEnum):
    """Where the deal goes after a passed-out deal (J502)."""

    MOVES = "moves"  # the button moves on, everyone antes again (R-JB 1, H-23.1, L-29)
    STAYS = "stays"  # the same dealer deals again: "dealing off the jack" (Foster)


class ProgressionEnd(StrEnum):
    """What the openers progression does past its last entry."""

    REPEAT_LAST = "repeat-last"  # laws 31-32: J, Q, K, K, K, ...
    CYCLE = "cycle"  # Foster's progressive jacks: J, Q, K, A, K, Q, J, Q, ...


class FalseOpenerStyle(StrEnum):
    """How a false opener found before the draw is settled (O203, O205, O206)."""

    #: R-JB 2/4, H-23.2-5: dead hand, opening bet stays, other bets may come back while
    #: the action before the draw is open; the pot plays on a raise, two callers or
    #: completed action, else all other bets return and the pot carries.
    DEAD_HAND_REFUND = "dead-hand-refund"
    #: Foster's second way: the false opener forfeits every chip; the others play on.
    FORFEIT_PLAY_ON = "forfeit-play-on"
    #: Foster's first way: the others may withdraw their money and anyone may open.
    FORFEIT_WITHDRAW = "forfeit-withdraw"
    #: Foster's third way: everyone takes their chips back, the false opener makes the
    #: pot good, and the cards are dealt afresh.
    FORFEIT_REDEAL = "forfeit-redeal"


class DiscardsSetAside(StrEnum):
    """When the opener's discards are kept apart to prove openers later (O207, O208)."""

    WHEN_SPLITTING = "when-splitting"  # R-JB 9, H-23.9
    ALWAYS = "always"  # Foster: "the opener is obliged always to place his discard under the chips"
    NEVER = "never"  # the laws say nothing


@dataclass(frozen=True, slots=True)
class Profile:
    """Every house knob of rules.md, plus which rules run and at what severity."""

    name: str
    #: Minimum openers by Jackpot number (1-based), see ``progression_end``.
    openers_progression: tuple[Openers, ...] = (Openers.JJ,)
    progression_end: ProgressionEnd = ProgressionEnd.REPEAT_LAST
    #: Four to a flush or to an open-ended straight also opens (Foster's "bobtail").
    bobtail: bool = False
    #: O211: cents paid into the pot for abandoning a hand before the pot is open; None = none.
    abandon_penalty: int | None = None
    #: B101: raises allowed after the bet in a multihanded round; None = no cap.
    cap_raises: int | None = 4
    #: The after-draw unit as a multiple of the before-draw unit (the Limit header's B/A).
    after_draw_multiple: int = 2
    passed_out_button: PassedOutButton = PassedOutButton.MOVES
    #: Foster's fattening: each seat adds this many cents on a passed-out deal; None = none.
    fattening: int | None = None
    #: J501: deals of one unopened pot that are anted; None = no limit.
    ante_limit: int | None = 3
    false_opener: FalseOpenerStyle = FalseOpenerStyle.DEAD_HAND_REFUND
    #: O204: a seat that passed with openers may declare after a false opener (H-23.2).
    passed_openers_may_declare: bool = False
    #: L-33: an opener who claims the pot without openers pays this many antes into it.
    unproven_opener_penalty_antes: int = 0
    #: L-33: after an unproven opener the next deal is a jack-pot as if unopened.
    unproven_opener_rejackpot: bool = False
    discards_set_aside: DiscardsSetAside = DiscardsSetAside.WHEN_SPLITTING
    #: Integrity alerts: the false discovery rate (Benjamini-Hochberg) across all tests.
    integrity_fdr: float = 0.05
    #: Codes or code prefixes to run (None = every registered rule).
    select: frozenset[str] | None = None
    #: Codes or code prefixes never to run.
    ignore: frozenset[str] = frozenset()
    #: Severity overrides by code, as sorted (code, severity) pairs.
    severity: tuple[tuple[str, Severity], ...] = field(default=())

    def openers_for(self, jackpot: int, game: Game) -> Openers:
        """The minimum openers the house requires on deal ``jackpot`` of an unopened pot."""
        if game is Game.DRAW_HIGH:
            return Openers.ANY
        steps = self.openers_progression
        i = max(jackpot, 1) - 1
        if i < len(steps):
            return steps[i]
        if self.progression_end is ProgressionEnd.CYCLE:
            return steps[i % len(steps)]
        return steps[-1]

    def enabled(self, code: str) -> bool:
        """Whether rule ``code`` runs under this profile (select, then ignore; prefixes work)."""
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(s) for s in self.ignore)

    def severity_of(self, code: str, default: Severity) -> Severity:
        """The severity of ``code`` after the house's overrides."""
        for c, sev in self.severity:
            if c == code:
                return sev
        return default

    def with_selection(
        self, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None
    ) -> Profile:
        """A copy with ``select`` replacing and ``ignore`` adding to the current selection."""
        new_select = self.select if select is None else frozenset(select)
        new_ignore = self.ignore | frozenset(ignore or ())
        return dataclasses.replace(self, select=new_select, ignore=new_ignore)


_PROGRESSIVE_JACKS = (Openers.JJ, Openers.QQ, Openers.KK, Openers.AA, Openers.KK, Openers.QQ)

#: The built-in profiles of rules.md.
BUILTIN: Mapping[str, Profile] = {
    "robert": Profile(name="robert"),
    "house23": Profile(name="house23", passed_openers_may_declare=True),
    "foster": Profile(
        name="foster",
        # Progressive jacks is "optional: off by default"; a house file sets
        # openers_progression = ["JJ","QQ","KK","AA","KK","QQ"], progression_end = "cycle".
        abandon_penalty=500,
        cap_raises=None,
        passed_out_button=PassedOutButton.STAYS,
        fattening=100,
        ante_limit=None,
        false_opener=FalseOpenerStyle.FORFEIT_PLAY_ON,
        discards_set_aside=DiscardsSetAside.ALWAYS,
    ),
    "laws": Profile(
        name="laws",
        openers_progression=(Openers.JJ, Openers.QQ, Openers.KK),
        cap_raises=None,
        ante_limit=None,
        unproven_opener_penalty_antes=2,
        unproven_opener_rejackpot=True,
        discards_set_aside=DiscardsSetAside.NEVER,
    ),
}

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
        from audit.registry import codes

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
