"""A table's day after day: seating, buttons, jack-pots, dealers, clocks, and plants.

Each table has its own ``random.Random`` (seeded from the run's seed and the table
number) and every deal its own as well, so a deal can be replayed exactly (clean,
when a plant did not take) and tables can be generated in any process.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from audit.house import PassedOutButton, Profile
from openers.generator.cheats.table import table_cheater
from openers.generator.config import GenerateConfig
from openers.generator.deal import play_deal
from openers.generator.draft import Draft
from openers.generator.plants import Plant, SequenceContext, Stage
from openers.generator.players import Player, PlayerPool
from openers.generator.state import DealSetup, DealState, Forces, TableSettings
from schemas.records import Game

#: (small bet, ante) in cents; the big bet is the profile's multiple of the small one.
STAKES: tuple[tuple[int, int], ...] = ((200, 25), (500, 50), (1000, 100), (2000, 200))
DEALER_DOWN_MINUTES = 30
OPEN_HOUR, CLOSE_HOUR = 10, 23
#: How long a drawn code keeps being tried on later deals before it is given up.
PLANT_PATIENCE = 60


@dataclass(slots=True)
class DealOutput:
    """One finished deal: its draft, its labels, and facts the output stage needs."""

    draft: Draft
    codes: tuple[str, ...]
    day: str
    #: The deal can be damaged or unrecorded without changing any other deal's audit.
    standalone: bool


def _settings(cfg: GenerateConfig, profile: Profile, index: int,
              rng: random.Random) -> TableSettings:
    small, ante = rng.choice(STAKES)
    game = Game.DRAW_HIGH if rng.random() < cfg.draw_high_share else Game.JACKS_OR_BETTER
    raked = rng.random() < 0.7
    return TableSettings(
        table_id=f"T{index + 1:02d}", room=cfg.room, game=game, small=small,
        big=small * profile.after_draw_multiple, ante=ante,
        joker=rng.random() < cfg.joker_share, rake_percent=5 if raked else 0,
        rake_cap=400 if raked else 0, readings=rng.random() < 0.5,
        max_seats=rng.choice((8, 9, 10)),
    )


class TableSim:
    """Generates the deals of one table."""

    def __init__(self, cfg: GenerateConfig, profile: Profile, index: int,
                 plants: dict[str, Plant]) -> None:
        self.cfg = cfg
        self.profile = profile
        self.index = index
        self.rng = random.Random(f"{cfg.seed}:table:{index}")
        self.table = _settings(cfg, profile, index, self.rng)
        self.pool = PlayerPool(self.rng, f"{index + 1:02d}", self.table.big)
        self.codes = [c for c in cfg.codes
                      if c in plants and plants[c].applies(self.table, profile)]
        self.plants = plants
        self.seats: dict[int, Player] = {}
        for seat in sorted(self.rng.sample(range(1, self.table.max_seats + 1),
                                           self.rng.randint(4, 8))):
            self.seats[seat] = self.pool.take()
        self.button = self.rng.choice(sorted(self.seats))
        tz = timezone(timedelta(hours=cfg.utc_offset_hours))
        start = datetime.fromisoformat(cfg.start_date).replace(tzinfo=tz)
        self.clock = start.replace(hour=OPEN_HOUR) + timedelta(minutes=self.rng.randrange(60))
        self.dealers = [f"D-{4000 + index * 10 + k}" for k in range(5)]
        self.cheater = table_cheater(cfg.cheats, cfg.tables, index, self.table.table_id, cfg.seed,
                                     self.dealers, self.seats)
        self.deal_number = 0
        self.jackpot, self.carried, self.passed_out = 1, 0, False
        #: The carried pot holds forfeited money (R-DH 11: no newcomer may join it) ...
        self.forfeited = False
        #: ... lost in the deal just before (the audit sees one deal back: J506's plant).
        self.forfeited_last = False
        self.pending: str | None = None
        #: Codes a plant left for the next deal (J508 judges the deal after the fault).
        self.next_codes: tuple[str, ...] = ()
        self.patience = 0

    # -- between deals ---------------------------------------------------------------
    def _next_occupied(self, after: int, occupied: list[int]) -> int:
        later = [s for s in occupied if s > after]
        return later[0] if later else occupied[0]

    def _seat_changes(self) -> None:
        """Rebuys at any time; players leave only while no antes are carried (R-DH 10:
        J505), and a newcomer may sit in and ante into a carried pot of antes, but not
        while it holds forfeited money (R-DH 11: J506)."""
        rng = self.rng
        for seat, player in list(self.seats.items()):
            if player.stack < self.table.ante or (player.stack < self.table.small
                                                  and rng.random() < 0.5):
                if not self.carried and rng.random() < 0.5 and len(self.seats) > 4:
                    self.pool.release(self.seats.pop(seat))
                else:
                    player.stack = player.buy_in
        if self.carried and self.forfeited:
            return
        if not self.carried and len(self.seats) > 4 and rng.random() < 0.02:
            self.pool.release(self.seats.pop(rng.choice(sorted(self.seats))))
        empty = [s for s in range(1, self.table.max_seats + 1) if s not in self.seats]
        if len(self.seats) < 8 and empty and rng.random() < 0.03:
            self.seats[rng.choice(empty)] = self.pool.take()

    def _tick(self) -> None:
        self.clock += timedelta(seconds=self.rng.randint(60, 180))
        if self.clock.hour >= CLOSE_HOUR:
            next_day = (self.clock + timedelta(days=1)).replace(
                hour=OPEN_HOUR, minute=self.rng.randrange(30), second=self.rng.randrange(60))
            self.clock = next_day

    def _setup(self) -> DealSetup:
        occupied = sorted(self.seats)
        stays = self.profile.passed_out_button is PassedOutButton.STAYS
        if not (self.passed_out and stays and self.button in self.seats):
            self.button = self._next_occupied(self.button, occupied)
        p = self.profile
        ante = self.table.ante
        if self.jackpot > 1 and p.fattening:
            ante = p.fattening
        if p.ante_limit is not None and self.jackpot > p.ante_limit:
            ante = 0
        minutes = (self.clock.hour * 60 + self.clock.minute) // DEALER_DOWN_MINUTES
        self.deal_number += 1
        return DealSetup(
            hand_id=f"{self.cfg.room_code}-{self.table.table_id}-{self.deal_number:06d}",
            time=self.clock, dealer_id=self.dealers[minutes % len(self.dealers)],
            button=self.button, jackpot=self.jackpot,
            openers=p.openers_for(self.jackpot, self.table.game), carried=self.carried,
            ante=ante, seats=dict(self.seats),
        )

    # -- deals -------------------------------------------------------------------------
    def deals(self, count: int) -> Iterator[DealOutput]:
        """The table's next ``count`` deals."""
        for _ in range(count):
            yield self._one()

    def _one(self) -> DealOutput:
        self._tick()
        self._seat_changes()
        if self.cheater is not None:
            self.cheater.seat_changes(self.seats, self.pool, self.table.max_seats, self.carried)
        prev_button, prev_passed, prev_carried = self.button, self.passed_out, self.carried
        occupied_before = tuple(sorted(self.seats))
        setup = self._setup()
        hand_rng_seed = f"{self.cfg.seed}:deal:{self.index}:{self.deal_number}"
        if self.pending is None and self.codes and self.rng.random() < self.cfg.violations:
            self.pending, self.patience = self.rng.choice(self.codes), PLANT_PATIENCE
        st = None
        codes: tuple[str, ...] = self.next_codes
        self.next_codes = ()
        if self.pending is not None:
            plant = self.plants[self.pending]
            planted = dataclasses.replace(setup, seats=dict(setup.seats))
            ctx = SequenceContext(prev_passed, self.forfeited_last, prev_button,
                                  prev_carried, setup.button, occupied_before,
                                  self.table.max_seats, self.table.ante, self.pool.take)
            stage = plant.setup(planted, ctx, self.profile, random.Random(hand_rng_seed + ":p"))
            if stage is not Stage.WAIT:
                forces = (plant.forces if stage is Stage.PLANT
                          else plant.prepare(self.table, self.profile, planted))
                played = play_deal(self.table, self.profile, planted,
                                   dataclasses.replace(forces), random.Random(hand_rng_seed))
                st = played
                if stage is Stage.PREPARE and not plant.prepared(played):
                    st = None
                if stage is Stage.PLANT:
                    result = plant.finish(played, random.Random(hand_rng_seed + ":f"))
                    if result is None:
                        st = None
                    elif plant.labels_next or (plant.next_event
                                               and plant.next_event in played.events):
                        self.next_codes, self.pending = result, None
                    else:
                        codes, self.pending = codes + result, None
                if st is not None:
                    setup = planted
            self.patience -= 1
            if self.pending is not None and self.patience <= 0:
                self.pending = None
        cheats = None  # a planted deal is played without the cheats
        if st is None:
            cheats = self.cheater.for_deal(setup, self.deal_number) if self.cheater else None
            st = play_deal(self.table, self.profile, setup, Forces(), random.Random(hand_rng_seed),
                           cheats)
        if self.cheater is not None:
            self.cheater.commit(st, cheats)
        return self._commit(st, setup, codes, prev_passed)

    def _commit(self, st: DealState, setup: DealSetup, codes: tuple[str, ...],
                prev_passed: bool) -> DealOutput:
        self.seats = dict(setup.seats)
        for s in st.seats:
            s.player.stack = s.stack
        self.button = setup.button
        out = st.draft.carried_out
        self.passed_out = out is not None
        self.jackpot = setup.jackpot + 1 if out is not None else 1
        self.carried = out or 0
        self.forfeited_last = out is not None and st.forfeits()
        self.forfeited = self.forfeited_last or (out is not None and self.forfeited)
        standalone = not codes and setup.jackpot == 1 and not prev_passed and out is None
        return DealOutput(st.draft, codes, setup.time.date().isoformat(), standalone)
