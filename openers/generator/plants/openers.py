"""Planters for the openers rules O201-O211 (Jacks-or-Better tables)."""

from __future__ import annotations

import random

from audit.opening import could_have_held_openers
from audit.profiles import DiscardsSetAside, FalseOpenerStyle, Profile
from openers.generator.plants.base import Finish, Plant, jacks_only, on_event
from openers.generator.plants.helpers import collected, reached_showdown
from openers.generator.state import DealState, Forces, TableSettings
from schemas.records import Verb


def _false_opener_loses(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """O201: a seat opened without openers, was never ruled, and lost at the showdown."""
    fo = st.false_opener
    if fo is None or not reached_showdown(st, fo) or collected(st, fo):
        return None
    return ("O201",)


def _false_split_wins(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """O208 (and O201, which it implies): a false opener 'split openers' and won.

    When its final hand and discards could still have held openers, the split is not
    impossible (the catalogue's O202 instead), so the deal is replayed clean.
    """
    fo = st.false_opener
    if "false_opener_splits" not in st.events or not collected(st, fo):
        return None
    if fo is None or not reached_showdown(st, fo):
        return None
    s = st.by_seat(fo)
    if could_have_held_openers(s.hand, s.discards, st.setup.openers, bobtail=st.profile.bobtail):
        return None  # the draw hides the lie: that is an unproven opener (O202), not O208
    return ("O201", "O208")


def _drop_proof(event: str, code: str) -> Finish:
    """A finish that removes the opener's proof of openers (after ``event``)."""

    def finish(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
        if event not in st.events or st.opener is None:
            return None
        proofs = st.draft.find(Verb.SHOWS_OPENERS, st.opener)
        if len(proofs) != 1:
            return None
        st.draft.remove(proofs[0])
        return (code,)
    return finish


def _opener_alone(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """O202: everyone folded to the opener, who took the pot without showing openers."""
    if st.opener is None or not collected(st, st.opener) or len(st.live()) != 1:
        return None
    st.events.add("opener_alone")
    return _drop_proof("opener_alone", "O202")(st, rng)


def _refunding(table: TableSettings, profile: Profile) -> bool:
    return jacks_only(table, profile) and profile.false_opener is FalseOpenerStyle.DEAD_HAND_REFUND


def _strict_declare(table: TableSettings, profile: Profile) -> bool:
    return _refunding(table, profile) and not profile.passed_openers_may_declare


def _declared_splits(table: TableSettings, profile: Profile) -> bool:
    """O207 is judged where discards are set aside only when splitting (R-JB 9)."""
    return (jacks_only(table, profile)
            and profile.discards_set_aside is DiscardsSetAside.WHEN_SPLITTING)


def _penalised(table: TableSettings, profile: Profile) -> bool:
    return jacks_only(table, profile) and bool(profile.abandon_penalty)


PLANTS = (
    Plant("O201", Forces(false_opener=True), _false_opener_loses, applies=jacks_only),
    Plant("O202", Forces(opener_wins_alone=True), _opener_alone, applies=jacks_only),
    Plant("O203", Forces(opener_withdraws=True), on_event("opener_withdraws", "O203"),
          applies=jacks_only),
    Plant("O204", Forces(false_opener=True, caught_false_opener="declare"),
          on_event("declare", "O204"), applies=_strict_declare),
    Plant("O205", Forces(false_opener=True, caught_false_opener="play_wrong"),
          on_event("play_wrong", "O205"), applies=_refunding),
    Plant("O206", Forces(false_opener=True, caught_false_opener="bad_refund"),
          on_event("bad_refund", "O206"), applies=_refunding),
    Plant("O207", Forces(opener_breaks_openers=True),
          on_event("opener_breaks_openers", "O207"), applies=_declared_splits),
    Plant("O208", Forces(false_opener=True, false_opener_splits=True), _false_split_wins,
          applies=jacks_only),
    Plant("O209", Forces(refund_weak_caller=True), on_event("refund_weak_caller", "O209"),
          applies=jacks_only),
    Plant("O210", Forces(opener_folds_after_draw=True),
          _drop_proof("opener_folds_after_draw", "O210"), applies=jacks_only),
    Plant("O211", Forces(fold_before_open=True), on_event("fold_before_open", "O211"),
          applies=_penalised),
)
