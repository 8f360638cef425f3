"""Shared fixtures of the ingest tests: the spec's example hand under other ids."""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "ingest" / "samples"
EXAMPLE_ID = "BCY-T07-000123"


def example(hand_id: str = EXAMPLE_ID) -> str:
    """The spec's complete example hand (no trailing newline), with ``hand_id``."""
    text = (SAMPLES / "spec_example.log").read_text().rstrip("\n")
    return text.replace(f"Hand: {EXAMPLE_ID}", f"Hand: {hand_id}")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A fresh store path."""
    return tmp_path / "store.duckdb"
