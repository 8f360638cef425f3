"""Shared by the integrity benchmarks: generated rooms in stores, and scoring against labels.

``room(folder, ...)`` runs the real commands (``openers generate`` then ``openers
ingest``) unless ``folder/openers.duckdb`` is already there from the same arguments
(``folder/room.json`` records them), so several benchmarks can share a room.
``score(alerts, labels)`` matches alerts to the planted cheats of
``integrity_labels.json``: an alert is a hit when it names a cheat's people (the
crooked dealer with or without his confederate, or the confederate alone; both players
of a colluding pair); every other alert flags an innocent.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.integrity.model import Alert

OPENERS = str(Path(sys.executable).with_name("openers"))


def run(*args: str) -> float:
    """Run an ``openers`` command; returns its wall-clock seconds."""
    started = time.perf_counter()
    subprocess.run([OPENERS, *args], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def room(folder: Path, *, hands: int, tables: int, seed: int, workers: int,
         cheats: tuple[str, ...] = (), violations: float = 0.0) -> Path:
    """A store of a generated room (made once per argument set); returns its path.

    ``violations``: the share of deals with a planted rule violation (``openers generate
    --violations``), as in the rooms the nightly job sees; none by default.
    """
    store = folder / "openers.duckdb"
    wanted: dict[str, Any] = {"hands": hands, "tables": tables, "seed": seed,
                              "cheats": list(cheats)}
    if violations:  # rooms made before the option keep their marker
        wanted["violations"] = violations
    marker = folder / "room.json"
    if store.exists() and marker.exists() and json.loads(marker.read_text()) == wanted:
        return store
    folder.mkdir(parents=True, exist_ok=True)
    for leftover in (store, Path(f"{store}.wal")):
        leftover.unlink(missing_ok=True)
    gen = run("generate", "--hands", str(hands), "--tables", str(tables), "--seed", str(seed),
              "--out", str(folder / "room"), "--workers", str(workers),
              "--violations", str(violations), *cheats)
    ing = run("ingest", str(folder / "room" / "logs"), "--db", str(store))
    print(f"  room {folder.name}: generated in {gen:.0f} s, ingested in {ing:.0f} s",
          file=sys.stderr)
    marker.write_text(json.dumps(wanted))
    return store


def merge_rooms(rooms: list[Path], out: Path, workers: int) -> Path:
    """One store of several generated rooms, each renamed into its own namespace.

    Generated rooms reuse ids (every room has a table T01, a dealer D-4000, a player
    P-010001 and hands BCY-T01-...); room ``i``'s become R{i}T01, R{i}D-4000,
    R{i}P-010001 and R{i}-T01-..., so the store holds every room's hands side by side,
    as one big room of independently generated deals (no hand is a copy of another).
    """
    store = out / "openers.duckdb"
    marker = out / "room.json"
    wanted = {"merged": [str(r) for r in rooms]}
    if store.exists() and marker.exists() and json.loads(marker.read_text()) == wanted:
        return store
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for i, folder in enumerate(rooms, 1):
        rules = ((re.compile(r"\bBCY-T(\d+)-"), rf"R{i}-T\1-"),
                 (re.compile(r"^Table: T", re.M), f"Table: R{i}T"),
                 (re.compile(r"\bD-(\d+)\b"), rf"R{i}D-\1"),
                 (re.compile(r"\bP-(\d+)\b"), rf"R{i}P-\1"))
        for log in sorted((folder / "room" / "logs").glob("*.log")):
            text = log.read_text(encoding="utf-8")
            for pattern, replacement in rules:
                text = pattern.sub(replacement, text)
            (logs / f"R{i}{log.name}").write_text(text, encoding="utf-8", newline="")
    for leftover in (store, Path(f"{store}.wal")):
        leftover.unlink(missing_ok=True)
    seconds = run("ingest", str(logs), "--db", str(store))
    print(f"  merged {len(rooms)} rooms into {store}: ingested in {seconds:.0f} s",
          file=sys.stderr)
    marker.write_text(json.dumps(wanted))
    return store


def labels(folder: Path) -> list[dict[str, Any]]:
    """The planted cheats of a room (empty for a clean room)."""
    path = folder / "room" / "integrity_labels.json"
    return json.loads(path.read_text())["cheats"] if path.exists() else []


def matches(alert: Alert, cheat: dict[str, Any]) -> bool:
    """Whether the alert names the cheat's people (or, for a dealer, his table)."""
    s = alert.subject
    if cheat["kind"] == "crooked-dealer":
        if s.partner_id is not None:
            return False
        if s.dealer_id is not None:
            return s.dealer_id == cheat["dealer_id"] and s.player_id in (None, cheat["player_id"])
        if s.table_id is not None:
            return s.table_id == cheat["table_id"]
        return s.player_id == cheat["player_id"]
    return {s.player_id, s.partner_id} == set(cheat["players"])


@dataclass
class Score:
    """Recall and precision of a run's alerts against the planted cheats."""

    cheats: int
    found: list[int] = field(default_factory=list)  #: indices of cheats with a hit
    hits: int = 0  #: alerts naming a cheat
    innocent: list[Alert] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return len(self.found) / self.cheats if self.cheats else 1.0

    @property
    def precision(self) -> float:
        total = self.hits + len(self.innocent)
        return self.hits / total if total else 1.0


def score(alerts: list[Alert], cheats: list[dict[str, Any]]) -> Score:
    """Match alerts to cheats."""
    out = Score(len(cheats))
    for alert in alerts:
        hit = [i for i, c in enumerate(cheats) if matches(alert, c)]
        if hit:
            out.hits += 1
            out.found.extend(i for i in hit if i not in out.found)
        else:
            out.innocent.append(alert)
    return out


def workers_default() -> int:
    """Processes for the generator (the machine's cores)."""
    return len(os.sched_getaffinity(0))
