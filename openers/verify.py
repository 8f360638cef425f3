"""``openers verify``: is the store what was read and sealed?

Four checks, each naming every mismatch it finds:

1. every stored hand's raw text still hashes to its ``sha256`` (and every
   quarantined text to its own);
2. the staging rows (``stg_hands``, ``stg_seats``, ``stg_actions``) are what
   ingest's reference reader derives from the raw text, and no staging row lacks
   its raw text;
3. the seal chain (:mod:`schemas.seals`): every seal links to the one before and
   matches its fields, every sealed run's hands and quarantine rows are still
   those sealed, the audit layer is the one the newest seal recorded, no finished
   run is left unsealed; with ``--head``, the chain holds a seal kept elsewhere;
4. the review file's own hash chain, and its head against the newest seal
   (events removed from its end).

Staging is re-derived on a process pool, in batches of hands.
"""

from __future__ import annotations

import io
import sqlite3
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

import duckdb
import pyarrow as pa
import typer

from audit.workers import default_workers, process_pool
from ingest.frames import STG_ACTIONS, STG_HANDS, STG_SEATS, hand_tables
from ingest.reader import HandReader, ParsedHand
from openers.nightly.storeopen import connect_waiting
from schemas import reviews as review_store
from schemas.records import HandRecord
from schemas.reviews import reviews_path_for
from schemas.seals import Mismatch, check_raw, seals, unsealed_hands
from schemas.seals import check as check_seals
from schemas.store import DEFAULT_DB

#: Hands re-derived per task of the pool.
BATCH = 2000
#: Staging tables, their columns, and the key of one row within a hand.
STAGING: dict[str, tuple[pa.Schema, tuple[str, ...]]] = {
    "stg_hands": (STG_HANDS, ("hand_id",)),
    "stg_seats": (STG_SEATS, ("hand_id", "seat")),
    "stg_actions": (STG_ACTIONS, ("hand_id", "action_index")),
}
#: hand_id, raw_text, first_line, form, source_file, sha256 (as stored).
StoredRaw = tuple[str, str, int, str, str, str]


class ReviewChain(Protocol):
    """What verify needs of the review file (``schemas.reviews``)."""

    def verify_chain(self, path: Path) -> Sequence[object]:
        """Every break of the file's chain (each ``str()`` names it); empty if intact."""
        ...

    def chain_head(self, path: Path) -> tuple[int, str]:
        """(events, hash of the last one)."""
        ...


@dataclass
class VerifyReport:
    """What verify found: mismatches fail it, notices do not."""

    hands: int = 0
    seals: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def derive(items: Sequence[StoredRaw]) -> tuple[dict[str, pa.Table], list[Mismatch]]:
    """The staging rows ingest's reference reader makes of stored raw hands (in a worker)."""
    parsed: list[ParsedHand] = []
    problems: list[Mismatch] = []
    for hand_id, text, first_line, form, source_file, sha in items:
        got = _read(text, first_line, form, source_file, sha)
        if isinstance(got, str):
            problems.append(Mismatch(f"hand {hand_id}", f"its raw text no longer reads: {got}"))
        elif got.record.hand_id != hand_id:
            problems.append(Mismatch(f"hand {hand_id}",
                                     f"its raw text names hand {got.record.hand_id}"))
        else:
            parsed.append(got)
    return hand_tables(parsed), problems


def _read(text: str, first_line: int, form: str, source_file: str,
          sha: str) -> ParsedHand | str:
    if form == "jsonl":
        try:
            record = HandRecord.model_validate_json(text)
        except ValueError as exc:
            return str(exc).splitlines()[0]
        return ParsedHand(record, text, sha, source_file, first_line, 0)
    reader = HandReader(source_file, start_line=first_line)
    items = list(reader.iter_text(io.BytesIO(text.encode("utf-8"))))
    if len(items) != 1:
        return f"it holds {len(items)} hands"
    item = items[0]
    if not isinstance(item, ParsedHand):
        return item.error
    # Staging carries the stored hash: a hash edited alone shows in check 1, not here.
    return ParsedHand(item.record, text, sha, source_file, first_line, 0)


def _raw_batches(con: duckdb.DuckDBPyConnection) -> Iterator[list[StoredRaw]]:
    """The stored raw hands in batches, streamed (on a cursor of its own)."""
    reader = con.cursor()
    try:
        reader.execute("SELECT hand_id, raw_text, first_line, form, source_file, sha256 "
                       "FROM raw_hands ORDER BY hand_id")
        while rows := reader.fetchmany(BATCH):
            yield [(str(a), str(b), int(c), str(d), str(e), str(f))
                   for a, b, c, d, e, f in rows]
    finally:
        reader.close()


Derived = tuple[dict[str, pa.Table], list[Mismatch]]


def _derived(batches: Iterator[list[StoredRaw]],
             workers: int) -> Iterator[tuple[list[StoredRaw], Derived]]:
    """Each batch with its derived staging, in order; at most two batches per worker in
    flight, so the raw texts are never all in memory."""
    if workers <= 1:
        yield from ((batch, derive(batch)) for batch in batches)
        return
    with process_pool(workers) as pool:
        flying: deque[tuple[list[StoredRaw], Future[Derived]]] = deque()
        for batch in batches:
            flying.append((batch, pool.submit(derive, batch)))
            if len(flying) >= 2 * workers:
                done, future = flying.popleft()
                yield done, future.result()
        while flying:
            done, future = flying.popleft()
            yield done, future.result()


def _digest_sql(table: str, source: str) -> str:
    """One digest per hand of a staging table's rows (any order, duplicates counted)."""
    row = f"CAST(json_array({', '.join(STAGING[table][0].names)}) AS VARCHAR)"
    return (f"SELECT hand_id, sha256(string_agg({row}, chr(10) ORDER BY {row})) AS d "
            f"FROM {source} GROUP BY hand_id")


def check_staging(con: duckdb.DuckDBPyConnection, workers: int) -> list[Mismatch]:
    """Check 2: stored staging rows against those derived from the raw text.

    The stored rows are digested per hand in one pass; each batch's derived rows are
    digested the same way and compared, and only a hand that differs is looked at
    row by row.
    """
    con.execute("SET enable_progress_bar = false")
    for table in STAGING:
        con.execute(f"CREATE OR REPLACE TEMP TABLE _stored_{table} AS "
                    f"{_digest_sql(table, table)}")
    try:
        problems: list[Mismatch] = []
        for batch, (tables, unread) in _derived(_raw_batches(con), workers):
            problems += unread
            unread_ids = {m.where for m in unread}
            ids = [b[0] for b in batch if f"hand {b[0]}" not in unread_ids]
            problems += _compare(con, ids, tables)
        orphans = con.execute(
            "SELECT DISTINCT hand_id FROM (SELECT hand_id FROM _stored_stg_hands UNION ALL "
            "SELECT hand_id FROM _stored_stg_seats UNION ALL "
            "SELECT hand_id FROM _stored_stg_actions) "
            "ANTI JOIN raw_hands USING (hand_id) ORDER BY 1").fetchall()
    finally:
        for table in STAGING:
            con.execute(f"DROP TABLE IF EXISTS _stored_{table}")
    problems += [Mismatch(f"hand {h}", "has staging rows but no raw text (its raw row was "
                                       "deleted)") for (h,) in orphans]
    return problems


def _compare(con: duckdb.DuckDBPyConnection, hand_ids: list[str],
             derived: dict[str, pa.Table]) -> list[Mismatch]:
    problems: list[Mismatch] = []
    con.register("_verify_ids", pa.table({"hand_id": pa.array(hand_ids, pa.string())}))
    try:
        for table, (schema, key) in STAGING.items():
            con.register("_verify_derived", derived[table])
            try:
                differing = con.execute(
                    f"SELECT i.hand_id FROM _verify_ids i "
                    f"LEFT JOIN ({_digest_sql(table, '_verify_derived')}) d USING (hand_id) "
                    f"LEFT JOIN _stored_{table} s USING (hand_id) "
                    "WHERE d.d IS DISTINCT FROM s.d ORDER BY 1").fetchall()
                for (hand_id,) in differing:
                    detail = _detail(con, table, schema, key, str(hand_id))
                    problems.append(Mismatch(f"hand {hand_id}",
                                             f"{table} differs from its raw text: {detail}"))
            finally:
                con.unregister("_verify_derived")
    finally:
        con.unregister("_verify_ids")
    return problems


def _detail(con: duckdb.DuckDBPyConnection, table: str, schema: pa.Schema,
            key: tuple[str, ...], hand_id: str) -> str:
    """The first differing values of one hand's rows, stored against derived."""
    columns = ", ".join(schema.names)

    def rows(source: str) -> dict[tuple[Any, ...], dict[str, Any]]:
        got = con.execute(f"SELECT {columns} FROM {source} WHERE hand_id = ?",
                          [hand_id]).fetchall()
        out = {}
        for row in got:
            values = dict(zip(schema.names, row, strict=True))
            out[tuple(values[k] for k in key)] = values
        return out

    stored, derived = rows(table), rows("_verify_derived")
    for row_key in sorted(set(stored) | set(derived), key=repr):
        where = ", ".join(f"{k} {v}" for k, v in zip(key[1:], row_key[1:], strict=True))
        where = f" at {where}" if where else ""
        if row_key not in derived:
            return f"a stored row{where} the text does not have"
        if row_key not in stored:
            return f"a row{where} of the text is missing"
        diffs = [f"{name} stored {stored[row_key][name]!r}, text {derived[row_key][name]!r}"
                 for name in schema.names if stored[row_key][name] != derived[row_key][name]]
        if diffs:
            return f"{'; '.join(diffs[:3])}{where}"
    return "rows repeated"


def check_reviews(con: duckdb.DuckDBPyConnection, path: Path,
                  chain: ReviewChain) -> list[Mismatch]:
    """Check 4: the review file's chain, and its head against the newest seal that has one."""
    try:
        breaks = chain.verify_chain(path)
        events, head = chain.chain_head(path)
    except (sqlite3.Error, OSError) as exc:
        return [Mismatch(f"review file {path.name}", f"cannot be read: {exc}")]
    problems = [Mismatch(f"review file {path.name}", str(b)) for b in breaks]
    sealed = [s for s in seals(con) if s.review_events is not None]
    if sealed:
        last = sealed[-1]
        assert last.review_events is not None
        if events < last.review_events:
            problems.append(Mismatch(
                f"review file {path.name}", f"holds {events} events; seal {last.seal_id} "
                f"recorded {last.review_events} (events were removed from its end)"))
        elif events == last.review_events and head != last.review_head:
            problems.append(Mismatch(
                f"review file {path.name}", f"its last event is not the one seal "
                f"{last.seal_id} recorded (the file was rewritten)"))
    return problems


def verify_store(con: duckdb.DuckDBPyConnection, *, workers: int = 1,
                 reviews: tuple[Path, ReviewChain] | None = None,
                 head: str | None = None) -> VerifyReport:
    """Run every check on an open store (read-only is enough)."""
    report = VerifyReport()
    row = con.execute("SELECT count(*) FROM raw_hands").fetchone()
    report.hands = int(row[0]) if row else 0
    chain = seals(con)
    report.seals = len(chain)
    raw = check_raw(con)  # texts, and every sealed run's hands
    report.mismatches += raw
    report.mismatches += check_staging(con, workers)
    report.mismatches += [m for m in check_seals(con) if m not in raw]
    if head is not None and head not in {s.seal for s in chain}:
        report.mismatches.append(Mismatch("chain", f"the seal {head} kept elsewhere is not in "
                                                   "it (the chain was rewritten or cut)"))
    if reviews is not None:
        report.mismatches += check_reviews(con, reviews[0], reviews[1])
    if not chain:
        report.notices.append("the store has no seal yet (no nightly run has closed since "
                              "sealing began)")
    if unsealed := unsealed_hands(con):
        report.notices.append(f"{unsealed} hand(s) stored since the last run are not sealed "
                              "yet (the next nightly run seals them)")
    return report


def verify(
    db: Annotated[Path, typer.Option("--db", help="The store to verify.")] = Path(DEFAULT_DB),
    head: Annotated[str | None, typer.Option(
        "--head", help="A seal kept elsewhere (the nightly log's 'seal'): the chain must "
                       "hold it.")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, help="Processes re-deriving staging (default: every core).")] = None,
    wait: Annotated[float, typer.Option(
        "--wait", min=0, help="Seconds to wait while the nightly job holds the store.")] = 60.0,
    reviews: Annotated[Path | None, typer.Option(
        "--reviews", help="The review file (default: beside the store, "
                          "NAME.reviews.sqlite).")] = None,
) -> None:
    """Check that the store is what was read and sealed: raw hashes, staging re-derived
    from the raw text, the seal chain and the review file's chain.

    Exit codes: 0 every check passed; 1 mismatches (each one named); 2 the store
    cannot be read.
    """
    if not db.is_file():
        typer.echo(f"error: no store at {db}", err=True)
        raise typer.Exit(2)
    try:
        con = connect_waiting(db, read_only=True, wait=wait)
    except duckdb.Error as exc:
        typer.echo(f"error: cannot open the store {db}: {str(exc).splitlines()[0]}", err=True)
        raise typer.Exit(2) from None
    try:
        report = verify_store(con, workers=workers or default_workers(),
                              reviews=review_chain_for(db, reviews), head=head)
    finally:
        con.close()
    for notice in report.notices:
        typer.echo(f"note: {notice}")
    for mismatch in report.mismatches:
        typer.echo(f"MISMATCH {mismatch}")
    verdict = (f"{len(report.mismatches)} mismatch(es)" if report.mismatches else "intact")
    typer.echo(f"verified {report.hands} hand(s) and {report.seals} seal(s): {verdict}")
    raise typer.Exit(1 if report.mismatches else 0)


def review_chain_for(db: Path, reviews: Path | None = None) -> tuple[Path, ReviewChain]:
    """The review file of ``db`` (beside it unless given) and what checks its chain."""
    return (reviews if reviews is not None else reviews_path_for(db)), review_store


def review_head(db: Path) -> tuple[int, str] | None:
    """The chain head of the review file beside ``db``, for a seal to record (None: no
    file, or one that cannot be read: ``openers verify`` names why)."""
    path, chain = review_chain_for(db)
    if not path.exists():
        return None
    try:
        return chain.chain_head(path)
    except (sqlite3.Error, OSError, review_store.ReviewFileTampered):
        return None


def register(app: typer.Typer) -> None:
    """Add ``openers verify`` to the application."""
    app.command("verify")(verify)
