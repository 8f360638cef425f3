"""Peak memory of ``openers ingest``, ``validate`` and ``check`` on hostile inputs.

Run: ``nice .venv/bin/python benchmarks/bench_memory.py [--size-mb 100] [--only NAME]``
or ``... bench_memory.py --reaudit STORE [--workers 2]``

Memory is bounded by design (``docs/limits.md``): a hand is held up to
``MAX_HAND_BYTES`` (1 MiB) and a longer one streamed past, runs of blank lines are
separators consumed a block at a time, gzip is inflated in bounded pieces, and
``check`` cuts every file (a ``.gz`` through a plain copy on disk) into units of
about 8 MB. The inputs are the ones that broke round 1 (issue 15, observation 10)
and their compressed and run-on variants:

- ``long_line``: two hands around one line of ``--size-mb`` MB;
- ``blank_runs``: two hands around ``--size-mb`` MB of blank lines (``\\n`` and ``  \\r\\n``);
- ``blank_runs.gz`` and ``long_line.gz``: the same compressed (a small file that inflates
  a hundredfold);
- ``no_blank_line``: ``--size-mb`` MB of short lines and no blank line at all;
- ``hands``: a generated room (``openers generate``: 40 tables, 2% violations), the same size.

Each command runs in a fresh process (``/usr/bin/time -f %M``: the peak resident set
of the command, and of its largest pool worker for ``check``, which reports it). The
goal is under 1 GiB for every input; the figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MB = 1 << 20
_EXAMPLE = (ROOT / "ingest" / "samples" / "spec_example.log").read_bytes().rstrip(b"\n")


def _hand(number: int) -> bytes:
    """The format spec's example hand under the id MEM-<number>."""
    return _EXAMPLE.replace(b"Hand: BCY-T07-000123", b"Hand: MEM-%d" % number)


def long_line(path: Path, size: int) -> None:
    with path.open("wb") as f:
        f.write(_hand(1) + b"\n\n")
        for _ in range(size // MB):
            f.write(b"x" * MB)
        f.write(b"\n\n" + _hand(2) + b"\n")


def blank_runs(path: Path, size: int) -> None:
    with path.open("wb") as f:
        f.write(_hand(1) + b"\n")
        block = b"\n" * (MB // 2) + b"  \r\n" * (MB // 8)
        for _ in range(size // len(block)):
            f.write(block)
        f.write(_hand(2) + b"\n")


def no_blank_line(path: Path, size: int) -> None:
    with path.open("wb") as f:
        line = b"Seat 1: folds\n" * (MB // 14)
        for _ in range(size // len(line)):
            f.write(line)


def hands(path: Path, size: int) -> None:
    """A generated room (40 tables, 2% violations, 5% unrecorded cards) in one file."""
    from openers.generator import GenerateConfig, generate
    from openers.generator.generate import LOGS_DIR

    out = path.parent / "room"
    generate(GenerateConfig(hands=max(1, size // 1000), tables=40, seed=11, violations=0.02,
                            unrecorded_share=0.05, workers=2), out)
    with path.open("wb") as f:
        for log in sorted((out / LOGS_DIR).iterdir()):
            f.write(log.read_bytes() + b"\n")
    shutil.rmtree(out)


def _gzipped(make: Callable[[Path, int], None]) -> Callable[[Path, int], None]:
    def build(path: Path, size: int) -> None:
        plain = path.with_suffix("")
        make(plain, size)
        with plain.open("rb") as src, gzip.open(path, "wb", compresslevel=1) as out:
            shutil.copyfileobj(src, out, MB)
        plain.unlink()

    return build


INPUTS: dict[str, tuple[str, Callable[[Path, int], None]]] = {
    "long_line": ("long_line.log", long_line),
    "blank_runs": ("blank_runs.log", blank_runs),
    "blank_runs.gz": ("blank_runs.log.gz", _gzipped(blank_runs)),
    "long_line.gz": ("long_line.log.gz", _gzipped(long_line)),
    "no_blank_line": ("no_blank_line.log", no_blank_line),
    "hands": ("hands.log", hands),
}


def _peak(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(peak RSS in MiB, wall seconds, exit code) of ``command``."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        started = time.perf_counter()
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name, *command],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, check=False)
        seconds = time.perf_counter() - started
        kib = int(Path(out.name).read_text().split()[-1])
    if "Traceback" in done.stderr:
        print(done.stderr[-2000:], file=sys.stderr)
    return kib / 1024, seconds, done.returncode


#: The re-audit in its child process: its own peak and its largest worker's, and its CPU.
_REAUDIT_CODE = """
import resource, sys, time
from audit.profiles import load_profile
from audit.store import audit_store
from schemas.store import connect
con = connect(sys.argv[1])
started = time.perf_counter()
summary = audit_store(con, load_profile("robert"), workers=int(sys.argv[2]))
seconds = time.perf_counter() - started
con.close()
me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
print(f"REAUDIT {summary.hands} {summary.findings} {seconds} {me.ru_maxrss} {kids.ru_maxrss}")
"""


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux ``/proc``)."""
    out = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            for child in children:
                out += _tree(int(child))
    except OSError:  # the process ended meanwhile
        pass
    return out


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def reaudit(store: Path, workers: int) -> None:
    """Re-audit a copy of ``store`` in a child process; print its memory and time."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="openers-mem-") as tmp:
        copy = Path(tmp) / "store.duckdb"
        shutil.copyfile(store, copy)
        copy.chmod(0o644)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load = os.getloadavg()[0]
        started = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-c", _REAUDIT_CODE, str(copy), str(workers)],
                                 env=env, stdout=subprocess.PIPE, text=True)
        peak, processes = 0, 0
        while child.poll() is None:
            pids = _tree(child.pid)
            pss = sum(_pss_kib(pid) for pid in pids)
            if pss > peak:
                peak, processes = pss, len(pids)
            time.sleep(0.2)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = child.stdout.read() if child.stdout else ""
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    found = [line.split()[1:] for line in out.splitlines() if line.startswith("REAUDIT ")]
    if child.returncode or not found:
        raise SystemExit(f"the re-audit failed (exit code {child.returncode})")
    hands, findings, seconds, me, kids = found[0]
    print(f"re-audit of {int(hands):,} hands ({int(findings):,} findings), {workers} workers, "
          f"load average {load:.2f}: audit {float(seconds):.1f} s, process {wall:.1f} s, "
          f"{cpu:.1f} CPU s; peak RSS main {int(me) / 1024:,.0f} MiB, largest worker "
          f"{int(kids) / 1024:,.0f} MiB; peak tree PSS {peak / 1024:,.0f} MiB "
          f"({processes} processes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--only", action="append", choices=sorted(INPUTS))
    parser.add_argument("--workers", type=int, default=2,
                        help="check's (or the re-audit's) worker processes")
    parser.add_argument("--reaudit", type=Path, metavar="STORE",
                        help="re-audit a copy of this filled store instead")
    args = parser.parse_args()
    if args.reaudit:
        reaudit(args.reaudit, args.workers)
        return
    openers = [sys.executable, "-c", "from openers.cli import main; main()"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    print(f"peak resident memory (MiB) and wall time, inputs of {args.size_mb} MB; "
          "exit codes in brackets")
    print(f"{'input':16} {'file MB':>8}  {'ingest':>16}  {'validate':>16}  {'check':>16}")
    with tempfile.TemporaryDirectory(prefix="openers-mem-") as tmp:
        root = Path(tmp)
        for name in args.only or INPUTS:
            file_name, make = INPUTS[name]
            path = root / file_name
            make(path, args.size_mb * MB)
            size = path.stat().st_size / MB
            cells = []
            for command in (
                [*openers, "ingest", str(path), "--db", str(root / f"{name}.duckdb")],
                [*openers, "validate", str(path)],
                [*openers, "check", str(path), "--workers", str(args.workers)],
            ):
                peak, seconds, code = _peak(command, env)
                cells.append(f"{peak:7.0f} {seconds:5.1f}s [{code}]")
            print(f"{name:16} {size:8.1f}  " + "  ".join(f"{c:>16}" for c in cells), flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
