"""The fast path covers exactly the registered rules, and steps aside for any other."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit import batch
from audit.fast import coverage
from audit.profiles import load_profile
from audit.registry import codes

EXAMPLE = Path(__file__).parents[1] / "fixtures" / "clean.log"


def test_every_registered_code_is_covered_by_exactly_one_certifier() -> None:
    listed = coverage.BETTING + coverage.CARDS + coverage.SEQUENCE
    assert len(listed) == len(set(listed))
    assert set(listed) == set(codes())


def test_a_profile_running_an_uncovered_code_gets_the_reference_path(monkeypatch) -> None:
    robert = load_profile("robert")
    assert coverage.covers(robert)
    monkeypatch.setattr(coverage, "COVERED", coverage.COVERED - {"P404"})
    assert not coverage.covers(robert)
    assert coverage.covers(robert.with_selection(None, ["P404"]))

    def no_fast_path(*args: object, **kwargs: object) -> None:
        pytest.fail("the fast path ran for a profile it does not cover")

    monkeypatch.setattr("audit.fast.check.fast_check_paths", no_fast_path)
    report = batch.check_paths([EXAMPLE], robert, workers=1)
    assert report.hands > 0


def test_the_store_audit_steps_aside_too(tmp_path: Path, monkeypatch) -> None:
    from audit.store import audit_store
    from ingest.load import ingest_paths
    from schemas.store import connect

    db = tmp_path / "store.duckdb"
    ingest_paths([str(EXAMPLE)], str(db))
    monkeypatch.setattr(coverage, "COVERED", coverage.COVERED - {"J501"})

    def no_fast_path(*args: object, **kwargs: object) -> None:
        pytest.fail("the fast path ran for a profile it does not cover")

    monkeypatch.setattr("audit.fast.stored.fast_audit_stored", no_fast_path)
    con = connect(db)
    try:
        assert audit_store(con, load_profile("robert"), workers=1).hands > 0
    finally:
        con.close()
