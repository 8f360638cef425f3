"""Small generated rooms in stores, built once per test process through the real pipeline.

``cheat_room``: 4,000 hands at 2 tables, a crooked dealer at T01 (half his deals to his
confederate arranged, best of 50) and a colluding pair at T02 cheating in every deal
together (all four behaviours): strong enough to be found in a small room. ``clean_room``:
the same room size with nobody cheating.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

from audit.integrity.engine import IntegrityResult, Options, run_integrity
from ingest.load import ingest_paths
from openers.generator import GenerateConfig, generate
from openers.generator.cheats import CheatConfig, Collusion

ROOM_HANDS = 4000


@dataclass(frozen=True)
class Room:
    """A generated room and its store."""

    folder: Path
    store: Path
    cheats: list[dict[str, Any]]

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A read-only connection on the store."""
        return duckdb.connect(str(self.store), read_only=True)

    def analyse(self, options: Options) -> IntegrityResult:
        """The integrity analysis of the store under ``options``."""
        con = self.connect()
        try:
            return run_integrity(con, options)
        finally:
            con.close()


def build_room(folder: Path, cheats: CheatConfig, seed: int) -> Room:
    """Generate and ingest a room."""
    generate(GenerateConfig(hands=ROOM_HANDS, tables=2, seed=seed, cheats=cheats), folder)
    store = folder / "openers.duckdb"
    ingest_paths([folder / "logs"], store)
    labels = folder / "integrity_labels.json"
    planted = json.loads(labels.read_text())["cheats"] if labels.exists() else []
    return Room(folder, store, planted)


STRONG_CHEATS = CheatConfig(
    crooked_dealers=1, crooked_share=0.5, crooked_strength=50, colluders=1,
    collusion_share=1.0, collusion_kinds=tuple(Collusion),
)


def bits(value: object) -> object:
    """A value with every float as its bits (so -0.0 and nan compare exactly)."""
    if isinstance(value, float):
        return ("float", np.float64(value).view(np.int64).item())
    if isinstance(value, (list, tuple)):
        return tuple(bits(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, bits(v)) for k, v in value.items())
    if hasattr(value, "__dataclass_fields__"):
        return (type(value).__name__, bits({k: getattr(value, k)
                                            for k in value.__dataclass_fields__}))
    return value


@pytest.fixture(scope="session")
def cheat_room(tmp_path_factory: pytest.TempPathFactory) -> Room:
    """The room with a crooked dealer and a colluding pair."""
    return build_room(tmp_path_factory.mktemp("cheats"), STRONG_CHEATS, seed=5)


@pytest.fixture(scope="session")
def clean_room(tmp_path_factory: pytest.TempPathFactory) -> Room:
    """The same kind of room with nobody cheating."""
    return build_room(tmp_path_factory.mktemp("clean"), CheatConfig(), seed=6)


@pytest.fixture(scope="session")
def cheat_result(cheat_room: Room) -> IntegrityResult:
    """The analysis of the cheat room."""
    return cheat_room.analyse(Options())
