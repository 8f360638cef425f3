"""The job's guard against writing over a tampered store (schemas/seals.py).

Before it writes anything, the job checks the chain head: the newest seal links
and matches its fields, the hands of its runs are still those sealed, the audit
layer is the one it sealed. Before it audits, it checks the texts of the hands it
is about to (re-)audit against their hashes and the seals of their runs, so no
edited text is ever audited silently. Either failing, the run fails (exit 2) and
the store is left as it is for ``openers verify`` to explain.
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


def check_queued(con: duckdb.DuckDBPyConnection) -> None:
    """Re-audit no edited text: the queued hands' texts against their hashes and seals."""
    queued = [str(r[0]) for r in con.execute("SELECT hand_id FROM ops_pending_hands").fetchall()]
    problems = check_raw(con, queued)
    if problems:
        raise StoreTampered("hands to audit do not match their seals: "
                            + "; ".join(str(p) for p in problems[:5])
                            + "; `openers verify` lists every difference")
