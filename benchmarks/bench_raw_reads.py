"""Reading some hands' raw texts by id: by row id (``schemas.raw``) against a semi-join.

    .venv/bin/python benchmarks/bench_raw_reads.py STORE [--hands 2000] [--runs 3]

Picks ``--hands`` stored hand ids of ``STORE`` at random (read only) and times, best of
``--runs``, the two reads the product makes of some hands' texts -- the report's excerpts
(their texts) and ``check_raw`` (the texts that do not hash to their sha256) -- written as
a plain semi-join on ``hand_id`` and with :func:`schemas.raw.raw_rows_of`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb

from schemas.raw import raw_rows_of

_IDS = "(SELECT unnest(?::VARCHAR[]) AS hand_id)"
_READS = {
    "texts": "SELECT hand_id, first_line, raw_text FROM raw_hands WHERE {where}",
    "edited texts": "SELECT hand_id FROM raw_hands WHERE {where} AND sha256(raw_text) <> sha256",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    con = duckdb.connect(str(args.store), read_only=True)
    stored = int(con.execute("SELECT count(*) FROM raw_hands").fetchall()[0][0])
    ids = [str(r[0]) for r in con.execute(
        f"SELECT hand_id FROM raw_hands USING SAMPLE {args.hands} ROWS").fetchall()]
    print(f"{len(ids):,} ids of {stored:,} stored hands")
    for name, sql in _READS.items():
        for way, where in (("semi-join on hand_id", f"hand_id IN {_IDS}"),
                           ("by row id (raw_rows_of)", raw_rows_of(_IDS))):
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                con.execute(sql.format(where=where), [ids]).fetchall()
                times.append(time.perf_counter() - start)
            print(f"{name:13s} {way:24s} {min(times):6.3f} s")


if __name__ == "__main__":
    main()
