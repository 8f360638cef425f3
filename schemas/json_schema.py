"""The JSON Schema of :class:`~schemas.records.HandRecord` (what ``openers schema`` prints).

It describes one line of the JSON Lines form that ``openers ingest`` accepts.
"""

from __future__ import annotations

import json
from typing import Any

from schemas.records import HandRecord

SCHEMA_ID = "https://openers.invalid/schemas/hand-record-v1.json"


def hand_record_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a hand record, with an ``$id`` and title."""
    schema = HandRecord.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            **schema}


def hand_record_schema_json(indent: int = 2) -> str:
    """The schema as JSON text."""
    return json.dumps(hand_record_schema(), indent=indent, ensure_ascii=False)
