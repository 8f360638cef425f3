"""Hand ids as ranges (audit.facts.id_ranges): disjoint, every id in one, a range per prefix."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from audit.facts.id_ranges import id_ranges, in_ranges


def test_one_range_per_table_prefix_in_order() -> None:
    ids = pa.array(["BCY-T02-000010", "BCY-T01-000003", "BCY-T01-000001", "BCY-T10-000001",
                    None, "BCY-T01-000003"])
    assert id_ranges(ids) == [("BCY-T01-000001", "BCY-T01-000003"),
                              ("BCY-T02-000010", "BCY-T02-000010"),
                              ("BCY-T10-000001", "BCY-T10-000001")]


def test_runs_are_disjoint_cover_every_id_and_are_capped() -> None:
    # 'A-1x5' (prefix 'A-1x') sorts between: runs, not one range per prefix,
    # or A-1x5 would be in two ranges
    ids = ["A-99", "A-1x5", "B-1", "A-12"]
    assert id_ranges(pa.array(ids)) == [("A-12", "A-12"), ("A-1x5", "A-1x5"),
                                        ("A-99", "A-99"), ("B-1", "B-1")]
    capped = id_ranges(pa.array([f"T{i:02d}-1" for i in range(10)]), most=3)
    assert capped == [("T00-1", "T03-1"), ("T04-1", "T07-1"), ("T08-1", "T09-1")]
    assert id_ranges(pa.array([], pa.string())) == [("", "")]


def test_the_ranges_keep_every_asked_row() -> None:
    con = duckdb.connect()
    stored = [f"{t}-{n:03d}" for t in ("A", "A-1x", "B", "C") for n in range(40)]
    con.register("rows", pa.table({"hand_id": stored * 3, "k": range(3 * len(stored))}))
    con.execute("CREATE TABLE lines AS SELECT * FROM rows")
    asked = pa.array([i for i in stored if i.endswith(("7", "8")) and not i.startswith("B")])
    con.register("asked", pa.table({"hand_id": asked}))
    where, params = in_ranges("l.hand_id", id_ranges(asked))
    got = sorted(r[0] for r in con.execute(
        f"SELECT l.k FROM asked a JOIN lines l USING (hand_id) WHERE {where}", params).fetchall())
    want = sorted(r[0] for r in con.execute(
        "SELECT l.k FROM asked a JOIN lines l USING (hand_id)").fetchall())
    assert got == want and len(got) == 3 * len(asked)
