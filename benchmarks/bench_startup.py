"""Start-up of the CLI: process start to exit, warm, as a user's shell runs it.

Run: ``.venv/bin/python benchmarks/bench_startup.py [--repeat 10] [--hands 400]``

Targets (issue 14): ``openers --help`` under 0.3 s and ``openers check`` of a
400-hand file under 0.8 s. Each command is run ``--repeat`` times after one untimed
run (the compiled code built and the OS's file cache warm); the best and the median
wall times are printed. To name what limits each command, the same table times the
floor under it: an empty interpreter, and importing what it needs (typer for
``--help``; the rule catalogue, and numba for the compiled path), and ``check``'s work
measured inside one process (a second check in the same interpreter), on each path.
``openers check`` sends an input this small to the reference engine (the compiled
path's code takes longer to load than the engine takes for ~500 hands); ``--fast``
forces the compiled path.

The file is a generated room of one table (5% planted violations, 5% hands with
``??`` cards), the day an auditor would check. Times on a shared machine are noisy:
compare the best figures, and the rows with each other.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPENERS = [sys.executable, "-c", "from openers.cli import main; main()"]
TARGETS = {"openers --help": 0.3, "openers check FILE": 0.8}
IN_PROCESS = """
import sys, time
from audit.batch import check_paths
from audit.profiles import load_profile
from ingest.scan.cache import ensure_compiled
ensure_compiled(None)
profile = load_profile("robert")
for fast in (True, False):
    check_paths([sys.argv[1]], profile, workers=1, fast=fast)
    start = time.perf_counter()
    check_paths([sys.argv[1]], profile, workers=1, fast=fast)
    print(time.perf_counter() - start)
"""


def room(hands: int) -> Path:
    """A one-table room of ``hands`` hands in one file (made once, kept in the temp folder)."""
    path = Path(tempfile.gettempdir()) / f"openers-bench-startup-{hands}.log"
    if not path.exists():
        from openers.generator import GenerateConfig, generate
        from openers.generator.generate import LOGS_DIR

        with tempfile.TemporaryDirectory() as tmp:
            generate(GenerateConfig(hands=hands, tables=1, seed=14, violations=0.05,
                                    unrecorded_share=0.05), Path(tmp))
            logs = sorted((Path(tmp) / LOGS_DIR).iterdir())
            path.write_bytes(b"\n".join(p.read_bytes() for p in logs))
    return path


def timed(command: list[str], repeat: int) -> tuple[float, float]:
    """Best and median wall seconds of ``command`` (after one untimed run)."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--hands", type=int, default=400)
    args = parser.parse_args()
    log = room(args.hands)
    subprocess.run([*OPENERS, "warmup"], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    hands = log.read_bytes().count(b"\nHand: ") + 1
    rows: list[tuple[str, list[str]]] = [
        ("python -c pass (the floor)", [sys.executable, "-c", "pass"]),
        ("import typer (what --help needs)", [sys.executable, "-c", "import typer.main"]),
        ("openers --help", [*OPENERS, "--help"]),
        ("openers --version", [*OPENERS, "--version"]),
        ("openers rules", [*OPENERS, "rules"]),
        ("openers check --help", [*OPENERS, "check", "--help"]),
        ("import the rule catalogue (what every check needs)",
         [sys.executable, "-c", "import audit.registry"]),
        ("import numba (what the compiled path adds)", [sys.executable, "-c", "import numba"]),
        ("openers check FILE", [*OPENERS, "check", str(log)]),
        ("openers check FILE --fast", [*OPENERS, "check", str(log), "--fast"]),
        ("openers check FILE --reference --workers 1",
         [*OPENERS, "check", str(log), "--reference", "--workers", "1"]),
    ]
    print(f"{hands} hands in {log} ({log.stat().st_size / 1e6:.2f} MB); best and median "
          f"of {args.repeat} runs, wall seconds, process start to exit")
    print(f"{'command':<52} {'best':>6} {'median':>7}  target")
    for name, command in rows:
        best, median = timed(command, args.repeat)
        target = TARGETS.get(name)
        verdict = "" if target is None else f"< {target} s: {'met' if best < target else 'MISSED'}"
        print(f"{name:<52} {best:6.3f} {median:7.3f}  {verdict}")
    fast, reference = subprocess.run([sys.executable, "-c", IN_PROCESS, str(log)],
                                     capture_output=True, text=True, check=True,
                                     cwd=ROOT).stdout.split()
    print(f"{'check work alone, compiled path (same process)':<52} {float(fast):6.3f}")
    print(f"{'check work alone, reference engine (same process)':<52} {float(reference):6.3f}")


if __name__ == "__main__":
    main()
