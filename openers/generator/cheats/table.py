"""The cheats at one table: who they are, where they act, what they did (the labels).

:class:`TableCheater` lives as long as the table: it picks the crooked dealer, his
confederate and the colluding pair, keeps the pair coming and going together, and
counts what was done. For each deal it hands the simulation a :class:`DealCheats`,
which the deal, the draw and the betting consult at a few hooks; it draws its own
random numbers (from the run's seed, the table and the deal number), so a deal in which
no cheat acts is played exactly as it would be without cheats.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from openers.generator.cheats.config import (
    CheatConfig,
    Collusion,
    DealerMode,
    TableCheats,
    assign,
)
from openers.generator.cheats.dealer import arrange_deal, arrange_draw
from openers.generator.cheats.pair import (
    Pair,
    dump_facing,
    heads_up_with,
    last_aggressor,
    partner_behind,
    seat_of,
    soft_facing,
    soft_unbet,
    third_player_in,
)
from openers.generator.players import Player, PlayerPool
from openers.generator.state import DealSetup, DealState, SeatState
from openers.generator.strategy import Choice
from schemas.records import Section

#: Which of a table's five dealers is the crooked one.
CROOKED_DEALER_INDEX = 0
#: Cheats are regulars: away from the table, they sit down again with this chance a deal
#: (when there is room), where an ordinary player waits for a seat to come to him.
RETURN_RATE = 0.05
#: Players at the table above which the cheats wait (the table's own limit for newcomers).
ROOM_LIMIT = 8


@dataclass
class _Tally:
    """What a cheat did, for the labels."""

    start: str | None = None
    deals: int = 0  #: deals in which the cheat could act (dealer dealing / pair seated)
    acted: dict[str, int] = field(default_factory=dict)
    hands: list[str] = field(default_factory=list)

    def count(self, kind: str) -> None:
        self.acted[kind] = self.acted.get(kind, 0) + 1

    def note(self, kind: str, hand_id: str) -> None:
        self.count(kind)
        if not self.hands or self.hands[-1] != hand_id:
            self.hands.append(hand_id)


class DealCheats:
    """The cheats' part in one deal (the hooks the simulation calls)."""

    def __init__(self, owner: TableCheater, setup: DealSetup, rng: random.Random) -> None:
        self.owner = owner
        self.hand_id = setup.hand_id
        cfg = owner.config
        players = {p.player_id for p in setup.seats.values()}
        self.confederate_seat: int | None = None
        self.favoured = False
        if owner.dealer_id is not None and setup.dealer_id == owner.dealer_id:
            seat = next((n for n, p in setup.seats.items()
                         if p.player_id == owner.confederate), None)
            if seat is not None:
                self.confederate_seat = seat
                self.favoured = rng.random() < cfg.crooked_share
        pair = owner.pair
        self.pair = pair if pair is not None and {pair.first, pair.second} <= players else None
        self.cheating = self.pair is not None and rng.random() < cfg.collusion_share
        self.rng = rng
        self.events: list[str] = []
        #: The two were heads-up at some point: a shared pot.
        self.shared = False

    # -- the dealer ---------------------------------------------------------------------
    def after_shuffle(self, st: DealState) -> None:
        """Deal mode: arrange the confederate's five cards."""
        mode = self.owner.config.crooked_mode
        if self.favoured and mode in (DealerMode.DEAL, DealerMode.BOTH):
            assert self.confederate_seat is not None
            if arrange_deal(st, self.confederate_seat, self.owner.config.crooked_strength,
                            self.rng):
                self.events.append("arranged deal")

    def before_serve(self, st: DealState, s: SeatState, kept: Sequence[str], count: int) -> None:
        """Draw mode: arrange the cards the confederate is about to draw."""
        mode = self.owner.config.crooked_mode
        if (self.favoured and s.seat == self.confederate_seat
                and mode in (DealerMode.DRAW, DealerMode.BOTH)
                and arrange_draw(st, s, kept, count, self.owner.config.crooked_strength,
                                 self.rng)):
            self.events.append("arranged draw")

    # -- the pair -----------------------------------------------------------------------
    def _partner(self, s: SeatState, kind: Collusion) -> str | None:
        kinds = self.owner.config.collusion_kinds
        if not self.cheating or self.pair is None or kind not in kinds:
            return None
        return self.pair.partner_of(s.player.player_id)

    def _note_shared(self, st: DealState, s: SeatState) -> None:
        partner = self.pair.partner_of(s.player.player_id) if self.pair is not None else None
        if partner is not None and heads_up_with(st, s, partner) is not None:
            self.shared = True

    def unbet(self, st: DealState, s: SeatState, section: Section, choice: Choice) -> Choice:
        """First to bet after the draw (bet or check)."""
        self._note_shared(st, s)
        if section is not Section.AFTER_DRAW:
            return choice
        partner = self._partner(s, Collusion.SOFT)
        if partner is not None and heads_up_with(st, s, partner) and choice is Choice.BET:
            self.events.append("soft play")
            return soft_unbet(choice)
        partner = self._partner(s, Collusion.DUMP)
        if (partner is not None and self.pair is not None and s.player.player_id == self.pair.first
                and heads_up_with(st, s, partner) and choice is not Choice.BET):
            self.events.append("chip dump")
            return Choice.BET
        return choice

    def facing(self, st: DealState, s: SeatState, section: Section, choice: Choice,
               can_raise: bool) -> Choice:
        """Facing a bet or raise (fold, call or raise)."""
        self._note_shared(st, s)
        partner = self._partner(s, Collusion.WHIPSAW)
        if partner is not None and can_raise and choice is not Choice.RAISE:
            p = seat_of(st, partner)
            if (p is not None and last_aggressor(st, section) == p.seat
                    and third_player_in(st, s, p.seat)):
                self.events.append("whipsaw")
                return Choice.RAISE
        partner = self._partner(s, Collusion.SOFT)
        if partner is not None and heads_up_with(st, s, partner) and choice is Choice.RAISE:
            self.events.append("soft play")
            return soft_facing(choice)
        if section is not Section.AFTER_DRAW:
            return choice
        partner = self._partner(s, Collusion.DUMP)
        if partner is not None and self.pair is not None and s.player.player_id == self.pair.first:
            p = heads_up_with(st, s, partner)
            if p is not None:
                dumped = dump_facing(s, p)
                if dumped is not choice:
                    self.events.append("chip dump")
                return dumped
        return choice

    def passes_openers(self, st: DealState, s: SeatState) -> bool:
        """Before the open, with openers: pass to leave the open to the partner behind."""
        partner = self._partner(s, Collusion.PASS)
        if partner is not None and partner_behind(st, s, partner):
            self.events.append("passed openers")
            return True
        return False


class TableCheater:
    """The cheats of one table over the whole run."""

    def __init__(self, config: CheatConfig, plan: TableCheats, table_id: str, seed: int,
                 index: int, dealers: Sequence[str], seats: dict[int, Player]) -> None:
        self.config = config
        self.table_id = table_id
        self._seed = f"{seed}:cheat:{index}"
        self._seat_rng = random.Random(self._seed + ":seating")
        first_seated = [seats[n] for n in sorted(seats)]
        self.dealer_id = dealers[CROOKED_DEALER_INDEX] if plan.crooked else None
        self.confederate = first_seated[0].player_id if plan.crooked else None
        self.pair: Pair | None = None
        self._players: tuple[Player, Player] | None = None
        self._friend = first_seated[0] if plan.crooked else None
        if plan.colluding:
            # The pair sits together from the start, after the confederate if there is one.
            a, b = first_seated[-2], first_seated[-1]
            self.pair = Pair(a.player_id, b.player_id)
            self._players = (a, b)
        self._was_seated = True
        self.crooked = _Tally()
        self.colluding = _Tally()

    def for_deal(self, setup: DealSetup, deal_number: int) -> DealCheats:
        """The cheats' part in the coming deal."""
        return DealCheats(self, setup, random.Random(f"{self._seed}:deal:{deal_number}"))

    def seat_changes(self, seats: dict[int, Player], pool: PlayerPool, max_seats: int,
                     carried: int) -> None:
        """After the table's seat changes: the cheats come back often, the pair together.

        Nobody moves while antes are carried (R-DH 10, 11), as at the rest of the table.
        """
        if carried:
            return
        if self._friend is not None:
            self._come_back(seats, pool, max_seats, (self._friend,))
        if self._players is not None:
            self._keep_together(seats, pool, max_seats)
            self._come_back(seats, pool, max_seats, self._players)
            self._was_seated = self._players[0] in seats.values()

    def _come_back(self, seats: dict[int, Player], pool: PlayerPool, max_seats: int,
                   group: tuple[Player, ...]) -> None:
        empty = [n for n in range(1, max_seats + 1) if n not in seats]
        if (len(empty) < len(group) or len(seats) + len(group) > ROOM_LIMIT
                or not all(p in pool.waiting for p in group)
                or self._seat_rng.random() >= RETURN_RATE):
            return
        for player, seat in zip(group, self._seat_rng.sample(empty, len(group)), strict=True):
            pool.waiting.remove(player)
            seats[seat] = player

    def _keep_together(self, seats: dict[int, Player], pool: PlayerPool, max_seats: int) -> None:
        assert self._players is not None
        a, b = self._players
        seated_at = {p.player_id: n for n, p in seats.items()}
        in_a, in_b = a.player_id in seated_at, b.player_id in seated_at
        if in_a != in_b:
            here, away = (a, b) if in_a else (b, a)
            empty = [n for n in range(1, max_seats + 1) if n not in seats]
            can_join = away in pool.waiting and bool(empty)
            other_left = self._was_seated  # else: one of them has just sat down
            if (other_left and len(seats) > 4) or not can_join:
                pool.release(seats.pop(seated_at[here.player_id]))  # goes with the other
            else:
                pool.waiting.remove(away)  # comes (back) with the other
                seats[self._seat_rng.choice(empty)] = away

    def commit(self, st: DealState, cheats: DealCheats | None) -> None:
        """Count what the cheats of a finished deal did."""
        if cheats is None:
            return
        when = st.setup.time.isoformat()
        if cheats.confederate_seat is not None:
            self.crooked.deals += 1
            self.crooked.start = self.crooked.start or when
        if cheats.pair is not None:
            self.colluding.deals += 1
            self.colluding.start = self.colluding.start or when
            if cheats.shared:
                self.colluding.count("shared pots (heads-up together)")
                if cheats.cheating:
                    self.colluding.count("shared pots cheated in")
        for event in cheats.events:
            tally = self.crooked if event.startswith("arranged") else self.colluding
            tally.note(event, cheats.hand_id)

    def labels(self) -> list[dict[str, Any]]:
        """The ground truth of this table's cheats (see ``integrity_labels.json``)."""
        out: list[dict[str, Any]] = []
        cfg = self.config
        if self.dealer_id is not None:
            out.append({
                "kind": "crooked-dealer", "table_id": self.table_id, "dealer_id": self.dealer_id,
                "player_id": self.confederate, "mode": cfg.crooked_mode.value,
                "share": cfg.crooked_share, "strength": cfg.crooked_strength,
                "from": self.crooked.start, "deals_with_player": self.crooked.deals,
                "acted": self.crooked.acted, "hands": self.crooked.hands,
            })
        if self.pair is not None:
            out.append({
                "kind": "colluding-pair", "table_id": self.table_id,
                "players": [self.pair.first, self.pair.second],
                "behaviours": [k.value for k in cfg.collusion_kinds],
                "share": cfg.collusion_share, "from": self.colluding.start,
                "deals_together": self.colluding.deals, "acted": self.colluding.acted,
                "hands": self.colluding.hands,
            })
        return out


def table_cheater(config: CheatConfig, tables: int, index: int, table_id: str, seed: int,
                  dealers: Sequence[str], seats: dict[int, Player]) -> TableCheater | None:
    """The cheats of table ``index`` of a run, or None for an honest table."""
    plan = assign(config, tables).get(index)
    if plan is None:
        return None
    return TableCheater(config, plan, table_id, seed, index, dealers, seats)
