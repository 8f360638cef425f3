"""How long each dashboard page takes on a store of N independently generated hands.

    nice -n 10 .venv/bin/python benchmarks/bench_dashboards.py --hands 1000000 \
        --dir /tmp/bench-dash

1. The store is built through the real pipeline, every hand generated and audited
   (no copies): ``openers generate`` writes ``--hands`` hands at ``--tables`` tables
   (many days of play), then ``openers nightly`` ingests and audits them and records
   its run. The store is kept in ``--dir`` and reused by later runs of the script.
2. The dashboard's snapshot of the store (copy + marts made tables, once per store
   change, prepared in the background while the previous one is served) is timed.
3. Every page is rendered with Streamlit's AppTest, cold (result cache cleared) and
   warm (cached), best of three after a first pass; then the interactions an
   officer makes most (filter the queue, open a hand and step it, facet a big table,
   run a query). The figures include the page's queries, the replay of a hand and
   Streamlit's own work; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboards.views import PAGES, PageSpec  # noqa: E402
from openers.generator import GenerateConfig, generate  # noqa: E402

OPENERS = str(Path(sys.executable).with_name("openers"))
REPEAT = 3

def build_store(directory: Path, hands: int, tables: int, seed: int) -> Path:
    """Generator -> ``openers nightly`` into ``directory/openers.duckdb``.

    Each step leaves a marker when it is complete, so a run that was stopped resumes:
    the logs are generated again only if their marker is missing, and the nightly job
    (crash-safe, it goes on from where a killed run stopped) runs until its marker is there.
    """
    store = directory / "openers.duckdb"
    generated, audited = directory / "generated.ok", directory / "audited.ok"
    if not generated.exists():
        started = time.perf_counter()
        generate(
            GenerateConfig(hands=hands, tables=tables, seed=seed, violations=0.02,
                           unrecorded_share=0.01, broken_share=0.001,
                           workers=os.cpu_count() or 1),
            directory / "generated",
        )  # fmt: skip
        generated.write_text(f"{time.perf_counter() - started:.0f} s\n")
        print(f"generated {hands:,} hands at {tables} tables in {generated.read_text()}")
    if not audited.exists():
        started = time.perf_counter()
        subprocess.run(
            [OPENERS, "nightly", str(directory / "generated" / "logs"), "--db", str(store),
             "--reports", str(directory / "reports"), "--fail-on", "never"],
            check=True, capture_output=True,
        )  # fmt: skip
        audited.write_text(f"{time.perf_counter() - started:.0f} s\n")
        print(f"nightly (ingest + audit) in {audited.read_text()}")
    con = duckdb.connect(str(store), read_only=True)
    (stored, findings) = con.execute(
        "SELECT count(*), (SELECT count(*) FROM findings) FROM hands").fetchone() or (0, 0)
    con.close()
    print(f"store: {stored:,} hands, {findings:,} findings, {store.stat().st_size / 1e9:.2f} GB")
    return store


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
    print(f"{'interaction':<44}{'cold s':>9}   (best of {REPEAT})")
    for label, page, params, act in _INTERACTIONS:
        best = min(_interact(page, {**params, **({"hand_id": hand_id} if page == "hand"
                                                 else {})}, act) for _ in range(REPEAT))
        print(f"{label:<44}{best:>9.3f}")


def _queue_filter(at: Any) -> None:
    at.multiselect(key="f_severities").set_value(["critical"])


def _step_hand(at: Any) -> None:
    next(b for b in at.button if b.label == "step ▶").click()


def _facet(at: Any) -> None:
    at.text_input(key="b_text_stg_actions").input("Seat 3")


def _search(at: Any) -> None:
    at.text_input(key="hs_player").input("P-1")
    at.text_input(key="hs_min").input("100")
    next(b for b in at.button if b.label == "Search").click()


_INTERACTIONS: tuple[tuple[str, str, dict[str, str], Any], ...] = (
    ("Findings: filter to critical", "findings", {}, _queue_filter),
    ("Hand: step one line", "hand", {}, _step_hand),
    ("Browse stg_actions: facet verb + text", "browse",
     {"table": "stg_actions", "facet": "verb", "f.verb": "raises"}, _facet),
    ("SQL: findings per dealer", "sql",
     {"sql": "SELECT dealer_id, count(*) FROM findings JOIN hands USING (hand_id) GROUP BY 1"},
     None),
    ("Hand search: player contains P-1, pot >= 100", "hand", {}, _search),
)


def _interact(page: str, params: dict[str, str], act: Any) -> float:
    """Seconds of the run that follows one interaction (result cache cleared before)."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboards" / "app.py"), default_timeout=300)
    at.run()
    at.switch_page(f"views/{page}.py")
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    st.cache_data.clear()
    if act is not None:
        act(at)
    return _timed_run(at, page)


def _timed_run(at: Any, label: str) -> float:
    """Seconds of one run of the app as it stands; a page that raised is an error."""
    began = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - began
    if at.exception:
        raise RuntimeError(f"{label}: {at.exception[0].value}")
    return elapsed


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
    return _timed_run(at, spec.title)


def _a_hand_with_findings(state_module: object) -> str:
    snap = state_module.snapshot()  # type: ignore[attr-defined]
    row = snap.con.execute("SELECT hand_id FROM findings ORDER BY hand_id LIMIT 1").fetchone()
    return str(row[0]) if row else ""


def main() -> None:
    """Build (or reuse) the stores and print the page timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench-dashboards"))
    parser.add_argument("--build-only", action="store_true", help="build the store and stop")
    args = parser.parse_args()
    directory = args.dir / f"hands-{args.hands}"
    directory.mkdir(parents=True, exist_ok=True)
    store = build_store(directory, args.hands, args.tables, args.seed)
    if not args.build_only:
        time_pages(store)


if __name__ == "__main__":
    main()
