"""The replayer's model: a hand's state after every line, from the audit's replay.

The money and the cards are whatever :class:`audit.replay.Replay` says they are
(the same pass the rules judge), so the screen cannot disagree with a finding.
The replay reports the final state of a hand, so the state after line ``i`` is
the replay of the hand cut after that line: hands are a few dozen lines, and
the cut replays take milliseconds.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from audit.replay import Pot, Replay, SeatState
from ingest.parser import parse_hand
from ingest.writer import write_action
from schemas.display import money_text
from schemas.records import HandRecord


@dataclass(frozen=True)
class SeatView:
    """One seat after a line."""

    seat: int
    player_id: str
    cards: tuple[str, ...]
    stake: int
    in_pot: int
    behind: int
    status: str


@dataclass(frozen=True)
class LineView:
    """The state of the hand just after one line of play."""

    index: int
    line: int
    section: str
    text: str
    seat: int | None
    chips: int
    pot: int
    pots: tuple[Pot, ...]
    seats: tuple[SeatView, ...]


def parse_stored(raw_text: str, form: str, first_line: int) -> HandRecord:
    """The record of a stored hand from its raw text (log text or one JSON line)."""
    if form == "jsonl":
        return HandRecord.model_validate_json(raw_text)
    return parse_hand(raw_text, first_line=first_line)


def _status(state: SeatState) -> str:
    if not state.dealt_in:
        return "not dealt in"
    if state.false_opener:
        return "dead: false openers"
    if state.fouled:
        return "dead: fouled hand"
    if state.dead:
        return "dead"
    if state.folded:
        return "folded"
    if state.mucked:
        return "mucked"
    return "all-in" if state.all_in else "in"


def _cards(state: SeatState) -> tuple[str, ...]:
    if state.shown is not None:
        return state.shown
    if state.discards or state.drawn or state.fifth:
        return state.hand_after_draw()
    return tuple(state.dealt)


def _seats(replay: Replay) -> tuple[SeatView, ...]:
    return tuple(
        SeatView(
            seat=s.seat,
            player_id=s.player_id,
            cards=_cards(s),
            stake=s.stake,
            in_pot=s.total,
            behind=s.stack,
            status=_status(s),
        )
        for s in (replay.seats[n] for n in sorted(replay.seats))
    )


def replay_lines(record: HandRecord) -> list[LineView]:
    """The hand's state after each of its lines of play, in order."""
    views: list[LineView] = []
    full = Replay(record)
    for i, action in enumerate(record.actions):
        cut = Replay(record.model_copy(update={"actions": record.actions[: i + 1]}))
        views.append(
            LineView(
                index=action.index,
                line=action.line,
                section=action.section.value,
                text=write_action(action),
                seat=action.seat,
                chips=full.steps[i].chips if i < len(full.steps) else 0,
                pot=cut.pot_total,
                pots=cut.pots,
                seats=_seats(cut),
            )
        )
    return views


def start_state(record: HandRecord) -> tuple[SeatView, ...]:
    """The seats before any line: stacks from the header, nothing in the pot."""
    return _seats(Replay(record.model_copy(update={"actions": ()})))


def pots_text(pots: tuple[Pot, ...], currency: str = "$") -> str:
    """``main $120.00 (seats 1, 3) · side 1 $40.00 (seats 3)``."""
    parts = []
    for pot in pots:
        name = "main" if pot.number == 0 else f"side {pot.number}"
        seats = ", ".join(str(s) for s in pot.eligible) or "none"
        parts.append(f"{name} {money_text(pot.amount, currency)} (seats {seats})")
    return " · ".join(parts)


def raw_log_html(raw_text: str, first_line: int, bad_lines: set[int]) -> str:
    """The raw log with file line numbers, offending lines highlighted (text escaped)."""
    rows = []
    for offset, text in enumerate(raw_text.split("\n")):
        number = first_line + offset
        css = "op-raw-bad" if number in bad_lines else ""
        rows.append(f'<div class="{css}">{number:>6}  {html.escape(text)}</div>')
    return f'<div class="op-raw">{"".join(rows)}</div>'
