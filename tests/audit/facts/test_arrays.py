"""Picking and joining batches of flat arrays: the shared (no copy) paths give the rows the
copying paths give, and a joined batch's hands read their own rows."""

from __future__ import annotations

import numpy as np

from audit.facts.arrays import join, take
from ingest.scan import layout
from ingest.scan.layout import HandArrays
from ingest.scan.scanner import scan
from tests.audit.corpus import corpus


def _hand(arrays: HandArrays, h: int) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Hand ``h``'s seat rows, line rows (card offsets out) and cards, by value."""
    row = arrays.hands[h]
    seat_at, seat_count = row[layout.H_SEAT_START], row[layout.H_SEAT_COUNT]
    event_at, event_count = row[layout.H_EVENT_START], row[layout.H_EVENT_COUNT]
    seats = arrays.seats[seat_at:seat_at + seat_count]
    lines = arrays.events[event_at:event_at + event_count]
    lists = ((layout.E_CARDS_START, layout.E_CARDS_COUNT),
             (layout.E_DRAWN_START, layout.E_DRAWN_COUNT))
    cards: list[int] = []
    for line in lines:
        for start, count in lists:
            cards += arrays.cards[line[start]:line[start] + max(line[count], 0)].tolist()
    bare = np.delete(lines, [layout.E_CARDS_START, layout.E_DRAWN_START], axis=1)
    return seats.tolist(), bare.tolist(), cards


def _same_hands(got: HandArrays, want: list[tuple[HandArrays, int]]) -> None:
    assert len(got) == len(want)
    for h, (arrays, row) in enumerate(want):
        keep = [layout.H_STATUS, layout.H_SEAT_COUNT, layout.H_EVENT_COUNT]
        assert got.hands[h, keep].tolist() == arrays.hands[row, keep].tolist()
        assert _hand(got, h) == _hand(arrays, row)


def test_take_and_join_keep_each_hands_rows() -> None:
    room = corpus("robert", hands=300, seed=8, broken=0.05)
    data = [p.read_bytes() for p in room.files[:2]]
    scans = [scan(np.frombuffer(d, dtype=np.uint8)).arrays for d in data]
    first = scans[0]
    read = np.flatnonzero(first.hands[:, layout.H_STATUS] == 0)
    assert len(read) < len(first)  # some hands are left unread: they own no rows
    shared = take(first, read)
    assert shared.events is first.events  # every row kept: nothing copied
    _same_hands(shared, [(first, int(r)) for r in read])
    picked = read[::-1][:20]  # not in order: copied
    _same_hands(take(first, picked), [(first, int(r)) for r in picked])
    second = take(scans[1], np.arange(len(scans[1])))
    joined = join([shared, take(first, picked), second])
    _same_hands(joined, [*((first, int(r)) for r in read), *((first, int(r)) for r in picked),
                         *((scans[1], r) for r in range(len(scans[1])))])
    assert join([shared, join([])]) is shared
    assert len(join([])) == 0
