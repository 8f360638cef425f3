"""After ``openers warmup``, the main commands compile nothing: the first night is not slower.

A kernel called from Python with array types no warm-up gave it compiles again on first
use, tens of seconds into the first night (the integrity pass did, until its warm-up ran
the real path). The probe runs every warm-up, then a nightly job (its worker processes
included) and ``openers check`` on a small room with violations and ``??`` cards, and
reports the files the compiled-code cache gained meanwhile: numba writes one for every
new compilation, whichever process made it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from openers.generator import GenerateConfig, generate

_PROBE = """
import json, sys
from ingest.scan.cache import cache_dir, compile_all

def files():
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in cache_dir().rglob("*") if p.is_file()}

compile_all()
before = files()
from openers.cli import main
logs, store, reports = sys.argv[1:4]
for argv in (["nightly", logs, "--db", store, "--reports", reports, "--fail-on", "never",
              "--fail-on-quality", "never", "--settle", "0", "--log-format", "json"],
             ["check", logs, "--workers", "2", "-q"]):
    sys.argv = ["openers", *argv]
    try:
        main()
    except SystemExit:
        pass
after = files()
print(json.dumps(sorted(p for p, stamp in after.items() if before.get(p) != stamp)))
"""


def test_nothing_compiles_after_the_warm_up(tmp_path: Path) -> None:
    generate(GenerateConfig(hands=600, tables=2, seed=8, violations=0.1,
                            unrecorded_share=0.05, workers=1), tmp_path / "room")
    run = subprocess.run(
        [sys.executable, "-c", _PROBE, str(tmp_path / "room" / "logs"),
         str(tmp_path / "s.duckdb"), str(tmp_path / "reports")],
        capture_output=True, text=True, check=True)
    assert json.loads(run.stdout.splitlines()[-1]) == [], run.stderr[-2000:]
