"""How long each dashboard page takes to render on a store of N generated hands.

    .venv/bin/python benchmarks/bench_dashboards.py --hands 1000000 --dir /tmp/bench-dash

1. A base store is built through the real pipeline: the generator writes ``--base``
   hands, ``openers ingest`` stores them, ``openers audit`` judges them.
2. When ``--hands`` is larger, the base is copied inside DuckDB until the store holds
   that many hands: copy k gets the ids ``<id>-r<k>`` and its times moved k x
   ``--shift-days`` days on, so the copies read as later days of the same room
   (same tables, dealers and players). Generating and auditing a million hands takes
   an hour of CPU; the copies keep the shape of real output at a fraction of it.
3. The dashboard's snapshot of the store (copy + marts made tables, once per store
   change) is timed, then every page is rendered with Streamlit's AppTest, cold
   (result cache cleared) and warm (cached). The first render includes the page's
   queries, the replay of a hand and Streamlit's own work.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboards.views import PAGES, PageSpec  # noqa: E402
from openers.generator import GenerateConfig, generate  # noqa: E402

OPENERS = str(Path(sys.executable).with_name("openers"))
REPEAT = 3

# Tables holding one row per hand (or per line of a hand) that the copies repeat.
_PER_HAND = ("stg_hands", "stg_seats", "stg_actions", "raw_hands", "audit_hands",
             "audit_findings", "audit_unverifiable")  # fmt: skip


def build_base(directory: Path, hands: int, seed: int) -> Path:
    """Generator -> ingest -> audit into ``directory/openers.duckdb`` (kept if present)."""
    store = directory / "openers.duckdb"
    if store.exists():
        return store
    started = time.perf_counter()
    tables = max(4, hands // 1000)
    generate(
        GenerateConfig(hands=hands, tables=tables, seed=seed, violations=0.02,
                       unrecorded_share=0.01, broken_share=0.001, workers=os.cpu_count() or 1),
        directory / "generated",
    )  # fmt: skip
    print(f"generated {hands:,} hands in {time.perf_counter() - started:.0f} s")
    for step in (("ingest", str(directory / "generated" / "logs")), ("audit",)):
        started = time.perf_counter()
        subprocess.run([OPENERS, *step, "--db", str(store)], check=True, capture_output=True)
        print(f"{step[0]} in {time.perf_counter() - started:.0f} s")
    return store


def _copy_select(con: duckdb.DuckDBPyConnection, table: str, k: int, days: int) -> str:
    columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
    replace = [f"hand_id || '-r{k}' AS hand_id"]
    if "time" in columns:
        replace.append(f"time + INTERVAL {k * days} DAY AS time")
    if table == "raw_hands":
        replace.append(
            f"replace(raw_text, 'Hand: ' || hand_id, 'Hand: ' || hand_id || '-r{k}') AS raw_text"
        )
    return f"SELECT * REPLACE ({', '.join(replace)}) FROM {table} WHERE hand_id NOT LIKE '%-r%'"


def scale(base: Path, target: Path, hands: int, days: int) -> Path:
    """Copy the base store's hands until ``target`` holds ``hands`` hands."""
    if target.exists():
        return target
    started = time.perf_counter()
    target.write_bytes(base.read_bytes())
    con = duckdb.connect(str(target))
    (have,) = con.execute("SELECT count(*) FROM stg_hands").fetchone() or (0,)
    copies = -(-hands // have) - 1
    for k in range(1, copies + 1):
        wanted = min(have, hands - have * k)
        con.begin()
        for table in _PER_HAND:
            select = _copy_select(con, table, k, days)
            if wanted < have:  # the last copy is partial: keep the first `wanted` hands
                select += (
                    f" AND hand_id IN (SELECT hand_id FROM stg_hands WHERE hand_id NOT LIKE"
                    f" '%-r%' ORDER BY hand_id LIMIT {wanted})"
                )
            con.execute(f"INSERT INTO {table} {select}")
        con.commit()
    con.execute("CHECKPOINT")
    (total,) = con.execute("SELECT count(*) FROM hands").fetchone() or (0,)
    con.close()
    size = target.stat().st_size / 1e9
    print(f"scaled to {total:,} hands ({size:.2f} GB) in {time.perf_counter() - started:.0f} s")
    return target


def time_pages(store: Path) -> None:
    """Render every page cold and warm with AppTest; print the table of timings."""
    from dashboards import state

    os.environ["OPENERS_DB"] = str(store)
    os.environ["OPENERS_REVIEWS"] = str(store.with_name("bench.reviews.sqlite"))
    started = time.perf_counter()
    state.snapshot()
    print(f"snapshot: copy + marts as tables (once per store change): "
          f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    hand_id = _a_hand_with_findings(state)
    print(f"{'page':<14}{'cold s':>9}{'warm s':>9}   (best of {REPEAT} after a first pass)")
    for spec in PAGES:  # a first pass, so imports and chart libraries are loaded
        _render(spec, hand_id, cold=True)
    for spec in PAGES:
        cold = min(_render(spec, hand_id, cold=True) for _ in range(REPEAT))
        warm = min(_render(spec, hand_id, cold=False) for _ in range(REPEAT))
        print(f"{spec.title:<14}{cold:>9.3f}{warm:>9.3f}")


def _render(spec: PageSpec, hand_id: str, cold: bool) -> float:
    """Seconds of one run of a page (cold: with the result cache cleared first)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=300)
    at.run()  # a first run of the app (the default page), so only the page is timed
    if not spec.default:
        at.switch_page(f"views/{spec.module}.py")
        if spec.module == "hand":
            at.query_params["hand_id"] = hand_id
    if cold:
        st.cache_data.clear()
    began = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - began
    if at.exception:
        raise RuntimeError(f"{spec.title}: {at.exception[0].value}")
    return elapsed


def _a_hand_with_findings(state_module: object) -> str:
    snap = state_module.snapshot()  # type: ignore[attr-defined]
    row = snap.con.execute("SELECT hand_id FROM findings ORDER BY hand_id LIMIT 1").fetchone()
    return str(row[0]) if row else ""


def main() -> None:
    """Build (or reuse) the stores and print the page timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--base", type=int, default=20_000, help="hands through the pipeline")
    parser.add_argument("--shift-days", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench-dashboards"))
    args = parser.parse_args()
    base_dir = args.dir / f"base-{args.base}"
    base_dir.mkdir(parents=True, exist_ok=True)
    store = build_base(base_dir, args.base, args.seed)
    if args.hands > args.base:
        store = scale(store, args.dir / f"scaled-{args.hands}.duckdb", args.hands, args.shift_days)
    time_pages(store)


if __name__ == "__main__":
    main()
