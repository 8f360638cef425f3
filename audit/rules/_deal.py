"""Helpers shared by the deal and draw rules (D301-D306) over the fact tables."""

from __future__ import annotations

import numpy as np

from audit.facts.context import Batch, IntArray
from audit.facts.view import HandView, Line
from schemas.records import Verb

HAND_SIZE = 5


SEAT_KEY = 16  # a (hand, seat) key: hand * 16 + seat


DRAW_TURNS = (Verb.DISCARDS, Verb.STANDS_PAT)


DRAW_LINES = frozenset({Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH})


RECEIVING = (Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS)


def per_seat(ctx: Batch, rows: IntArray, weights: IntArray) -> IntArray:
    """Sums of ``weights`` over action ``rows`` by (hand, seat) key."""
    a = ctx.actions
    keys = a.hand[rows].astype(np.int64) * SEAT_KEY + a.seat[rows]
    return np.bincount(keys, weights=weights, minlength=len(ctx) * SEAT_KEY).astype(np.int64)


def seats_at_draw(view: HandView) -> list[int]:
    return [n for n in view.order if view.seats[n].at_draw]


def receipts_of(view: HandView, seat: int) -> list[Line]:
    return [a for a in view.lines_of(*RECEIVING) if a.seat == seat and a.received]
