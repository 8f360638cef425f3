"""The parser builds records without pydantic validation; prove it builds what
``model_validate`` would, and never builds something ``model_validate`` rejects."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.errors import HandParseError
from ingest.parser import parse_hand
from ingest.writer import write_hand
from schemas.records import HandRecord
from tests.ingest.strategies import hand_records

# Characters a mutation inserts: digits, signs, separators and the format's punctuation.
_NOISE = st.sampled_from([*"0123456789.-+:/[]() ?#*TJQKAcdhsXxé\t", "", "  ", "-1"])


def _same_as_validated(record: HandRecord) -> None:
    validated = HandRecord.model_validate(record.model_dump())
    assert validated == record
    assert validated.model_dump() == record.model_dump()
    assert validated.model_dump_json() == record.model_dump_json()
    assert validated.model_fields_set == record.model_fields_set
    for mine, theirs in zip(record.actions, validated.actions, strict=True):
        assert type(mine) is type(theirs)
        assert mine.model_fields_set == theirs.model_fields_set
        assert list(mine.__dict__) == list(theirs.__dict__)
    assert list(record.__dict__) == list(validated.__dict__)


@settings(max_examples=100, deadline=None)
@given(hand_records())
def test_parsed_record_equals_validated_record(record) -> None:
    _same_as_validated(parse_hand(write_hand(record)))


@settings(max_examples=300, deadline=None)
@given(hand_records(max_actions=10), st.data())
def test_mutated_text_parses_valid_or_raises_parse_error(record, data) -> None:
    lines = write_hand(record).split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        row = data.draw(st.integers(0, len(lines) - 1))
        line = lines[row]
        col = data.draw(st.integers(0, len(line)))
        cut = data.draw(st.integers(0, 2))
        lines[row] = line[:col] + data.draw(_NOISE) + line[col + cut:]
    try:
        parsed = parse_hand("\n".join(lines))
    except HandParseError as exc:
        assert exc.line >= 1 and str(exc).startswith(f"line {exc.line}:")
        return
    _same_as_validated(parsed)
