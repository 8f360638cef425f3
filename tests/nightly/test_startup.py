"""The nightly process starts lean: pyarrow without pandas, each stage's engine on use."""

from __future__ import annotations

import subprocess
import sys
import threading
import types
from pathlib import Path

import numpy as np
import pytest

from openers.nightly.startup import Preload
from tests.nightly.handmaker import write_day
from tests.nightly.jobtools import job_command

#: After the job: which libraries the process loaded (printed by an exit hook).
_PROBE = """
import atexit, sys
atexit.register(lambda: print("LOADED", "pandas" in sys.modules, file=sys.stderr))
sys.argv = ["openers", *sys.argv[1:]]
from openers.cli import main
main()
"""


def test_arrow_runs_without_pandas_yet_pandas_stays_usable() -> None:
    code = """
import sys
from openers.nightly.startup import arrow_without_pandas
assert arrow_without_pandas()
import numpy as np, pyarrow as pa
pa.array(np.arange(3)); pa.array(["a", None]); pa.table({"t": [1]})
assert "pandas" not in sys.modules
import pandas
assert pa.table({"a": [1, 2]}).to_pandas()["a"].tolist() == [1, 2]
assert pa.array(pandas.Series([3, 4])).to_pylist() == [3, 4]
assert not arrow_without_pandas()  # pandas loaded: nothing changes
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_nightly_job_never_imports_pandas(tmp_path: Path) -> None:
    write_day(tmp_path / "inbox", ("T01",), range(3))
    command = job_command(tmp_path, "--reports", str(tmp_path / "reports"))
    command[1:3] = ["-c", _PROBE]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "LOADED False" in done.stderr, done.stderr[-2000:]


def test_the_command_module_imports_no_engine() -> None:
    code = ("import sys, openers.nightly.cli\n"
            "print(sorted(m for m in ('numba', 'pandas', 'scipy', 'jinja2', 'audit.store', "
            "'audit.registry', 'ingest.batches', 'rich') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr


def test_preload_warms_compiled_code_first_in_its_own_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []

    def module(name: str, fail: bool = False) -> types.ModuleType:
        made = types.ModuleType(name)

        def warm_up() -> None:
            calls.append((name, threading.current_thread().name))
            if fail:
                raise RuntimeError("no compiler here")

        made.warm_up = warm_up  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, name, made)
        return made

    module("probe_broken", fail=True)
    module("probe_scanner")
    preload = Preload(modules=("probe_scanner", "no_such_module_here"),
                      compiled=("probe_broken", "probe_scanner"))
    preload.join()  # neither the failing warm-up nor the missing module escapes
    assert calls == [("probe_broken", "preload"), ("probe_scanner", "preload")]


def test_the_scanner_warm_up_compiles_what_the_ingest_calls() -> None:
    from ingest.scan import scanner

    scanner.warm_up()
    kernels = (scanner._scan_chunks, scanner.split_chunks)
    before = [list(k.signatures) for k in kernels]
    assert all(before)
    sample = Path(scanner.__file__).parents[1] / "samples" / "spec_example.log"
    data = np.frombuffer(sample.read_bytes(), dtype=np.uint8)
    assert len(scanner.scan(data).arrays) > 0  # a file's bytes, as the ingest passes them
    assert [list(k.signatures) for k in kernels] == before  # nothing new compiled
