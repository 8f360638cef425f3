"""The review store: append-only decisions keyed by the finding's stable identity."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from dashboards import reviews
from dashboards.reviews import FindingKey, ReviewStatus

KEY = FindingKey("BCY-T01-000001", "B101", 7, 3)


def test_decisions_are_appended_with_previous_state(tmp_path: Path) -> None:
    path = tmp_path / "openers.reviews.sqlite"
    first = reviews.record_decision(path, KEY, ReviewStatus.CONFIRMED, "ana", "raise over cap")
    second = reviews.record_decision(path, KEY, ReviewStatus.DISMISSED, " bo ", "cap not reached")
    assert first is ReviewStatus.UNREVIEWED
    assert second is ReviewStatus.CONFIRMED
    history = reviews.history(path, KEY)
    assert history[["reviewer", "previous_status", "status", "note"]].values.tolist() == [
        ["ana", "unreviewed", "confirmed", "raise over cap"],
        ["bo", "confirmed", "dismissed", "cap not reached"],
    ]
    assert all(history["decided_at"].str.endswith("+00:00"))
    latest = reviews.latest(path)
    assert latest[["finding_key", "review_status", "reviewer", "decisions"]].values.tolist() == [
        [KEY.text(), "dismissed", "bo", 2]
    ]


def test_the_file_refuses_updates_and_deletes(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    reviews.record_decision(path, KEY, ReviewStatus.CONFIRMED, "ana", "")
    con = sqlite3.connect(path)
    for statement in ("UPDATE reviews SET status = 'dismissed'", "DELETE FROM reviews"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            con.execute(statement)
    con.close()
    assert reviews.latest(path)["review_status"].tolist() == ["confirmed"]


@pytest.mark.parametrize(
    ("reviewer", "note", "status"),
    [
        ("   ", "note", ReviewStatus.CONFIRMED),
        ("x" * (reviews.MAX_REVIEWER + 1), "", ReviewStatus.CONFIRMED),
        ("ana", "n" * (reviews.MAX_NOTE + 1), ReviewStatus.CONFIRMED),
        ("ana", "", ReviewStatus.UNREVIEWED),
    ],
)
def test_invalid_decisions_are_refused(
    tmp_path: Path, reviewer: str, note: str, status: ReviewStatus
) -> None:
    path = tmp_path / "r.sqlite"
    with pytest.raises(ValueError):
        reviews.record_decision(path, KEY, status, reviewer, note)
    assert reviews.latest(path).empty


def test_key_text_matches_missing_index_and_seat() -> None:
    assert FindingKey("H1", "J504", None, None).text() == "H1|J504|-|-"
    assert reviews.finding_key("H1", "O201", 12, 4) == "H1|O201|12|4"


def test_reviews_live_next_to_the_store() -> None:
    assert reviews.reviews_path_for(Path("/x/night.duckdb")) == Path("/x/night.reviews.sqlite")


def test_concurrent_reviewers_lose_nothing(tmp_path: Path) -> None:
    """Two officers (threads with their own connections) deciding at once."""
    path = tmp_path / "r.sqlite"
    reviews.record_decision(path, KEY, ReviewStatus.CONFIRMED, "seed", "")

    def decide(name: str) -> None:
        for i in range(20):
            key = FindingKey("H", "B101", i, None)
            reviews.record_decision(path, key, ReviewStatus.CONFIRMED, name, str(i))

    threads = [threading.Thread(target=decide, args=(n,)) for n in ("ana", "bo")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latest = reviews.latest(path)
    assert len(latest) == 21
    assert sorted(latest.loc[latest["finding_key"] != KEY.text(), "decisions"].unique()) == [2]
