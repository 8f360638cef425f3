"""The job's guard against writing over a tampered store (schemas/seals.py).

Before it writes anything, the job checks the chain head: the newest seal links
and matches its fields, the hands of its runs are still those sealed, the audit
layer is the one it sealed. Before it audits, it checks the texts of the hands it
is about to (re-)audit against their hashes and the seals of their runs, so no
edited text is ever audited silently. Either failing, the run fails (exit 2) and
the store is left as it is for ``openers verify`` to explain.

The hands this run stored itself are not hashed again: the job held the store (its lock
and DuckDB's) from before it read them, and it computed their hashes from the bytes it
read. They are told apart by row id: :func:`stored_mark`, taken before the ingest, is the
highest row id of ``raw_hands`` then. A row stored before keeps that id or gets a lower
one (DuckDB renumbers rows only to close gaps left by deletes), so every hand stored before
the run is at or below the mark and is checked; a hand stored now may fall below it too
(after such a renumbering), and is then merely checked as well.
"""

from __future__ import annotations

import duckdb

from schemas.seals import check as check_seals
from schemas.seals import check_raw


class StoreTampered(RuntimeError):
    """The store no longer matches its newest seal: the job writes nothing more."""


def check_head(con: duckdb.DuckDBPyConnection) -> None:
    """Verify the chain head before writing anything, so no run seals over an edit."""
    problems = check_seals(con, head_only=True)
    if problems:
        shown = "; ".join(str(p) for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise StoreTampered(f"the store does not match its last seal: {shown}{more}; "
                            "`openers verify` lists every difference")


def stored_mark(con: duckdb.DuckDBPyConnection) -> int:
    """The highest row id of ``raw_hands`` (-1 for none): taken before the run stores any
    hand, it tells the hands stored before the run from those it stores."""
    rows = con.execute("SELECT coalesce(max(rowid), -1) FROM raw_hands").fetchall()
    return int(rows[0][0])


def check_queued(con: duckdb.DuckDBPyConnection, mark: int | None = None) -> None:
    """Re-audit no edited text: the queued hands' texts against their hashes and seals.

    With ``mark`` (:func:`stored_mark` before this run stored anything), the hands this
    run stored are left out (see the module docstring); a queued hand no longer in
    ``raw_hands`` is always checked (its run's seal then reports it missing)."""
    sql = "SELECT hand_id FROM ops_pending_hands"
    params: list[int] = []
    if mark is not None:
        sql += " EXCEPT SELECT hand_id FROM raw_hands WHERE rowid > ?"
        params = [mark]
    queued = [str(r[0]) for r in con.execute(sql, params).fetchall()]
    if not queued:  # a first night, or one that only added hands: nothing older to check
        return  # (check_raw of no ids would still scan every stored text: 0.4 s per 100k)
    problems = check_raw(con, queued)
    if problems:
        raise StoreTampered("hands to audit do not match their seals: "
                            + "; ".join(str(p) for p in problems[:5])
                            + "; `openers verify` lists every difference")
