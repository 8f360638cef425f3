"""What DuckDB alone costs to store a night's raw and staging rows: the ingest's floor.

    .venv/bin/python benchmarks/bench_store_floor.py STORE [--flush N] [--runs 2]
        [--set "SET name = value" ...] [--only-ways] [--columns]

Reads the raw and staging rows of ``STORE`` (a store some night already filled; never
written) into memory as Arrow tables, cut into flushes of ``--flush`` hands in reading
order (default: the ingest's own transaction, ``ingest.load.BATCH_SIZE`` hands), then
writes them into a fresh store made by ``schemas.store.connect`` (the product's own DDL)
as ``ingest/commit.py`` does: one transaction per flush here (the ingest writes its
transaction in parts of ``ingest.load.WRITE_SIZE`` hands), one ``INSERT ... SELECT`` per
table, DuckDB held to one thread (``ingest.commit.single_threaded``'s setting). Nothing
else is timed: no reading, scanning, row building or classifying.

It prints, per way of writing, the wall and CPU seconds, the commits' share, and the
night's speed this alone would cap it at. Three ways:

- ``flushes``: as the ingest writes, a transaction per flush;
- ``one transaction``: every row in one insert per table and a single commit, the
  least DuckDB can spend on these rows in this schema;
- ``Parquet files``: the same flushes written by pyarrow as a Parquet file per table and
  flush (snappy, a row group per flush), what a staging layer kept in files beside the
  store instead of in DuckDB's tables would pay (files that separate processes could
  write in parallel; not what the product does).

Then each table alone, in flushes, to show which one costs (not with ``--only-ways``).
``--set`` runs every write under DuckDB settings of one's own after the ingest's one thread
(to compare a bulk-load setting against none, back to back). With ``--columns``, then each
column of ``stg_actions`` (the costliest table: ~30 rows a hand) alone, in a table of that
one column of the store's type, and each of its text columns as the integer codes of its
distinct texts instead (what a schema of codes and a lookup table would pay; not the
product's schema, whose readers and public views take text): DuckDB's cost is per value,
each column adding its own, so these name what an ingest of this schema cannot go below.
The minimum over ``--runs`` is printed; on a shared machine run it back to back with what
you compare.
"""

from __future__ import annotations

import argparse
import functools
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ingest.load import BATCH_SIZE
from schemas.store import connect

#: The tables ingest writes for every stored hand, and the order of rows within a hand.
TABLES = {"raw_hands": "", "stg_hands": "", "stg_seats": ", seat",
          "stg_actions": ", action_index"}

Flush = dict[str, pa.Table]


@functools.cache
def _action_types() -> dict[str, str]:
    """The store type of each ``stg_actions`` column (from the product's DDL)."""
    con = connect(":memory:")
    try:
        return {str(c): str(k) for c, k in con.execute(
            "SELECT column_name, data_type FROM duckdb_columns() "
            "WHERE table_name = 'stg_actions'").fetchall()}
    finally:
        con.close()



def read_rows(store: Path, flush: int) -> tuple[int, list[Flush]]:
    """The store's rows, as flushes of ``flush`` hands in reading order."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        hands = int(con.execute("SELECT count(*) FROM raw_hands").fetchall()[0][0])
        tables = {table: con.sql(
            "WITH o AS (SELECT hand_id, row_number() OVER (ORDER BY source_file, first_line)"
            f" - 1 AS n FROM raw_hands) SELECT t.*, o.n // {flush} AS flush__ "
            f"FROM {table} t JOIN o USING (hand_id) ORDER BY o.n{within}").to_arrow_table()
            for table, within in TABLES.items()}
    finally:
        con.close()
    flushes = []
    for i in range(-(-hands // flush)):
        flushes.append({table: rows.filter(pc.equal(rows["flush__"], i)).drop(["flush__"])
                        for table, rows in tables.items()})
    return hands, flushes


def write(flushes: list[Flush], only: str | None = None) -> tuple[float, float, float]:
    """Write ``flushes`` (``only``'s rows, if given) into a fresh store: wall, CPU and commit
    seconds."""
    return _write([{t: rows for t, rows in part.items() if only in (None, t)}
                   for part in flushes])


#: DuckDB settings every write runs under after the ingest's own (``--set``).
SETTINGS: list[str] = []


def _write(parts: list[Flush], ddl: str = "") -> tuple[float, float, float]:
    """Write ``parts`` into a fresh store (first given ``ddl``), a transaction per part:
    wall, CPU and commit seconds."""
    with tempfile.TemporaryDirectory(prefix="openers-floor-") as folder:
        con = connect(Path(folder) / "floor.duckdb")
        for setting in ["SET threads = 1", *SETTINGS, ddl]:
            if setting:
                con.execute(setting)
        wall, cpu, commits = time.perf_counter(), time.process_time(), 0.0
        for part in parts:
            con.begin()
            for table, rows in part.items():
                cols = ", ".join(f'"{c}"' for c in rows.column_names)
                con.register("_floor", rows)
                con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM _floor")
                con.unregister("_floor")
            started = time.perf_counter()
            con.commit()
            commits += time.perf_counter() - started
        con.close()
        return time.perf_counter() - wall, time.process_time() - cpu, commits


def write_column(flushes: list[Flush], column: str, coded: bool) -> tuple[float, float, float]:
    """Write ``stg_actions.column`` of ``flushes`` alone into a fresh one-column table of its
    store type (``coded``: its texts' integer codes, as ``INTEGER``, or ``INTEGER[]`` for a
    list of texts): wall, CPU and commit seconds."""
    kind = _action_types()[column]
    if coded:
        kind = "INTEGER[]" if kind.endswith("[]") else "INTEGER"
    parts = [{"floor_column": pa.table({column: _codes(part["stg_actions"][column]) if coded
                                        else part["stg_actions"][column]})}
             for part in flushes]
    return _write(parts, f'CREATE TABLE floor_column ("{column}" {kind})')


def _codes(texts: pa.ChunkedArray) -> pa.Array:
    """Each text's code among the column's distinct texts (a list's texts, each coded)."""
    whole = texts.combine_chunks()
    if pa.types.is_list(whole.type):
        return pa.ListArray.from_arrays(whole.offsets, _codes(pa.chunked_array([whole.values])),
                                        mask=whole.is_null())
    return pc.dictionary_encode(whole).indices


def write_parquet(flushes: list[Flush], only: str | None = None) -> tuple[float, float, float]:
    """Write ``flushes`` as Parquet files in a temporary folder: wall, CPU and 0 (no commit)."""
    with tempfile.TemporaryDirectory(prefix="openers-floor-") as folder:
        wall, cpu = time.perf_counter(), time.process_time()
        for number, part in enumerate(flushes):
            for table, rows in part.items():
                if only is None or table == only:
                    pq.write_table(rows, Path(folder) / f"{table}-{number}.parquet",
                                   compression="snappy", row_group_size=max(rows.num_rows, 1))
        return time.perf_counter() - wall, time.process_time() - cpu, 0.0


def best(runs: int, flushes: list[Flush], only: str | None = None,
         way: Callable[[list[Flush], str | None], tuple[float, float, float]] = write,
         ) -> tuple[float, ...]:
    return min((way(flushes, only) for _ in range(runs)), key=lambda r: r[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a store some night filled (read only)")
    parser.add_argument("--flush", type=int, default=BATCH_SIZE,
                        help=f"hands per transaction (default {BATCH_SIZE:,}, the ingest's)")
    parser.add_argument("--runs", type=int, default=2, help="runs of each way (minimum kept)")
    parser.add_argument("--set", action="append", default=[], metavar="SQL",
                        help="a DuckDB setting to write under, e.g. \"SET threads = 2\" "
                        "(repeatable; applied after the ingest's one thread)")
    parser.add_argument("--only-ways", action="store_true",
                        help="only the three ways of writing, not each table alone")
    parser.add_argument("--columns", action="store_true",
                        help="also each column of stg_actions alone, and its texts as codes")
    args = parser.parse_args()
    SETTINGS.extend(args.set)
    hands, flushes = read_rows(args.store, args.flush)
    whole = [{t: pa.concat_tables([f[t] for f in flushes]) for t in TABLES}]
    load = os.getloadavg()
    print(f"{hands:,} hands; rows: " + ", ".join(
        f"{t} {sum(f[t].num_rows for f in flushes):,}" for t in TABLES)
        + f"; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        + "".join(f"; {setting}" for setting in args.set))
    for label, parts, only, way in [
            (f"flushes of {args.flush:,} hands", flushes, None, write),
            ("one transaction", whole, None, write),
            ("Parquet files, in flushes", flushes, None, write_parquet),
            *((f"  {t} alone, in flushes", flushes, t, write)
              for t in TABLES if not args.only_ways)]:
        wall, cpu, commits = best(args.runs, parts, only, way)
        cap = f" = caps a night at {hands / wall:,.0f} hands/s" if only is None else ""
        print(f"{label:34s} {wall:6.2f} s wall, {cpu:6.2f} CPU s, commits {commits:5.2f} s{cap}")
    if args.columns:
        _columns(args.runs, flushes)


def _columns(runs: int, flushes: list[Flush]) -> None:
    """Each column of ``stg_actions`` alone, and each text column as codes (CPU s)."""
    print("stg_actions, each column alone, in flushes (CPU s; as codes: its texts' codes)")
    for column, kind in zip(flushes[0]["stg_actions"].column_names,
                            flushes[0]["stg_actions"].schema.types, strict=True):
        text = pa.types.is_string(kind) or (pa.types.is_list(kind)
                                            and pa.types.is_string(kind.value_type))
        cpu = min(write_column(flushes, column, False)[1] for _ in range(runs))
        codes = min(write_column(flushes, column, True)[1] for _ in range(runs)) if text else 0
        coded = f", as codes {codes:5.2f}" if text else ""
        print(f"  {column:14s} {cpu:5.2f}{coded}")


if __name__ == "__main__":
    main()
