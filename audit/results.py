"""Write audit results to the store's audit layer, replacing the rows of hands audited again.

A hand's ``audit_hands`` row, its findings (each with its finding key) and its
unverifiable checks are deleted and written again in one transaction per
``WRITE_HANDS`` hands, so an audit redone after a crash never doubles a row; a write
that names a hand twice is refused (``audit_hands`` keeps one row per hand this way,
not by a key: see ``schemas/ddl/30_audit.sql``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.engine import AuditResult
from audit.profiles import Profile
from schemas.findings import finding_key
from schemas.store import transaction

__all__ = ["WRITE_HANDS", "ResultRows", "batch_rows", "result_rows", "write_results",
           "write_rows"]

#: Hands per write transaction: each commit costs about 0.1 s (WAL sync) and more on a busy
#: disk, whatever its size; the results of 50,000 hands are a few megabytes.
WRITE_HANDS = 50000

#: Why a stored hand could not be audited at all (the reason of its unverifiable checks).
UNAUDITED = "the stored hand cannot be audited"


@dataclass(frozen=True, slots=True)
class ResultRows:
    """The audit rows of some hands, as ``audit_hands``, ``audit_findings`` and
    ``audit_unverifiable`` keep them (``audit_hands`` without ``audited_at``, set when
    they are written), and what a summary counts of them.

    A worker process makes them from its results: Arrow tables cross to the main process
    as a few buffers, where the result objects cost it more to unpickle than the worker
    spent making them."""

    hands: pa.Table
    findings: pa.Table
    unverifiable: pa.Table
    #: Rules that crashed on a hand (also in ``unverifiable``).
    errors: int
    #: Hands that could not be audited at all (:data:`UNAUDITED`).
    unaudited: int


def result_rows(results: Sequence[AuditResult], profile: str,
                hands: pa.Table | None = None) -> ResultRows:
    """The rows of ``results``, audited under the house profile named ``profile``.

    ``hands``: the ``audit_hands`` rows (``hand_id``, ``table_id``, ``n_findings``,
    ``n_unverifiable``) when they are not one a result: a batch of stored hands gives
    every hand's row, and a result only for the hands with anything to report (a result
    object a clean hand would cost more than its audit)."""
    if hands is None:
        hands = pa.table({
            "hand_id": pa.array([r.hand_id for r in results], pa.string()),
            "table_id": pa.array([r.table_id for r in results], pa.string()),
            "n_findings": pa.array([len(r.findings) for r in results], pa.int32()),
            "n_unverifiable": pa.array([len(r.unverifiable) for r in results], pa.int32()),
        })
    hands = hands.add_column(2, "profile", pa.array([profile] * hands.num_rows, pa.string()))
    fs = [f for r in results for f in r.findings]
    findings = pa.table({
        "hand_id": pa.array([f.hand_id for f in fs], pa.string()),
        "table_id": pa.array([f.table_id for f in fs], pa.string()),
        "code": pa.array([f.code for f in fs], pa.string()),
        "name": pa.array([f.name for f in fs], pa.string()),
        "severity": pa.array([f.severity.value for f in fs], pa.string()),
        "line": pa.array([f.line for f in fs], pa.int32()),
        "action_index": pa.array([f.action_index for f in fs], pa.int32()),
        "seat": pa.array([f.seat for f in fs], pa.int32()),
        "message": pa.array([f.message for f in fs], pa.string()),
        "evidence": pa.array([json.dumps(f.evidence, sort_keys=True) for f in fs], pa.string()),
        "source": pa.array([f.source for f in fs], pa.string()),
        "profile": pa.array([profile] * len(fs), pa.string()),
        "lines": pa.array([f.lines for f in fs], pa.list_(pa.int32())),
        "finding_key": pa.array([finding_key(f.hand_id, f.code, f.action_index, f.seat)
                                 for f in fs], pa.string()),
    })
    us = [u for r in results for u in r.unverifiable]
    unverifiable = pa.table({
        "hand_id": pa.array([u.hand_id for u in us], pa.string()),
        "table_id": pa.array([u.table_id for u in us], pa.string()),
        "code": pa.array([u.code for u in us], pa.string()),
        "seat": pa.array([u.seat for u in us], pa.int32()),
        "reason": pa.array([u.reason for u in us], pa.string()),
        "profile": pa.array([profile] * len(us), pa.string()),
    })
    return ResultRows(
        hands, findings, unverifiable, errors=sum(len(r.errors) for r in results),
        unaudited=sum(1 for r in results if r.errors and any(
            e.reason.startswith(UNAUDITED) for e in r.errors)))


def batch_rows(staged: pa.Table, found: dict[int, AuditResult], early: list[AuditResult],
               profile: str) -> ResultRows:
    """The audit rows of a batch of stored hands (``staged``: ``hand_id``, ``table_id``,
    ``context``, by hand row): after ``early`` (its hands that could not be audited), a
    row each hand asked for (not its context), in order, and the findings and unverifiable
    checks of ``found`` (by hand row: the hands with anything to report)."""
    context = np.asarray(staged.column("context").to_numpy(zero_copy_only=False),
                         dtype=np.bool_)
    counts = np.zeros((2, len(context)), dtype=np.int32)
    for hand, result in found.items():
        counts[:, hand] = len(result.findings), len(result.unverifiable)
    asked = np.flatnonzero(~context)
    mine = staged.take(pa.array(asked))
    hands = pa.table({
        name: pa.concat_arrays([pa.array([getattr(r, name) for r in early], pa.string()),
                                mine.column(name).combine_chunks().cast(pa.string())])
        for name in ("hand_id", "table_id")})
    for k, name in enumerate(("n_findings", "n_unverifiable")):
        hands = hands.append_column(name, pa.array(np.concatenate([
            np.array([len(getattr(r, name[2:])) for r in early], dtype=np.int32),
            counts[k, asked]])))
    reported = [found[h] for h in sorted(found) if not context[h]]
    return result_rows(early + reported, profile, hands)


def write_results(
    con: duckdb.DuckDBPyConnection, results: Iterable[AuditResult], profile: Profile
) -> None:
    """Replace the audit rows of these hands, one transaction per batch of hands."""
    results = list(results)
    for i in range(0, len(results), WRITE_HANDS):
        write_rows(con, [result_rows(results[i : i + WRITE_HANDS], profile.name)])


def write_rows(con: duckdb.DuckDBPyConnection, parts: Sequence[ResultRows]) -> None:
    """Replace the audit rows of the hands of ``parts`` in one transaction."""
    if not parts:
        return
    hands = pa.concat_tables([p.hands for p in parts])
    # audit_hands has no key (schemas/ddl/30_audit.sql): one row per hand is kept here.
    if pc.count_distinct(hands.column("hand_id")).as_py() != hands.num_rows:
        raise ValueError("an audit write names a hand twice")
    now = datetime.now(UTC)
    hands = hands.add_column(3, "audited_at",
                             pa.array([now] * hands.num_rows, pa.timestamp("us", tz="UTC")))
    con.register("_audit_hands", hands)
    con.register("_audit_findings", pa.concat_tables([p.findings for p in parts]))
    con.register("_audit_unverifiable", pa.concat_tables([p.unverifiable for p in parts]))
    try:
        with transaction(con):
            for table in ("audit_findings", "audit_unverifiable", "audit_hands"):
                con.execute(f"DELETE FROM {table} WHERE hand_id IN "
                            "(SELECT hand_id FROM _audit_hands)")
            con.execute("INSERT INTO audit_hands SELECT * FROM _audit_hands")
            con.execute("INSERT INTO audit_findings BY NAME SELECT * FROM _audit_findings")
            con.execute("INSERT INTO audit_unverifiable SELECT * FROM _audit_unverifiable")
    finally:
        for name in ("_audit_hands", "_audit_findings", "_audit_unverifiable"):
            con.unregister(name)
