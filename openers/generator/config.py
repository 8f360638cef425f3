"""The knobs of one ``openers generate`` run, and the table-level settings drawn from them."""

from __future__ import annotations

from dataclasses import dataclass, field

from openers.generator.cheats.config import CheatConfig

#: Every code of the rule catalogue (``../shared/spec/rules.md``).
ALL_CODES: tuple[str, ...] = (
    *(f"B10{i}" for i in range(1, 9)),
    *(f"O2{i:02d}" for i in range(1, 12)),
    *(f"D30{i}" for i in range(1, 9)),
    *(f"P40{i}" for i in range(1, 5)),
    *(f"J50{i}" for i in range(1, 9)),
)


@dataclass(frozen=True, slots=True)
class GenerateConfig:
    """What to generate. Shares and rates are probabilities in [0, 1]."""

    hands: int
    tables: int = 8
    seed: int = 0
    profile: str = "robert"
    joker_share: float = 0.3
    violations: float = 0.0
    codes: tuple[str, ...] = ALL_CODES
    unrecorded_share: float = 0.0
    broken_share: float = 0.0
    #: Share of tables that play Draw High (opens on anything) instead of Jacks or Better.
    draw_high_share: float = 0.1
    room: str = "Bay City Card Club"
    room_code: str = "BCY"
    #: First gaming day (ISO date) and the room's UTC offset.
    start_date: str = "2026-11-27"
    utc_offset_hours: int = -8
    #: Worker processes (tables are split among them; output does not depend on it).
    workers: int = 1
    #: Integrity ground truth: crooked dealers and colluding pairs (none by default).
    cheats: CheatConfig = field(default_factory=CheatConfig)

    def hands_for_table(self, table: int) -> int:
        """Hands of table ``table`` (0-based): the total split as evenly as possible."""
        base, extra = divmod(self.hands, self.tables)
        return base + (1 if table < extra else 0)
