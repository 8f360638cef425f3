"""Small questions planters ask of a finished deal."""

from __future__ import annotations

from openers.generator.draft import Row
from openers.generator.state import DealState
from schemas.records import Section, Verb


def collected(st: DealState, seat: int | None) -> int:
    """Chips ``seat`` collected in the RESULT."""
    return sum(r.amount or 0 for r in st.draft.find(Verb.COLLECTS, seat))


def reached_showdown(st: DealState, seat: int | None) -> bool:
    """Whether ``seat`` showed or mucked at the showdown."""
    return any(r.seat == seat and r.section is Section.SHOWDOWN
               and r.verb in (Verb.SHOWS, Verb.MUCKS) for r in st.draft.rows)


def section_rows(st: DealState, section: Section) -> list[Row]:
    """The rows of one section, in order."""
    return [r for r in st.draft.rows if r.section is section]


def spare_cards(st: DealState, count: int) -> tuple[str, ...] | None:
    """``count`` cards nobody saw this deal (from the undealt stub), or None."""
    rest = st.deck[st.deck_pos:]
    return tuple(rest[-count:]) if len(rest) >= count else None


def has_side_pots(st: DealState) -> bool:
    """Whether any chips were collected from a side pot."""
    return any(r.side_pot for r in st.draft.find(Verb.COLLECTS))
