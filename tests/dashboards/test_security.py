"""SQL injection through every text input: nothing changes, nothing leaks."""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import duckdb
import pytest

from dashboards import analytics, browser, queries, reviews
from tests.dashboards.conftest import decide, open_page, sql

# analytics and browser register their queries on import.
assert analytics and browser

PAYLOADS = (
    "' OR '1'='1",
    "x'; DROP TABLE stg_hands; --",
    "') UNION SELECT raw_text, raw_text, raw_text FROM raw_hands --",
    "%",
    "%_%' --",
    '"; DELETE FROM audit_findings; --',
    "$player",
)


def _fingerprint(store: Path) -> tuple[str, list[tuple[object, ...]]]:
    digest = hashlib.sha256(store.read_bytes()).hexdigest()
    tables = [
        t for (t,) in sql(store, "SELECT table_name FROM duckdb_tables() ORDER BY table_name")
    ]
    counts = [(t, *sql(store, f'SELECT count(*) FROM "{t}"')[0]) for t in tables]
    return digest, counts


@pytest.mark.usefixtures("app_env")
@pytest.mark.parametrize("payload", PAYLOADS)
def test_text_inputs_of_every_page(store: Path, reviews_file: Path, payload: str) -> None:
    before = _fingerprint(store)

    at = open_page("findings")
    at.text_input(key="f_player").input(payload).run()
    assert not at.exception
    assert "**0 findings** match" in "\n".join(m.value for m in at.markdown)

    at = open_page("hand", {"hand_id": payload})
    assert not at.exception
    assert any("No hand" in w.value for w in at.warning)
    assert not at.get("html") or all('class="op-raw"' not in h.proto.body for h in at.get("html"))

    at = open_page("players")
    at.text_input(key="p_search").input(payload).run()
    assert not at.exception
    assert any("No player id contains" in i.value for i in at.info)

    at = open_page("data_quality")
    at.text_input(key="q_text").input(payload).run()
    assert not at.exception
    assert any(c.value.startswith("0 items match") for c in at.caption)

    # The case form stores the note as data, verbatim.
    at = open_page("findings")
    decide(at, "queue", "confirmed", payload)
    assert not at.exception
    latest = reviews.latest(reviews_file)
    assert latest["note"].tolist() == [payload]

    assert _fingerprint(store) == before


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_query_binds_its_text_parameters(store: Path, tmp_path: Path, payload: str) -> None:
    """Each registered query with every text parameter set to the payload finds nothing."""
    con = duckdb.connect(str(store), read_only=True)
    ctx = queries.Context(con, tmp_path / "none.sqlite")
    checked = 0
    try:
        for name, query in queries.QUERIES.items():
            params = inspect.signature(query.fn).parameters
            text = [p for p in params.values() if p.annotation in ("str", str)]
            if not text:
                continue
            values = {p.name: payload for p in text}
            for p in params.values():
                if p.name in values or p.name == "ctx" or p.default is not inspect.Parameter.empty:
                    continue
                values[p.name] = sql(store, "SELECT max(day) FROM mart_hands")[0][0]
            try:
                frame = query(ctx, **values)
            except KeyError:
                # The Browse page's queries refuse a relation name not in the catalogue.
                assert "relation" in values, name
                checked += 1
                continue
            checked += 1
            if name in ("dealer_codes", "dealer_trend"):
                # Room rows are listed for any dealer; an unknown dealer has none of its own.
                assert frame.filter(like="findings").iloc[:, 0].fillna(0).eq(0).all()
                continue
            assert frame.empty, name
    finally:
        con.close()
    assert checked >= 8
