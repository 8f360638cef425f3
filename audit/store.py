"""Audit the hands in the store and write the audit layer (``schemas/ddl/30_audit.sql``).

Hands are read back from ``raw_hands`` (their text exactly as read, with its first
line number, so findings cite the source lines) and audited on the process pool,
clean hands certified by the compiled fast path (:mod:`audit.fast.stored`: the same
results as the reference engine alone); the J rules see every stored deal of the
tables involved. Results are written in batches, one transaction each: the batch's
hands lose their earlier rows in ``audit_findings``, ``audit_unverifiable`` and
``audit_hands`` and get the new ones, so a re-audit never doubles them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from audit.batch import default_workers, no_cyclic_gc, process_pool
from audit.engine import AuditResult, audit_hand, audit_sequences, merge
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.replay import Replay
from ingest.errors import HandParseError
from ingest.parser import parse_hand
from schemas.records import HandRecord
from schemas.store import transaction

#: Hands per audit batch (one worker task).
BATCH_HANDS = 2000
#: Hands per write transaction: each commit costs about 0.1 s (WAL sync), whatever its
#: size, which at 2,000 hands took longer than auditing them on the fast path.
WRITE_HANDS = 10000

#: hand_id, raw_text, first_line, form, table_id, and whether the hand is only context
#: (a neighbouring deal the J rules compare with, not itself re-audited).
StoredHand = tuple[str, str, int, str, str | None, bool]


@dataclass(frozen=True, slots=True)
class StoreSummary:
    """What ``audit_store`` did."""

    hands: int
    findings: int
    unverifiable: int
    #: Rules that crashed on a hand (counted in ``unverifiable`` too, reason "internal error").
    errors: int = 0


def _record(item: StoredHand) -> HandRecord | None:
    _, text, first_line, form, _, _ = item
    try:
        if form == "jsonl":
            return HandRecord.model_validate_json(text)
        return parse_hand(text, first_line=first_line)
    except (HandParseError, ValueError):
        return None  # stored hands were read once already; a changed parser may disagree


def audit_stored(items: Sequence[StoredHand], profile: Profile, fast: bool = True
                 ) -> list[AuditResult]:
    """Parse and check stored hands, J rules included (runs in a worker).

    ``items`` are whole runs of a table's deals in time order; context items are read
    only for the J rules of the deal after them. ``fast`` certifies clean hands with
    the compiled path (:mod:`audit.fast.stored`); the results are the same.
    """
    if fast:
        from audit.fast.stored import fast_audit_stored  # numba loads only when used

        with no_cyclic_gc():
            return fast_audit_stored(items, profile, _record, reference_audit_stored)
    return reference_audit_stored(items, profile)


def reference_audit_stored(items: Sequence[StoredHand], profile: Profile
                           ) -> list[AuditResult]:
    """:func:`audit_stored` on the reference engine alone."""
    rules = hand_rules(profile)
    results: list[AuditResult] = []
    records: list[HandRecord] = []
    replays: dict[str, Replay] = {}
    with no_cyclic_gc():
        for item in items:
            record = _record(item)
            if record is None:
                continue
            records.append(record)
            if not item[5]:
                results.append(audit_hand(record, profile, rules, replays))
        if sequence_rules(profile):
            mine = {r.hand_id for r in results}
            sequences = audit_sequences(records, profile, replays=replays)
            merge(results, (r for r in sequences if r.hand_id in mine))
    return results


def _stored(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str] | None) -> list[StoredHand]:
    """The hands to audit, and the other deals of their tables as context, by table and time."""
    sql = ("SELECT r.hand_id, r.raw_text, r.first_line, r.form, h.table_id, {context}"
           " FROM raw_hands r LEFT JOIN stg_hands h USING (hand_id) {where}"
           " ORDER BY h.table_id, h.time, r.hand_id")
    if hand_ids is None:
        return con.execute(sql.format(context="false", where="")).fetchall()
    con.register("_audit_ids", pa.table({"hand_id": pa.array(list(hand_ids), pa.string())}))
    try:
        return con.execute(sql.format(
            context="r.hand_id NOT IN (SELECT hand_id FROM _audit_ids)",
            where="WHERE r.hand_id IN (SELECT hand_id FROM _audit_ids) OR h.table_id IN"
                  " (SELECT s.table_id FROM stg_hands s JOIN _audit_ids i USING (hand_id))",
        )).fetchall()
    finally:
        con.unregister("_audit_ids")


def _batches(items: Sequence[StoredHand], size: int) -> Iterator[list[StoredHand]]:
    """Runs of ``size`` hands; a run that starts inside a table gets the deal before it."""
    for i in range(0, len(items), size):
        part = list(items[i : i + size])
        if i and items[i - 1][4] is not None and items[i - 1][4] == part[0][4]:
            before = items[i - 1]
            part.insert(0, (*before[:5], True))
        yield part


def _pool(workers: int, fast: bool) -> ProcessPoolExecutor:
    if not fast:
        return process_pool(workers)
    from audit.fast.worker import warm_pool

    return warm_pool(workers)


def _run(items: Sequence[StoredHand], profile: Profile, workers: int, fast: bool
         ) -> Iterator[list[AuditResult]]:
    parts = list(_batches(items, BATCH_HANDS))
    if workers <= 1 or len(parts) <= 1:
        yield from (audit_stored(p, profile, fast) for p in parts)
        return
    with _pool(workers, fast) as pool:
        yield from pool.map(audit_stored, parts, [profile] * len(parts), [fast] * len(parts))


def audit_store(
    con: duckdb.DuckDBPyConnection, profile: Profile, hand_ids: Sequence[str] | None = None,
    *, workers: int | None = None, fast: bool = True,
    progress: Callable[[int], None] | None = None,
) -> StoreSummary:
    """Audit the stored hands (all, or ``hand_ids``) and replace their audit rows.

    ``fast`` certifies clean hands on the compiled path; ``fast=False`` runs the
    reference engine on every hand (the same rows either way). ``progress(n)`` is
    called as each batch of ``n`` hands comes back from the pool.
    """
    if fast:
        from audit.fast.coverage import covers

        fast = covers(profile)  # a rule the certifiers do not cover: every hand to the engine
    items = _stored(con, hand_ids)
    results: list[AuditResult] = []
    for part in _run(items, profile, workers or default_workers(), fast):
        results.extend(part)
        if progress is not None:
            progress(len(part))
    write_results(con, results, profile)
    return StoreSummary(len(results), sum(len(r.findings) for r in results),
                        sum(len(r.unverifiable) for r in results),
                        sum(len(r.errors) for r in results))


def _frames(results: Sequence[AuditResult], profile: str, now: datetime
            ) -> tuple[pa.Table, pa.Table, pa.Table]:
    hands = pa.table({
        "hand_id": [r.hand_id for r in results], "table_id": [r.table_id for r in results],
        "profile": [profile] * len(results), "audited_at": [now] * len(results),
        "n_findings": pa.array([len(r.findings) for r in results], pa.int32()),
        "n_unverifiable": pa.array([len(r.unverifiable) for r in results], pa.int32()),
    })
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
    return hands, findings, unverifiable


def write_results(
    con: duckdb.DuckDBPyConnection, results: Iterable[AuditResult], profile: Profile
) -> None:
    """Replace the audit rows of these hands, one transaction per batch of hands."""
    results = list(results)
    now = datetime.now(UTC)
    for i in range(0, len(results), WRITE_HANDS):
        hands, findings, unverifiable = _frames(results[i : i + WRITE_HANDS], profile.name, now)
        con.register("_audit_hands", hands)
        con.register("_audit_findings", findings)
        con.register("_audit_unverifiable", unverifiable)
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
