"""Small rooms for the CLI tests: fixture hands with findings, and one unreadable hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.harness import FIXTURES

EXAMPLE = Path(__file__).resolve().parents[2] / "ingest" / "samples" / "spec_example.log"


@pytest.fixture
def room(tmp_path: Path) -> Path:
    """A folder: B105's and B101's fixture hands, and a file with one unreadable hand.

    ``broken.log`` holds the spec example with a bad card (``Kx``), then B105's hands.
    """
    folder = tmp_path / "room"
    folder.mkdir()
    (folder / "b105.log").write_text((FIXTURES / "B105.log").read_text())
    (folder / "b101.log").write_text((FIXTURES / "B101.log").read_text())
    broken = EXAMPLE.read_text().replace("[Kd Kc 7s", "[Kd Kx 7s")
    (folder / "broken.log").write_text(broken + "\n\n" + (FIXTURES / "B105.log").read_text())
    return folder
