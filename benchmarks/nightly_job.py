"""Figures for the nightly job: a first night, a night with nothing new, a night of growth.

    .venv/bin/python benchmarks/nightly_job.py [--hands 20000] [--tables 20] [--audit] [--verify]

Prints wall-clock seconds and hands per second for each night; the inbox and the
store live in a temporary folder that is removed afterwards. ``--audit`` also
re-audits the whole store after the first night (``openers audit``: the fast path,
then ``--reference``) and prints both rates. ``--verify`` times ``openers verify``
of the store after the last night (staging re-derived on two workers), and the
job's own seal checks (the chain head, and a whole-store raw check for scale).
"""

from __future__ import annotations

import argparse
import io
import shutil
import tempfile
import time
from pathlib import Path

import duckdb

from audit.profiles import load_profile
from audit.store import audit_store
from openers.generator import GenerateConfig, generate
from openers.nightly.job import FailOn, NightlyOptions, NightlyResult, run_nightly
from openers.nightly.joblog import JobLog, LogFormat
from openers.verify import verify_store
from schemas.seals import check, check_raw
from schemas.store import connect


def _night(options: NightlyOptions) -> tuple[float, NightlyResult]:
    start = time.perf_counter()
    result = run_nightly(options, JobLog(LogFormat.JSON, io.StringIO()))
    return time.perf_counter() - start, result


def _print(label: str, seconds: float, result: NightlyResult) -> None:
    hands = result.counts.hands
    rate = f"{hands / seconds:,.0f} hands/s" if hands else "-"
    print(f"{label:<28} {seconds:7.2f} s  {hands:>7} hands  {rate:>16}  exit {result.exit_code}")


def _reaudit(db: Path, fast: bool) -> None:
    """``openers audit`` of the whole store (``--reference`` when not ``fast``)."""
    con = connect(db)
    try:
        start = time.perf_counter()
        summary = audit_store(con, load_profile("robert"), workers=2, fast=fast)
        seconds = time.perf_counter() - start
    finally:
        con.close()
    label = "re-audit, fast path" if fast else "re-audit, --reference"
    print(f"{label:<28} {seconds:7.2f} s  {summary.hands:>7} hands  "
          f"{summary.hands / seconds:>10,.0f} hands/s")


def _verify(db: Path) -> None:
    """``openers verify`` of the whole store, and the checks the job makes on its own."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        start = time.perf_counter()
        report = verify_store(con, workers=2)
        seconds = time.perf_counter() - start
        print(f"{'openers verify':<28} {seconds:7.2f} s  {report.hands:>7} hands  "
              f"{report.hands / seconds:>10,.0f} hands/s  {len(report.mismatches)} mismatches")
        for label, run in (("head check (job, each run)", lambda: check(con, head_only=True)),
                           ("raw check (all hands)", lambda: check_raw(con))):
            start = time.perf_counter()
            found = run()
            print(f"{label:<28} {time.perf_counter() - start:7.2f} s  {len(found)} mismatches")
    finally:
        con.close()


def main() -> None:
    """Run the three nights and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--audit", action="store_true",
                        help="also time a whole-store re-audit, fast and reference")
    parser.add_argument("--verify", action="store_true",
                        help="also time openers verify and the job's seal checks")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="openers-bench-"))
    try:
        generate(GenerateConfig(hands=args.hands, tables=args.tables, seed=1, violations=0.01,
                                workers=2), root / "day")
        inbox = root / "day" / "logs"
        options = NightlyOptions(inboxes=(inbox,), db=root / "store.duckdb",
                                 reports=root / "reports", fail_on=FailOn.NEVER,
                                 fail_on_quality=FailOn.NEVER, settle_seconds=0.0)
        _print("first night (with report)", *_night(options))
        if args.audit:
            _reaudit(options.db, fast=True)
            _reaudit(options.db, fast=False)
        _print("same inbox again", *_night(options))
        # Growth: a tenth of the files get a copy of their own first hands, renamed.
        grown = 0
        for path in sorted(inbox.glob("*.log"))[:: 10]:
            text = path.read_text(encoding="utf-8")
            first = text.split("\n\n")[:20]
            extra = "\n\n".join(h.replace("Hand: ", "Hand: X", 1) for h in first if h.strip())
            with path.open("a", encoding="utf-8") as handle:
                handle.write("\n\n" + extra + "\n\n")
            grown += 1
        _print(f"{grown} files grown", *_night(options))
        if args.verify:
            _verify(options.db)
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
