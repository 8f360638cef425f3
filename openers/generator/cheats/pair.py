"""A colluding pair at the table: how the two bend their betting in the deals they cheat in.

Each decision is the one an honest player would make, changed only where the
collusion says (see :class:`~openers.generator.cheats.config.Collusion`):

- soft play: heads-up against the partner (before or after the draw), a bet becomes
  a check and a raise a call;
- chip dumping (the first player pays the second): heads-up after the draw, the
  first bets when first to act, calls the second's bet with a losing hand and folds
  a winning one to it;
- whipsaw: facing the partner's bet or raise with a third player still in, raise;
- passing openers: before the open, with openers and the partner still to act
  behind, pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from openers.generator.showdown import power
from openers.generator.state import DealState, SeatState
from openers.generator.strategy import Choice
from schemas.records import Section, Verb


@dataclass(frozen=True, slots=True)
class Pair:
    """The two players' ids; ``first`` pays ``second`` when they dump chips."""

    first: str
    second: str

    def partner_of(self, player_id: str) -> str | None:
        """The other one's id, or None for a player outside the pair."""
        if player_id == self.first:
            return self.second
        if player_id == self.second:
            return self.first
        return None


def seat_of(st: DealState, player_id: str) -> SeatState | None:
    """The seat state of a player in this deal, if dealt in."""
    return next((s for s in st.seats if s.player.player_id == player_id), None)


def heads_up_with(st: DealState, s: SeatState, partner: str) -> SeatState | None:
    """The partner's seat when the partner is the only other live seat."""
    live = [x for x in st.live() if x.seat != s.seat]
    if len(live) == 1 and live[0].player.player_id == partner:
        return live[0]
    return None


def last_aggressor(st: DealState, section: Section) -> int | None:
    """The seat of the last bet, open or raise of this section."""
    for row in reversed(st.draft.rows):
        if row.section is not section:
            break
        if row.verb in (Verb.BETS, Verb.RAISES, Verb.OPENS):
            return row.seat
    return None


def soft_unbet(choice: Choice) -> Choice:
    """No bet into the partner."""
    return Choice.CHECK if choice is Choice.BET else choice


def soft_facing(choice: Choice) -> Choice:
    """No raise of the partner."""
    return Choice.CALL if choice is Choice.RAISE else choice


def dump_facing(s: SeatState, partner: SeatState) -> Choice:
    """Pay the partner: fold a winning hand to his bet, call with a losing one."""
    return Choice.FOLD if power(s) > power(partner) else Choice.CALL


def third_player_in(st: DealState, s: SeatState, partner_seat: int) -> bool:
    """Whether someone besides the seat and its partner is still live."""
    return any(x.seat not in (s.seat, partner_seat) for x in st.live())


def partner_behind(st: DealState, s: SeatState, partner: str) -> bool:
    """Before the open: the partner is live and has not acted yet this round (acts after)."""
    p = seat_of(st, partner)
    return p is not None and p.in_hand and not p.acted and p.seat != s.seat
