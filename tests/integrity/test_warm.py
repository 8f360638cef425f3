"""The integrity pass compiles at ``openers warmup``, never again at the first night."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from contextlib import closing

import numpy as np

from audit.integrity.frames import Batch, Names, read_batches
from audit.integrity.warm import SAMPLE
from audit.profiles import load_profile
from ingest.load import ingest_paths
from ingest.scan.cache import warm_up_functions
from schemas.store import connect
from tests.integrity.conftest import Room

#: In a fresh interpreter: warm up, then analyse a real store; print each kernel's
#: signatures after each step.
PROBE = """
import json, sys
import duckdb
from audit.facts.evaluate import strengths_of_hands
from audit.integrity.engine import Options, run_integrity
from audit.integrity.prng import uniforms_of
from audit.integrity.replay_kernel import replay_hands
from audit.integrity.warm import warm_up

kernels = (replay_hands, strengths_of_hands, uniforms_of)
def signatures():
    return [[str(s) for s in k.signatures] for k in kernels]
warm_up()
warmed = signatures()
con = duckdb.connect(sys.argv[1], read_only=True)
result = run_integrity(con, Options(workers=0))
print(json.dumps({"warmed": warmed, "after": signatures(), "hands": result.hands}))
"""


def test_openers_warmup_runs_the_integrity_warm_up() -> None:
    assert "audit.integrity.warm.warm_up" in warm_up_functions()


def test_a_night_after_the_warm_up_compiles_nothing_more(clean_room: Room) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, str(clean_room.store)],
                         capture_output=True, text=True, check=True).stdout
    got = json.loads(out.splitlines()[-1])
    assert got["hands"] > 0
    assert all(len(kernel) == 1 for kernel in got["warmed"]), got["warmed"]
    assert got["after"] == got["warmed"]


def _arrays_typed_alike(batch: Batch) -> None:
    for field in dataclasses.fields(batch):
        value = getattr(batch, field.name)
        if isinstance(value, np.ndarray):
            assert value.flags.writeable and value.flags.c_contiguous, field.name


def test_every_batch_gives_the_kernels_the_same_array_types(clean_room: Room) -> None:
    """Read-only (zero-copy) or writable depends on how DuckDB chunked a column: a batch of
    one hand and a batch of thousands must still look the same to compiled code."""
    profile = load_profile("robert")
    with closing(connect(":memory:")) as con:
        ingest_paths([SAMPLE], con)
        one = list(read_batches(con, profile, Names()))
    with closing(clean_room.connect()) as con:
        many = list(read_batches(con, profile, Names(), batch_hands=1500))
    assert len(one) == 1 and len(one[0]) == 1 and len(many) > 1
    for batch in [*one, *many]:
        _arrays_typed_alike(batch)
