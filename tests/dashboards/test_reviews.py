"""The case file: append-only events keyed by the finding's identity, chained by hash."""

from __future__ import annotations

import sqlite3
import threading
from datetime import date
from pathlib import Path

import pytest

from dashboards import reviews
from schemas.chain import GENESIS
from schemas.reviews import (
    DISMISS_REASONS,
    MAX_ACTOR,
    MAX_NOTE,
    CaseStatus,
    Change,
    FindingKey,
    ReviewFileTampered,
    chain_head,
    record,
    verify_chain,
)

KEY = FindingKey("BCY-T01-000001", "B101", 7, 3)
CONFIRM = Change(status=CaseStatus.CONFIRMED, note="raise over cap")
DISMISS = Change(status=CaseStatus.DISMISSED, reason=DISMISS_REASONS[0], note="log error")


def test_events_are_appended_with_previous_state(tmp_path: Path) -> None:
    path = tmp_path / "openers.reviews.sqlite"
    assert record(path, [KEY], Change(status=CaseStatus.ESCALATED), "ana") == [CaseStatus.OPEN]
    assert record(path, [KEY], DISMISS, " bo ") == [CaseStatus.ESCALATED]
    history = reviews.history(path, KEY)
    assert history[["actor", "previous_status", "status", "reason"]].values.tolist() == [
        ["ana", "open", "escalated", None],
        ["bo", "escalated", "dismissed", DISMISS_REASONS[0]],
    ]
    assert all(history["at"].str.endswith("+00:00"))
    latest = reviews.latest(path)
    assert latest[["finding_key", "review_status", "reviewer", "decisions"]].values.tolist() == [
        [KEY.text(), "dismissed", "bo", 2]
    ]


def test_assignment_and_due_date_keep_the_state(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    record(path, [KEY], CONFIRM, "ana")
    record(path, [KEY], Change(assignee="bo", due_date=date(2026, 12, 3)), "ana")
    record(path, [KEY], Change(note="seen on video"), "bo")
    (row,) = reviews.latest(path).to_dict("records")
    assert (row["review_status"], row["assignee"], row["due_date"]) == (
        "confirmed", "bo", "2026-12-03"
    )  # fmt: skip
    record(path, [KEY], Change(status=CaseStatus.RESOLVED, assignee=""), "bo")
    (row,) = reviews.latest(path).to_dict("records")
    assert (row["review_status"], row["assignee"]) == ("resolved", None)


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ((), CaseStatus.RESOLVED),  # an open case is decided before it is resolved
        ((DISMISS,), CaseStatus.CONFIRMED),  # a dismissed case is reopened first
        ((), CaseStatus.OPEN),
    ],
)
def test_transitions_the_state_does_not_allow_are_refused(
    tmp_path: Path, start: tuple[Change, ...], target: CaseStatus
) -> None:
    path = tmp_path / "r.sqlite"
    for change in start:
        record(path, [KEY], change, "ana")
    with pytest.raises(ValueError, match="cannot become"):
        record(path, [KEY], Change(status=target), "ana")
    assert len(reviews.history(path, KEY)) == len(start)


def test_a_bulk_change_is_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    other = FindingKey("H2", "O201", None, None)
    record(path, [other], CONFIRM, "ana")
    # KEY is open (may be confirmed), `other` is confirmed already: the batch is refused whole.
    with pytest.raises(ValueError):
        record(path, [KEY, other], Change(status=CaseStatus.DISMISSED,
                                          reason=DISMISS_REASONS[1]), "ana")  # fmt: skip
    assert reviews.history(path, KEY).empty
    record(path, [KEY, other], Change(assignee="bo"), "ana")
    assert reviews.latest(path)["assignee"].tolist() == ["bo", "bo"]


@pytest.mark.parametrize(
    ("actor", "change", "actors"),
    [
        ("   ", CONFIRM, ()),
        ("x" * (MAX_ACTOR + 1), CONFIRM, ()),
        ("ana", Change(status=CaseStatus.CONFIRMED, note="n" * (MAX_NOTE + 1)), ()),
        ("ana", Change(status=CaseStatus.DISMISSED), ()),  # no reason
        ("ana", Change(status=CaseStatus.DISMISSED, reason="because"), ()),  # not on the list
        ("ana", Change(), ()),  # nothing asked
        ("eve", CONFIRM, ("ana", "bo")),  # not on the house list
        ("ana", Change(assignee="eve"), ("ana", "bo")),
    ],
)
def test_invalid_changes_are_refused(
    tmp_path: Path, actor: str, change: Change, actors: tuple[str, ...]
) -> None:
    path = tmp_path / "r.sqlite"
    with pytest.raises(ValueError):
        record(path, [KEY], change, actor, actors=actors)
    assert reviews.latest(path).empty


def test_key_text_matches_missing_index_and_seat() -> None:
    assert FindingKey("H1", "J504", None, None).text() == "H1|J504|-|-"
    assert FindingKey("H1", "O201", 12, 4).text() == "H1|O201|12|4"


def test_reviews_live_next_to_the_store() -> None:
    assert reviews.reviews_path_for(Path("/x/night.duckdb")) == Path("/x/night.reviews.sqlite")


def test_the_readme_names_the_review_file_as_it_is() -> None:
    """Issue 12: the README named `<store>.reviews.sqlite`; the file is the stem's."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    name = reviews.reviews_path_for(Path("openers.duckdb")).name
    assert f"`{name}`" in readme
    assert "<store>.reviews.sqlite" not in readme


def test_concurrent_reviewers_lose_nothing(tmp_path: Path) -> None:
    """Two officers (threads with their own connections) deciding at once."""
    path = tmp_path / "r.sqlite"
    record(path, [KEY], CONFIRM, "seed")

    def decide(name: str) -> None:
        for i in range(20):
            record(path, [FindingKey("H", "B101", i, None)], Change(note=str(i)), name)

    threads = [threading.Thread(target=decide, args=(n,)) for n in ("ana", "bo")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latest = reviews.latest(path)
    assert len(latest) == 21
    assert sorted(latest.loc[latest["finding_key"] != KEY.text(), "decisions"].unique()) == [2]
    assert verify_chain(path) == []
    assert chain_head(path)[0] == 41


# --------------------------------------------------------------------------- tampering
def _filled(tmp_path: Path) -> Path:
    path = tmp_path / "r.sqlite"
    record(path, [KEY], CONFIRM, "ana")
    record(path, [KEY], Change(status=CaseStatus.RESOLVED), "bo")
    record(path, [FindingKey("H2", "O201", 3, 1)], DISMISS, "ana")
    assert verify_chain(path) == []
    return path


def test_update_delete_and_insert_or_replace_are_refused(tmp_path: Path) -> None:
    """Issue 15 obs 11: INSERT OR REPLACE bypassed the append-only triggers."""
    path = _filled(tmp_path)
    con = sqlite3.connect(path)
    replace = (
        "INSERT OR REPLACE INTO case_events (event_id, finding_key, hand_id, code, status,"
        " previous_status, actor, note, at, prev_hash, row_hash)"
        " VALUES (1, ?, 'H', 'B101', 'dismissed', 'open', 'eve', '', '2026', ?, 'x')"
    )
    for statement, params in (
        ("UPDATE case_events SET status = 'dismissed'", ()),
        ("DELETE FROM case_events", ()),
        (replace, (KEY.text(), GENESIS)),
        # The next id but not chained to the last row: refused too.
        (replace.replace("(1,", "(4,"), (KEY.text(), GENESIS)),
    ):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            con.execute(statement, params)
    con.close()
    assert reviews.latest(path)["review_status"].tolist() == ["resolved", "dismissed"]
    assert verify_chain(path) == []


def test_a_dropped_trigger_is_reported_and_never_recreated(tmp_path: Path) -> None:
    """Issue 15 obs 11: the app silently re-created a dropped trigger."""
    path = _filled(tmp_path)
    con = sqlite3.connect(path)
    con.execute("DROP TRIGGER case_events_no_update")
    con.execute("UPDATE case_events SET note = 'nothing to see', actor = 'eve' WHERE event_id = 2")
    con.commit()
    con.close()
    with pytest.raises(ReviewFileTampered, match="case_events_no_update is missing"):
        record(path, [KEY], Change(note="later"), "ana")
    con = sqlite3.connect(path)
    names = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    con.close()
    assert "case_events_no_update" not in names  # not silently repaired
    assert [str(b) for b in verify_chain(path)] == [
        "review file: trigger case_events_no_update is missing",
        "event 2: row_hash does not match its fields (edited)",
    ]


def test_the_chain_names_every_break(tmp_path: Path) -> None:
    path = _filled(tmp_path)
    record(path, [KEY], Change(note="four"), "ana")
    record(path, [KEY], Change(note="five"), "ana")
    con = sqlite3.connect(path)
    for name in ("case_events_no_update", "case_events_no_delete"):
        con.execute(f"DROP TRIGGER {name}")
    con.execute("UPDATE case_events SET status = 'dismissed' WHERE event_id = 1")
    con.execute("DELETE FROM case_events WHERE event_id = 3")
    con.commit()
    con.close()
    problems = [(b.event_id, b.problem) for b in verify_chain(path)]
    assert (1, "row_hash does not match its fields (edited)") in problems
    assert (4, "expected event 3 here: events are missing") in problems
    assert (4, "prev_hash does not match the event before") in problems
    assert not any(event == 2 or event == 5 for event, _ in problems)


def test_a_round_one_review_file_is_carried_over(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE reviews (review_id INTEGER PRIMARY KEY AUTOINCREMENT, finding_key TEXT,"
        " hand_id TEXT, code TEXT, action_index INTEGER, seat INTEGER, status TEXT,"
        " previous_status TEXT, reviewer TEXT, note TEXT, decided_at TEXT)"
    )
    con.execute(
        "INSERT INTO reviews VALUES (NULL, ?, 'BCY-T01-000001', 'B101', 7, 3, 'confirmed',"
        " 'unreviewed', 'ana', 'old note', '2026-11-29T06:00:00+00:00')",
        (KEY.text(),),
    )
    con.commit()
    con.close()
    record(path, [KEY], Change(status=CaseStatus.RESOLVED), "bo")
    history = reviews.history(path, KEY)
    assert history[["actor", "previous_status", "status", "note"]].values.tolist() == [
        ["ana", "open", "confirmed", "old note"],
        ["bo", "confirmed", "resolved", ""],
    ]
    assert verify_chain(path) == []
