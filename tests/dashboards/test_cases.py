"""Case management on the Findings page, through Streamlit's AppTest on the generated store."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboards import reviews
from schemas.reviews import DISMISS_REASONS, FindingKey
from tests.dashboards.conftest import decide, open_page, save_button, sql, write_house


@pytest.fixture
def house(app_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A house file naming the reviewers ana and bo."""
    path = write_house(tmp_path)
    monkeypatch.setenv("OPENERS_HOUSE", str(path))
    return path


def _key(text: str) -> FindingKey:
    hand_id, code, index, seat = text.split("|")
    return FindingKey(hand_id, code, None if index == "-" else int(index),
                      None if seat == "-" else int(seat))  # fmt: skip


def _param(at: AppTest, name: str) -> list[str]:
    value = at.query_params[name]
    return [value] if isinstance(value, str) else list(value)


def _labels(at: AppTest) -> list[str]:
    return list(at.selectbox(key="f_case").options)


@pytest.mark.usefixtures("house")
def test_a_form_never_carries_a_value_to_another_finding(reviews_file: Path) -> None:
    """Issue 12: after a save and a new pick, the old reviewer, note and decision stayed."""
    at = open_page("findings")
    first, second = at.dataframe[0].value["finding_key"].head(2)
    at.selectbox(key="actor").set_value("ana").run()
    assert at.selectbox(key="f_case").value == first
    at.radio(key=f"queue-{first}-decision").set_value("dismissed")
    at.selectbox(key=f"queue-{first}-reason").set_value(DISMISS_REASONS[1])
    at.text_area(key=f"queue-{first}-note").input("note for the first finding")
    save_button(at).click().run()
    assert not at.exception
    # The new state shows at once beside the picker, whose label names the finding only
    # (a browser keeps a selected option's old label: the state is never in it).
    assert "case **dismissed**" in "\n".join(m.value for m in at.markdown)
    assert not any(label.endswith(("open", "dismissed")) for label in _labels(at))
    at.selectbox(key="f_case").set_value(second).run()
    # The second finding's form starts empty: no decision, reason or note carried over.
    assert at.radio(key=f"queue-{second}-decision").value is None
    assert at.selectbox(key=f"queue-{second}-reason").value is None
    assert at.text_area(key=f"queue-{second}-note").value == ""
    assert not [w for w in at.radio if str(w.key).startswith(f"queue-{first}")]
    # One click on Save files nothing under the second finding.
    save_button(at).click().run()
    assert any("nothing to record" in e.value for e in at.error)
    assert reviews.history(reviews_file, _key(second)).empty
    assert reviews.history(reviews_file, _key(first))["note"].tolist() == [
        "note for the first finding"
    ]
    # Back on the first finding, its form is empty too (saved forms are cleared).
    at.selectbox(key="f_case").set_value(first).run()
    assert at.text_area(key=f"queue-{first}-note").value == ""


@pytest.mark.usefixtures("house")
def test_no_decision_and_no_reviewer_are_preselected(reviews_file: Path) -> None:
    at = open_page("findings")
    key = at.selectbox(key="f_case").value
    assert at.selectbox(key="actor").value is None
    assert at.selectbox(key="actor").options == ["ana", "bo"]
    assert at.radio(key=f"queue-{key}-decision").value is None
    # Not choosing who you are refuses the save.
    at.radio(key=f"queue-{key}-decision").set_value("confirmed")
    save_button(at).click().run()
    assert any("Choose who you are" in e.value for e in at.error)
    assert reviews.latest(reviews_file).empty
    # There is no free-text reviewer field anywhere.
    assert not [t for t in at.text_input if "review" in str(t.label).lower()]


@pytest.mark.usefixtures("house")
def test_a_case_moves_through_its_states(reviews_file: Path) -> None:
    at = open_page("findings")
    key = str(at.selectbox(key="f_case").value)
    steps = [("escalated", "ana"), ("confirmed", "bo"), ("resolved", "bo"), ("open", "ana")]
    for decision, actor in steps:
        offered = at.radio(key=f"queue-{key}-decision").options
        assert decision in offered
        decide(at, "queue", decision, f"{decision} by {actor}", actor=actor)
        assert not at.exception
    history = reviews.history(reviews_file, _key(key))
    assert history[["previous_status", "status", "actor"]].values.tolist() == [
        ["open", "escalated", "ana"],
        ["escalated", "confirmed", "bo"],
        ["confirmed", "resolved", "bo"],
        ["resolved", "open", "ana"],
    ]
    # An open case offers only the decisions an open case allows.
    assert at.radio(key=f"queue-{key}-decision").options == ["confirmed", "dismissed", "escalated"]


@pytest.mark.usefixtures("house")
def test_next_open_case_skips_decided_ones() -> None:
    at = open_page("findings")
    keys = at.dataframe[0].value["finding_key"].tolist()
    decide(at, "queue", "confirmed", "first")
    at.selectbox(key="f_case").set_value(keys[1]).run()
    decide(at, "queue", "confirmed", "second")
    at.selectbox(key="f_case").set_value(keys[0]).run()
    next(b for b in at.button if b.label == "Next open case").click().run()
    assert at.selectbox(key="f_case").value == keys[2]


@pytest.mark.usefixtures("house")
def test_bulk_assignment_and_the_queue_per_assignee(store: Path, reviews_file: Path) -> None:
    (table,) = sql(store, "SELECT table_id FROM findings GROUP BY ALL ORDER BY count(*) LIMIT 1")[0]
    (count,) = sql(store, "SELECT count(*) FROM findings WHERE table_id = ?", [table])[0]
    at = open_page("findings")
    at.selectbox(key="actor").set_value("ana")
    at.multiselect(key="f_tables").set_value([table]).run()
    at.selectbox(key="bulk-assignee").set_value("bo")
    at.radio(key="bulk-decision").set_value("escalated")
    next(b for b in at.button if b.label == "Apply").click().run()
    assert any("Tick the box" in e.value for e in at.error)
    assert reviews.latest(reviews_file).empty
    at.selectbox(key="bulk-assignee").set_value("bo")
    at.radio(key="bulk-decision").set_value("escalated")
    at.checkbox(key="bulk-confirm").check()
    next(b for b in at.button if b.label == "Apply").click().run()
    assert any(f"Applied to {count:,} cases" in s.value for s in at.success)
    latest = reviews.latest(reviews_file)
    assert len(latest) == count
    assert set(latest["assignee"]) == {"bo"} and set(latest["review_status"]) == {"escalated"}
    # Bo's queue: everything open or escalated assigned to bo, i.e. exactly those.
    at = open_page("findings")
    at.selectbox(key="actor").set_value("bo").run()
    next(b for b in at.button if b.label == "My queue").click().run()
    queue = at.dataframe[0].value
    assert sorted(queue["finding_key"]) == sorted(latest["finding_key"])
    assert _param(at, "assignee") == ["bo"]


@pytest.mark.usefixtures("house")
def test_filters_live_in_the_url(store: Path) -> None:
    (table,) = sql(store, "SELECT table_id FROM findings GROUP BY ALL ORDER BY table_id LIMIT 1")[0]
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "dashboards" / "app.py"),
                           default_timeout=60)  # fmt: skip
    at.run()
    at.switch_page("views/findings.py")
    at.query_params["severity"] = ["critical", "major"]
    at.query_params["table"] = [table, "NO-SUCH-TABLE"]
    at.query_params["sort"] = "time"
    at.run()
    assert not at.exception
    assert at.multiselect(key="f_severities").value == ["critical", "major"]
    assert at.multiselect(key="f_tables").value == [table]  # the unknown table is dropped
    assert at.selectbox(key="f_sort").value == "time"
    (expected,) = sql(store, "SELECT count(*) FROM findings WHERE table_id = ?"
                             " AND severity IN ('critical', 'major')", [table])[0]  # fmt: skip
    assert f"**{expected:,} findings** match" in "\n".join(m.value for m in at.markdown)
    # Changing a filter rewrites the address.
    at.multiselect(key="f_severities").set_value(["minor"]).run()
    assert _param(at, "severity") == ["minor"]
    assert _param(at, "table") == [table]
    assert at.query_params["case"]
