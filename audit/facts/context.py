"""What a rule checks: one batch of hands as fact tables, and the builders of its results.

A hand rule's ``check(ctx)`` gets a :class:`Batch`: the fact tables of many hands
(:mod:`audit.facts.tables`) as contiguous columns (``ctx.actions.turn``,
``ctx.seats.total`` ...), the profile, and the words the tables hold only as codes
(:mod:`audit.facts.labels`). It states its rule over the columns, vectorised where
it can, and yields ``ctx.finding(hand, ...)`` / ``ctx.unverifiable(hand, ...)`` for
the rows that break it; a procedural rule picks its candidate hands with the columns
and looks at each one with :meth:`Batch.hand`.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Mapping
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from audit.facts.labels import Labels
from audit.facts.rows import RowReader
from audit.facts.tables import Facts, Table
from audit.house import Profile
from ingest.scan.layout import OPENERS_ANY, VERBS, V, ranges
from ingest.tokens import format_amount
from schemas.findings import Finding, Severity, Unverifiable
from schemas.records import CARD_CODES, Verb

if TYPE_CHECKING:
    from audit.facts.arrays import TableMemory

IntArray = npt.NDArray[np.int64]
#: What a rule yields: the hand's row, and a finding or an unverifiable check.
Result = tuple[int, Finding | Unverifiable]


def money(cents: int) -> str:
    """An amount as the log writes it (``250`` cents -> ``"2.50"``)."""
    return format_amount(int(cents))


def about(line: int | None, own: int | None, lines: Iterable[int | None]) -> list[int]:
    """Every line a finding is about, ascending, without repeats (none of them 0)."""
    return sorted({n for n in (line, own, *lines) if n})


def verb_name(code: int) -> str:
    """The verb of a line as the log writes it (``"raises"``)."""
    return VERBS[int(code)].value


def cards_text(cards: Iterable[str]) -> str:
    """``[Jh Js 4c]`` for messages."""
    return "[" + " ".join(cards) + "]"


def spread(starts: IntArray, counts: IntArray) -> tuple[IntArray, IntArray]:
    """The positions of many ranges at once: (which range, position) for every element."""
    owner = np.repeat(np.arange(len(counts)), np.maximum(counts, 0))
    return owner, ranges(starts, counts)


class Columns:
    """A fact table as contiguous columns (``ctx.actions.turn``), copied out at once.

    Vectorised rules read a few columns of millions of rows: contiguous columns are read
    many times faster than the strided columns of the record array. With ``memory`` (a
    check worker's, kept from batch to batch: the compiled path) every column is copied
    out in one compiled pass over the rows (:func:`audit.facts.columns.split_columns`);
    without it (the reference path, a small check, which must not load the compiled
    code), a block of rows at a time, all columns of a block while it is in the cache.
    """

    _BLOCK = 2048

    def __init__(self, table: Table, memory: TableMemory | None = None, name: str = "") -> None:
        self.table = table
        if memory is not None:
            from audit.facts.columns import split_columns  # compiled: loaded only when used

            self.__dict__.update(split_columns(table, memory, name))
            return
        names = table.dtype.names or ()
        columns = {name: np.empty(len(table), dtype=table.dtype[name]) for name in names}
        for start in range(0, len(table), self._BLOCK):
            part = table[start:start + self._BLOCK]
            for name in names:
                columns[name][start:start + self._BLOCK] = part[name]
        self.__dict__.update(columns)

    def __getattr__(self, name: str) -> np.ndarray:
        raise AttributeError(name)  # every column is set in __init__

    def __len__(self) -> int:
        return int(self.table.shape[0])


@cache
def _row_kind(dtype: np.dtype) -> tuple[Any, RowReader]:
    """The named tuple type and the reader of a fact table's rows: made once per kind of
    table (a batch asks for four; a night audits thousands of batches)."""
    return namedtuple("Row", dtype.names or ()), RowReader(dtype)


class PlainRows:
    """A fact table's rows one at a time, as named tuples of plain values (``.opener``)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self._type, self._reader = _row_kind(table.dtype)

    def __getitem__(self, row: int) -> Any:
        return self._type._make(self._reader.row(self.table, row))


class RuleInfo(Protocol):
    """What a finding takes from its rule (the rule classes provide it)."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def severity(self) -> Severity: ...
    @property
    def source(self) -> str: ...


class Batch:
    """A batch of hands as a rule sees it (see the module docstring)."""

    def __init__(self, facts: Facts, profile: Profile, labels: Labels,
                 memory: TableMemory | None = None) -> None:
        """``memory``: where the columns are kept (see :class:`TableMemory`); the batch
        must then be dead before the next batch is made in the same memory."""
        self.facts = facts
        self.profile = profile
        self.labels = labels
        self.hands = Columns(facts.hands, memory, "hands")
        self.actions = Columns(facts.actions, memory, "actions")
        self.seats = Columns(facts.seats, memory, "seats")
        self.pots = Columns(facts.pots, memory, "pots")
        #: The rule being checked (the engine sets it).
        self.rule: RuleInfo
        self._verb_rows: dict[int, IntArray] = {}
        self._verbs_rows: dict[frozenset[Verb], IntArray] = {}
        #: What rules derive from the batch and share (the views of candidate hands ...).
        self.memo: dict[str, Any] = {}
        self._hand_row = PlainRows(facts.hands)
        self._action_row = PlainRows(facts.actions)
        self._seat_row = PlainRows(facts.seats)
        self._pot_row = PlainRows(facts.pots)

    def __len__(self) -> int:
        return len(self.facts)

    # ---- lookups -------------------------------------------------------------------
    def hand(self, row: int) -> Any:
        """Hand row ``row`` with plain Python values, fields by name (``.opener``)."""
        return self._hand_row[row]

    def action(self, row: int) -> Any:
        """Action row ``row`` with plain Python values (``.turn``, ``.line`` ...)."""
        return self._action_row[row]

    def seat(self, row: int) -> Any:
        """Seat row ``row`` with plain Python values (``.total``, ``.dealt_in`` ...)."""
        return self._seat_row[row]

    def pot(self, row: int) -> Any:
        """Pot row ``row`` with plain Python values."""
        return self._pot_row[row]

    def rows(self, *verbs: Verb) -> IntArray:
        """The action rows of lines with any of ``verbs``, in log order (kept for the next
        rule that asks: never written to)."""
        if len(verbs) == 1:
            code = V[verbs[0]]
            rows = self._verb_rows.get(code)
            if rows is None:
                rows = self._verb_rows[code] = np.flatnonzero(self.actions.verb == code)
            return rows
        key = frozenset(verbs)
        both = self._verbs_rows.get(key)
        if both is None:
            # One pass over the verbs through a table of the wanted codes: the rows come
            # out in order (no sort of the verbs' rows put together).
            wanted = np.zeros(256, dtype=np.bool_)
            wanted[[V[verb] for verb in key]] = True
            both = self._verbs_rows[key] = np.flatnonzero(
                wanted[self.actions.verb.view(np.uint8)])
        return both

    @cached_property
    def judged(self) -> npt.NDArray[np.bool_]:
        """Per hand: the openers rules apply (a minimum other than ANY, no misdeal)."""
        return (self.hands.required != OPENERS_ANY) & (self.hands.misdeal_index < 0)

    @cached_property
    def _seat_rows(self) -> IntArray:
        rows = np.full(len(self) * 16, -1, dtype=np.int64)
        rows[self.seats.hand.astype(np.int64) * 16 + self.seats.seat] = np.arange(len(self.seats))
        return rows

    def seat_rows(self, hands: IntArray, seats: IntArray) -> IntArray:
        """The seats-table rows of many (hand, seat number) pairs (-1: not seated)."""
        return self._seat_rows[hands.astype(np.int64) * 16 + seats]

    def seat_row(self, hand: int, seat: int) -> int:
        """The seats-table row of seat number ``seat`` in ``hand``; -1 if not seated."""
        first = int(self.hands.seat_start[hand])
        numbers = self.seats.seat[first:first + int(self.hands.seat_count[hand])]
        found = np.flatnonzero(numbers == seat)
        return first + int(found[0]) if len(found) else -1

    def action_row(self, hand: int, index: int) -> int:
        """The actions-table row of the hand's line ``index``."""
        return int(self.hands.action_start[hand]) + index

    def cards(self, start: int, count: int) -> tuple[str, ...] | None:
        """The cards of a range of the facts' card array (None for a count of -1)."""
        if count < 0:
            return None
        return tuple(map(CARD_CODES.__getitem__, self.facts.cards[start:start + count].tolist()))

    def seat_cards(self, row: int, which: str) -> tuple[str, ...] | None:
        """One card list of seat row ``row``: ``dealt``, ``discards``, ``drawn``, ``fifth``,
        ``mismatch``, ``dealt_hand`` or ``final`` (None where the log cannot prove it)."""
        seat = self.facts.seats[row]
        return self.cards(int(seat[f"{which}_start"]), int(seat[f"{which}_count"]))

    def line_cards(self, row: int) -> tuple[str, ...] | None:
        """The cards of action row ``row`` (None when the line has no card list)."""
        a = self.facts.actions[row]
        return self.cards(int(a["cards_start"]), int(a["cards_count"]))

    # ---- results -------------------------------------------------------------------
    def finding(
        self,
        hand: int,
        message: str,
        *,
        action: int | None = None,
        seat: int | None = None,
        line: int | None = None,
        lines: Iterable[int | None] = (),
        evidence: Mapping[str, Any] | None = None,
    ) -> Result:
        """A finding of the current rule on ``hand``.

        ``action`` (an actions-table row) gives the line and action index (and the seat,
        unless ``seat`` is given); ``line`` overrides the line (e.g. the RESULT line).
        ``lines`` are the other lines the finding is about (the offender's own lines
        where ``line`` is where the fault became certain); the finding lists them with
        ``line`` and the action's line, ascending, without repeats. Amounts in
        ``evidence`` are integer cents in keys named ``*_cents``.
        """
        rule = self.rule
        index = None
        own = None
        if action is not None:
            a = self.actions
            index = int(a.index[action])
            own = int(a.line[action])
            if seat is None and a.seat[action] != 0:
                seat = int(a.seat[action])
            if line is None:
                line = own
        labels = self.labels
        return hand, Finding.model_construct(
            code=rule.code,
            name=rule.name,
            severity=self.profile.severity_of(rule.code, rule.severity),
            hand_id=labels.hand_id(hand),
            table_id=labels.table_id(hand),
            line=line,
            lines=about(line, own, lines),
            action_index=index,
            seat=seat,
            message=message,
            evidence=dict(evidence) if evidence else {},
            source=rule.source,
        )

    def unverifiable(self, hand: int, reason: str, *, seat: int | None = None) -> Result:
        """The current rule could not be checked on ``hand``: ``reason`` says what is missing."""
        labels = self.labels
        return hand, Unverifiable.model_construct(
            code=self.rule.code, hand_id=labels.hand_id(hand), table_id=labels.table_id(hand),
            seat=seat, reason=reason,
        )
