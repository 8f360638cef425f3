"""One alphabet and one set of bounds for every reader (issue 15, observations 1 and 2).

Every number of the format is ASCII digits (``１``, ``٣`` or any other script's digit
is refused) and has a bound (``schemas.limits``). The reference parser refuses
exactly what the grammar refuses; the fast reader (the compiled scanner, and the
staging rows ingest builds from its arrays) accepts a subset of what it accepts, with
the same values; the JSON Lines form refuses a number out of range or not written as
a JSON integer. Values are drawn over the full Unicode range and far past int64.
"""

from __future__ import annotations

import json
import re
from operator import itemgetter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from audit.facts.layout import from_records
from ingest.errors import ErrorKind, HandParseError
from ingest.parser import parse_hand
from ingest.reader import ParsedHand, sha256_text
from ingest.scan.layout import H_STATUS
from ingest.scan.scanner import scan
from ingest.staged import parsed_rows, scanned_rows
from schemas.limits import MAX_CENTS, MAX_COUNT, MAX_LINE_NUMBER
from schemas.records import HandRecord
from tests.ingest.conftest import example

AMOUNT = re.compile(r"[0-9]{1,13}(?:\.[0-9]{1,2})?")
# (where in the spec's example, what to put there with {} for the value, the value's kind)
SLOTS = [
    ("Ante: 1", "Ante: {}", "amount"),
    ("Limit: 10/20", "Limit: {}/20", "amount"),
    ("Seat 3: P-30988 (96)", "Seat 3: P-30988 ({})", "amount"),
    ("Button: 5", "Button: 5\nCarried: {}", "amount"),
    ("Seat 5: calls 20", "Seat 5: calls {}", "amount"),
    ("Seat 3: raises 10 to 20", "Seat 3: raises {} to 20", "amount"),
    ("Seat 1: antes 1", "Seat 1: antes {}", "amount"),
    ("Seat 3: collects 140", "Seat 3: collects {}", "amount"),
    ("Rake: 4", "Rake: {}", "amount"),
    ("Pot: 144", "Pot: {}", "amount"),
    ("Dealer: burns [2h]", "Dealer: returns {} to Seat 3", "amount"),
    ("Button: 5", "Button: 5\nJackpot: {}", "count"),
    ("Seat 3: collects 140", "Seat 3: collects 140 from side pot {}", "count"),
]
OTHER_DIGITS = st.characters(categories=["Nd"]).filter(lambda c: not c.isascii())
ASCII_NUMBER = st.from_regex(r"\A[0-9]{1,40}(\.[0-9]{1,3})?\Z")


@st.composite
def values(draw: st.DrawFn) -> str:
    """ASCII numbers up to 40 digits, the same with another script's digit in them, and
    any short text over the full Unicode range."""
    how = draw(st.sampled_from(["ascii", "script", "text"]))
    if how == "ascii":
        return draw(ASCII_NUMBER)
    if how == "script":
        number = draw(ASCII_NUMBER)
        at = draw(st.integers(0, len(number) - 1))
        return number[:at] + draw(OTHER_DIGITS) + number[at + 1:]
    return draw(st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=4))


def grammar_accepts(value: str, kind: str) -> bool:
    """What the grammar says of ``value`` in a slot of ``kind`` (the expected verdict)."""
    if kind == "amount":
        return AMOUNT.fullmatch(value) is not None
    return re.fullmatch(r"[0-9]{1,9}", value) is not None and int(value) >= 1


def judged_part(slot: tuple[str, str, str], value: str) -> str:
    """The part of ``value`` the grammar judges: the reference reader ignores whitespace at
    a line's end (it strips each line, as a CRLF file needs; the spec says nothing of
    trailing blanks), so a value that ends its line is judged without it."""
    return value.rstrip() if slot[1].endswith("{}") else value


def _hand(slot: tuple[str, str, str], value: str) -> str:
    old, new, _ = slot
    text = example("LIMITS-1")
    assert old in text
    return text.replace(old, new.format(value), 1)


def _reference(text: str) -> HandRecord | HandParseError:
    try:
        return parse_hand(text)
    except HandParseError as exc:
        return exc


_KEYS = {"stg_hands": ("hand_id",), "stg_seats": ("hand_id", "seat"),
         "stg_actions": ("hand_id", "action_index")}


def _staging_rows(tables: dict) -> dict[str, list[dict]]:
    return {name: sorted(table.to_pylist(), key=itemgetter(*_KEYS[name]))
            for name, table in tables.items()}


def _fast_rows(text: str) -> dict[str, list[dict]] | None:
    """The rows ingest builds from the scanner's arrays, or None if it does not read it."""
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    result = scan(buf)
    if int(result.arrays.hands[0, H_STATUS]) != 0:
        return None
    return _staging_rows(scanned_rows(buf, result, np.array([0]), "f.log").tables())


def _scanned(text: str) -> bool:
    return int(scan(np.frombuffer(text.encode(), dtype=np.uint8)).arrays.hands[0, H_STATUS]) == 0


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(SLOTS), values())
def test_every_reader_reads_numbers_as_the_grammar_says(slot, value) -> None:
    text = _hand(slot, value)
    judged = _reference(text)
    accepted = grammar_accepts(judged_part(slot, value), slot[2])
    assert isinstance(judged, HandRecord) is accepted, (value, judged)
    fast = _fast_rows(text)
    scanned = _scanned(text)
    if not accepted:
        assert fast is None and not scanned, value
        return
    assert isinstance(judged, HandRecord)
    if fast is not None:
        parsed = ParsedHand(judged, text, sha256_text(text), "f.log", 1, 0)
        assert fast == _staging_rows(parsed_rows([parsed]).tables())
    if scanned:
        arrays = scan(np.frombuffer(text.encode(), dtype=np.uint8)).arrays
        reference = from_records([judged])
        assert np.array_equal(arrays.events[:, :13], reference.events[:, :13])


@pytest.mark.parametrize("digit", ["１", "٣", "۵", "७", "๙", "𝟘"])
@pytest.mark.parametrize("slot", SLOTS, ids=[s[1].split("{")[0].strip() for s in SLOTS])
def test_a_digit_of_another_script_is_refused_by_every_reader(slot, digit) -> None:
    text = _hand(slot, f"1{digit}")
    judged = _reference(text)
    assert isinstance(judged, HandParseError)
    assert _fast_rows(text) is None
    assert not _scanned(text)


@pytest.mark.parametrize("slot", SLOTS, ids=[s[1].split("{")[0].strip() for s in SLOTS])
@pytest.mark.parametrize("value", ["3000000000", str(2**63), str(10**19), "9" * 5000])
def test_a_number_past_its_bound_is_out_of_range_for_every_reader(slot, value) -> None:
    if slot[2] == "amount" and len(value) <= 13:
        return  # 3,000,000,000 is a fine amount
    text = _hand(slot, value)
    judged = _reference(text)
    assert isinstance(judged, HandParseError)
    assert judged.kind is ErrorKind.OUT_OF_RANGE
    assert len(str(judged)) < 400  # a 5,000-digit token is cut in the message
    assert _fast_rows(text) is None
    assert not _scanned(text)


def _record_json(**changes: object) -> str:
    record = parse_hand(example("J-LIMITS")).model_dump(mode="json")
    record.update(changes)
    return json.dumps(record)


@pytest.mark.parametrize(("field", "value", "accepted"), [
    ("pot", MAX_CENTS, True),
    ("pot", MAX_CENTS + 1, False),
    ("pot", 10**19, False),
    ("pot", 2**64 + 7, False),
    ("pot", "144", False),  # a string is not a JSON integer
    ("pot", 144.0, False),
    ("pot", True, False),
    ("pot", "１４４", False),
    ("jackpot", MAX_COUNT, True),
    ("jackpot", MAX_COUNT + 1, False),
    ("jackpot", 3_000_000_000, False),
    ("first_line", MAX_LINE_NUMBER, True),
    ("first_line", MAX_LINE_NUMBER + 1, False),
    ("time", "2026-11-28T21:04:12-08:00", True),
    ("time", "2026-11-28T21:04:12", False),  # no offset
    ("time", "0001-01-01T00:00:00+05:00", False),
    ("time", "1899-12-31T00:00:00Z", False),
    ("time", "2026-11-28T21:04:12+23:00", False),
])
def test_the_json_lines_form_has_the_same_bounds(field, value, accepted) -> None:
    text = _record_json(**{field: value})
    try:
        HandRecord.model_validate_json(text, strict=True)
    except ValidationError:
        assert not accepted
    else:
        assert accepted


def test_json_amounts_in_actions_are_bounded_too() -> None:
    record = json.loads(_record_json())
    record["actions"][0]["amount"] = 10**19
    with pytest.raises(ValidationError):
        HandRecord.model_validate_json(json.dumps(record), strict=True)


@pytest.mark.parametrize(("time", "kind"), [
    ("1899-12-31T23:00:00-08:00", ErrorKind.OUT_OF_RANGE),
    ("0001-01-01T00:00:00+05:00", ErrorKind.OUT_OF_RANGE),
    ("9999-12-31T23:59:59-05:00", ErrorKind.OUT_OF_RANGE),
    ("2026-11-28T21:04:12+05:30:15", ErrorKind.BAD_TIME),
    ("2026-11-28T21:04:12+19:00", ErrorKind.BAD_TIME),
])
def test_times_outside_their_bounds_are_refused(time: str, kind: ErrorKind) -> None:
    text = example("T-1").replace("Time: 2026-11-28T21:04:12-08:00", f"Time: {time}")
    judged = _reference(text)
    assert isinstance(judged, HandParseError) and judged.kind is kind
    assert _fast_rows(text) is None and not _scanned(text)


@pytest.mark.parametrize("blank", [" ", "\t", " \t "])
def test_blanks_after_a_number_at_a_line_end_are_ignored(blank) -> None:
    """The near miss the grammar's oracle must know: ``Ante: 0 `` reads as ``Ante: 0``;
    the scanner leaves such a hand to the reference parser, the judge."""
    slot = SLOTS[0]
    judged = _reference(_hand(slot, "0" + blank))
    assert isinstance(judged, HandRecord)
    plain = _reference(_hand(slot, "0"))
    assert isinstance(plain, HandRecord) and judged.ante == plain.ante == 0
    assert not _scanned(_hand(slot, "0" + blank))
