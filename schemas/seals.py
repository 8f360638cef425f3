"""Seals: every writer of the store attests what it wrote, chained to the seal before.

Each nightly run, in the transaction that closes it, appends a seal
(``ops_seals``, ``schemas/ddl/75_seals.sql``) holding

- a digest over the ``(hand_id, sha256)`` of the hands its runs claimed (the raw
  text is write-once, so these digests hold for ever), and one over the keys of
  the quarantine rows they claimed;
- a digest per table of the audit layer as it then stood (``ops_seal_tables``:
  every finding and unverifiable check of the table); the audit layer is
  rewritten by later audits, so only the newest seal's tables are checked;
- the review file's chain head when the run closed (events, hash), when known;
- ``seal = sha256(previous seal + all of the above)``.

``openers audit`` seals too (kind ``audit``: no hands, a new audit layer). A direct
edit of the store (a raw text, with or without its sha256 recomputed, a deleted
hand, quarantine row or finding) then no longer matches its seal, and an edit of
a seal breaks the chain after it. Removing the newest seals leaves finished runs
that no seal covers. Only recomputing every digest and seal would hide an edit:
compare the head with one kept elsewhere (the job logs it: ``openers verify --head``).

No import of ingest, audit or openers here: every writer can seal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from schemas.chain import GENESIS
from schemas.raw import raw_rows_of

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: The identity of a quarantine row: where it is and what it holds.
QUARANTINE_KEY_SQL = (
    "sha256(concat_ws('|', q.file, coalesce(CAST(q.line AS VARCHAR), ''),"
    " coalesce(q.hand_id, ''), coalesce(q.raw_text, ''), q.error))"
)

#: Hands claimed by runs ``$first`` to ``$last``, a line each (id and sha256), in the order
#: their digest reads them (:func:`_pair`); a claimed hand no longer stored has an empty hash.
_HANDS_SQL = """
SELECT c.hand_id || ':' || coalesce(h.sha256, '') AS line
FROM ops_run_hands c LEFT JOIN raw_hands h USING (hand_id)
WHERE c.run_id BETWEEN $first AND $last
ORDER BY c.hand_id, line
"""
_QUARANTINE_SQL = f"""
WITH present AS (SELECT DISTINCT {QUARANTINE_KEY_SQL} AS k FROM quarantine q)
SELECT c.quarantine_key || ':' || CAST(p.k IS NOT NULL AS VARCHAR) AS line
FROM ops_run_quarantine c LEFT JOIN present p ON p.k = c.quarantine_key
WHERE c.run_id BETWEEN $first AND $last
ORDER BY c.quarantine_key, line
"""
#: Lines read into Python at a time by :func:`_pair`.
_DIGEST_ROWS = 100_000
#: The audit layer per table: rows, and a digest of every finding and unverifiable check
#: (their public columns, so a column added later does not change old digests).
_TABLES_SQL = """
WITH rows AS (
    SELECT table_id, sha256(CAST(json_array('finding', hand_id, code, name, severity, line,
               action_index, seat, message, evidence, source, profile) AS VARCHAR)) AS d, 1 AS f
    FROM audit_findings
    UNION ALL
    SELECT table_id, sha256(CAST(json_array('unverifiable', hand_id, code, seat, reason,
               profile) AS VARCHAR)), 0
    FROM audit_unverifiable
)
SELECT table_id, sum(f), sha256(string_agg(d, '' ORDER BY d)) FROM rows GROUP BY table_id
"""


@dataclass(frozen=True)
class TableDigest:
    """A table's audit rows when sealed: findings, and a digest of them and its checks."""

    table_id: str
    findings: int
    sha256: str


@dataclass(frozen=True)
class Seal:
    """One link of the chain (a row of ``ops_seals``)."""

    seal_id: int
    kind: str  # 'nightly' | 'audit'
    run_id: int | None
    first_run: int | None  # the runs whose claimed hands it covers (nightly)
    last_run: int | None
    sealed_at: datetime
    hands: int
    hands_sha256: str
    quarantined: int
    quarantine_sha256: str
    findings: int
    audit_sha256: str  # over its ops_seal_tables rows
    review_events: int | None
    review_head: str | None
    previous: str
    seal: str

    def computed(self) -> str:
        """The seal its fields and the previous seal make."""
        fields = [self.seal_id, self.kind, self.run_id, self.first_run, self.last_run,
                  (self.sealed_at - _EPOCH) // timedelta(microseconds=1), self.hands,
                  self.hands_sha256, self.quarantined, self.quarantine_sha256, self.findings,
                  self.audit_sha256, self.review_events, self.review_head]
        return hashlib.sha256((self.previous + json.dumps(fields)).encode()).hexdigest()


@dataclass(frozen=True)
class Mismatch:
    """One place where the store is not what it says or what was sealed."""

    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def _pair(con: duckdb.DuckDBPyConnection, sql: str, first: int, last: int) -> tuple[int, str]:
    """The count of ``sql``'s lines and the SHA-256 of them joined by newlines.

    Streamed: DuckDB sorts the lines (spilling to disk past the job's memory limit) and
    Python hashes them as they come. An aggregate over all of them (``sha256(string_agg(
    ... ORDER BY ...))``, which gives the same digest) holds every line in memory and
    cannot spill: a seal of a million hands failed under the nightly job's 256 MB.
    """
    digest, count = hashlib.sha256(), 0
    reader = con.sql(sql, params={"first": first, "last": last}).to_arrow_reader(_DIGEST_ROWS)
    for batch in reader:
        lines = batch.column(0)
        if len(lines):
            # Joined by Arrow, not as a Python string a line: the same bytes for a third of
            # the CPU (a million claimed hands: 0.36 -> 0.11 s).
            whole = pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines)
            if count:
                digest.update(b"\n")
            digest.update(pc.binary_join(whole, "\n")[0].as_buffer())
            count += len(lines)
    return count, digest.hexdigest()


def table_digests(con: duckdb.DuckDBPyConnection) -> dict[str, TableDigest]:
    """The audit layer now, per table."""
    return {str(t): TableDigest(str(t), int(n), str(d))
            for t, n, d in con.execute(_TABLES_SQL).fetchall()}


def _audit_sha256(tables: Sequence[TableDigest]) -> str:
    text = "\n".join(f"{t.table_id}:{t.findings}:{t.sha256}"
                     for t in sorted(tables, key=lambda t: t.table_id))
    return hashlib.sha256(text.encode()).hexdigest()


_SEAL_COLUMNS = ("seal_id, kind, run_id, first_run, last_run, sealed_at, hands, hands_sha256, "
                 "quarantined, quarantine_sha256, findings, audit_sha256, review_events, "
                 "review_head, previous_seal, seal")


def seals(con: duckdb.DuckDBPyConnection) -> list[Seal]:
    """Every seal, oldest first (none in a store last written before seals existed)."""
    try:
        rows = con.execute(f"SELECT {_SEAL_COLUMNS} FROM ops_seals ORDER BY seal_id").fetchall()
    except duckdb.CatalogException:
        return []
    return [Seal(*row) for row in rows]


def seal(con: duckdb.DuckDBPyConnection, *, kind: str, run_id: int | None = None,
         review: tuple[int, str] | None = None) -> Seal:
    """Append a seal of what the writer stored; call it inside the writer's transaction.

    A ``nightly`` seal covers the hands and quarantine rows claimed by ``run_id`` and
    every run since the last nightly seal (the runs of a store older than seals).
    """
    chain = seals(con)
    previous = chain[-1] if chain else None
    first = last = None
    hands, hands_sha = 0, hashlib.sha256(b"").hexdigest()
    quarantined, quarantine_sha = 0, hands_sha
    if kind == "nightly":
        assert run_id is not None
        covered = [s.last_run for s in chain if s.last_run is not None]
        first, last = (max(covered) + 1 if covered else 1), run_id
        hands, hands_sha = _pair(con, _HANDS_SQL, first, last)
        quarantined, quarantine_sha = _pair(con, _QUARANTINE_SQL, first, last)
    tables = list(table_digests(con).values())
    made = Seal(
        seal_id=previous.seal_id + 1 if previous else 1, kind=kind, run_id=run_id,
        first_run=first, last_run=last, sealed_at=datetime.now(UTC), hands=hands,
        hands_sha256=hands_sha, quarantined=quarantined, quarantine_sha256=quarantine_sha,
        findings=sum(t.findings for t in tables), audit_sha256=_audit_sha256(tables),
        review_events=review[0] if review else None, review_head=review[1] if review else None,
        previous=previous.seal if previous else GENESIS, seal="",
    )
    made = Seal(**{**made.__dict__, "seal": made.computed()})
    con.execute(f"INSERT INTO ops_seals ({_SEAL_COLUMNS}) VALUES "
                f"({', '.join('?' * 16)})", list(made.__dict__.values()))
    if tables:
        con.executemany("INSERT INTO ops_seal_tables VALUES (?, ?, ?, ?)",
                        [[made.seal_id, t.table_id, t.findings, t.sha256] for t in tables])
    return made


def check(con: duckdb.DuckDBPyConnection, *, head_only: bool = False) -> list[Mismatch]:
    """Every mismatch between the store and its seals (the head's alone with ``head_only``:
    the check the nightly job makes before it writes)."""
    chain = seals(con)
    if not chain:
        return []
    problems = _links(chain)
    nightly = [s for s in chain if s.kind == "nightly"]
    for s in nightly[-1:] if head_only else nightly:
        problems += _contents(con, s)
    problems += _audit_layer(con, chain[-1])
    if not head_only:
        problems += _uncovered(con, nightly, chain[0].sealed_at)
    return problems


def check_raw(con: duckdb.DuckDBPyConnection,
              hand_ids: Sequence[str] | None = None) -> list[Mismatch]:
    """The raw layer of the store, or of ``hand_ids``, before anything re-reads it: each
    text against its sha256, and the seals of the runs that claimed those hands (a text
    edited with its sha256 recomputed); with all hands, the quarantine's texts too."""
    if hand_ids is not None:
        con.register("_check_ids", _ids_table(hand_ids))
    only = "" if hand_ids is None else " AND hand_id IN (SELECT hand_id FROM _check_ids)"
    texts = "true" if hand_ids is None else raw_rows_of("_check_ids")
    try:
        edited = con.execute(f"SELECT hand_id FROM raw_hands WHERE {texts} AND "
                             "sha256(raw_text) <> sha256 ORDER BY 1").fetchall()
        staged = con.execute("SELECT hand_id FROM stg_hands s JOIN raw_hands r USING (hand_id)"
                             f" WHERE s.sha256 <> r.sha256{only} ORDER BY 1").fetchall()
        runs = {int(r[0]) for r in con.execute(
            f"SELECT DISTINCT run_id FROM ops_run_hands WHERE true{only}").fetchall()}
    finally:
        if hand_ids is not None:
            con.unregister("_check_ids")
    problems = [Mismatch(f"hand {h}", "its raw text does not hash to its sha256 (edited)")
                for (h,) in edited]
    problems += [Mismatch(f"hand {h}", "stg_hands.sha256 is not its raw text's")
                 for (h,) in staged]
    if hand_ids is None:
        problems += [Mismatch(f"quarantine {f}:{line}", "its raw text does not hash to its "
                                                        "sha256 (edited)")
                     for f, line in con.execute(
                         "SELECT file, line FROM quarantine WHERE sha256(raw_text) <> sha256 "
                         "ORDER BY 1, 2").fetchall()]
    for s in seals(con):
        if s.first_run is not None and s.last_run is not None and any(
                s.first_run <= run <= s.last_run for run in runs):
            problems += _contents(con, s)
    return problems


def _ids_table(hand_ids: Sequence[str]) -> pa.Table:
    return pa.table({"hand_id": pa.array(list(hand_ids), pa.string())})


def _links(chain: Sequence[Seal]) -> list[Mismatch]:
    problems = []
    previous = GENESIS
    for number, s in enumerate(chain, start=1):
        where = f"seal {s.seal_id}"
        if s.seal_id != number:
            problems.append(Mismatch(where, f"out of sequence: seal {number} was expected "
                                            "(a seal was removed)"))
        if s.previous != previous:
            problems.append(Mismatch(where, "does not link to the seal before it"))
        if s.computed() != s.seal:
            problems.append(Mismatch(where, "its fields do not make its hash (edited)"))
        previous = s.seal
    return problems


def _contents(con: duckdb.DuckDBPyConnection, s: Seal) -> list[Mismatch]:
    assert s.first_run is not None and s.last_run is not None
    where = f"seal {s.seal_id} (runs {s.first_run}-{s.last_run})"
    problems = []
    hands, digest = _pair(con, _HANDS_SQL, s.first_run, s.last_run)
    if (hands, digest) != (s.hands, s.hands_sha256):
        missing = [str(r[0]) for r in con.execute(
            "SELECT c.hand_id FROM ops_run_hands c ANTI JOIN raw_hands h USING (hand_id) "
            "WHERE c.run_id BETWEEN ? AND ? ORDER BY 1", [s.first_run, s.last_run]).fetchall()]
        detail = f"; deleted: {', '.join(missing)}" if missing else ""
        problems.append(Mismatch(where, f"its {s.hands} hands no longer match the store "
                                        f"({hands} claimed now, a hash or a hand changed)"
                                        f"{detail}"))
    quarantined, digest = _pair(con, _QUARANTINE_SQL, s.first_run, s.last_run)
    if (quarantined, digest) != (s.quarantined, s.quarantine_sha256):
        problems.append(Mismatch(where, f"its {s.quarantined} quarantine rows no longer match "
                                        "the store (a row was edited or deleted)"))
    return problems


def pending_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    """Tables whose audit an interrupted run left to redo: their rows may differ from the
    seal until the next run re-audits and seals them."""
    return {str(r[0]) for r in con.execute(
        "SELECT DISTINCT table_id FROM ops_pending_hands").fetchall()}


def _audit_layer(con: duckdb.DuckDBPyConnection, head: Seal) -> list[Mismatch]:
    sealed = {str(t): TableDigest(str(t), int(n), str(d)) for t, n, d in con.execute(
        "SELECT table_id, findings, sha256 FROM ops_seal_tables WHERE seal_id = ?",
        [head.seal_id]).fetchall()}
    problems = []
    if _audit_sha256(list(sealed.values())) != head.audit_sha256:
        problems.append(Mismatch(f"seal {head.seal_id}", "its table digests were edited"))
    now = table_digests(con)
    redo = pending_tables(con)
    for table in sorted((set(sealed) | set(now)) - redo):
        was, is_ = sealed.get(table), now.get(table)
        if was == is_:
            continue
        problems.append(Mismatch(
            f"table {table}", f"its findings changed since seal {head.seal_id}: "
            f"{was.findings if was else 0} sealed, {is_.findings if is_ else 0} now "
            "(re-derive them with `openers audit` if the raw hands are intact)"))
    return problems


def _uncovered(con: duckdb.DuckDBPyConnection, nightly: Sequence[Seal],
               since: datetime) -> list[Mismatch]:
    """Runs that finished since sealing began and that no seal covers (the newest seals
    were removed); runs of a store older than seals are covered by its first nightly seal."""
    last = max((s.last_run for s in nightly if s.last_run is not None), default=0)
    rows = con.execute(
        "SELECT r.run_id, (SELECT count(*) FROM ops_run_hands c WHERE c.run_id = r.run_id) "
        "FROM ops_runs r WHERE r.run_id > ? AND r.status IN ('ok', 'findings') "
        "AND r.ended_at >= ? ORDER BY r.run_id", [last, since]).fetchall()
    return [Mismatch(f"run {run}", f"finished, claimed {hands} hands, and no seal covers it "
                                   "(the seals after seal "
                                   f"{nightly[-1].seal_id if nightly else 0} were removed?)")
            for run, hands in rows]


def unsealed_hands(con: duckdb.DuckDBPyConnection) -> int:
    """Stored hands no run has claimed yet (stored since the last run): not sealed yet."""
    row = con.execute("SELECT count(*) FROM raw_hands h "
                      "ANTI JOIN ops_run_hands c USING (hand_id)").fetchone()
    return int(row[0]) if row else 0
