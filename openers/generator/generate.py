"""Run a whole generation: tables (in worker processes), files, labels, a summary.

Output does not depend on the number of workers: each table is generated from its
own seeds, writes its own files, and the labels are joined in table order.
"""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

from audit.profiles import load_profile
from openers.generator.cheats.labels import INTEGRITY_LABELS_FILE, write_labels
from openers.generator.config import GenerateConfig
from openers.generator.output import TableFiles, write_day
from openers.generator.plants import registry
from openers.generator.table import TableSim

LABELS_FILE = "labels.jsonl"
LOGS_DIR = "logs"


@dataclass(slots=True)
class Summary:
    """What a run wrote."""

    hands: int = 0
    files: int = 0
    planted: dict[str, int] = field(default_factory=dict)
    broken: dict[str, int] = field(default_factory=dict)


def generate_table(cfg: GenerateConfig, index: int, out: Path) -> TableFiles:
    """Generate table ``index``'s deals and write its day files under ``out/logs``."""
    profile = load_profile(cfg.profile)
    sim = TableSim(cfg, profile, index, registry())
    rng = random.Random(f"{cfg.seed}:output:{index}")
    crlf = rng.random() < 0.2
    result = TableFiles()
    logs = out / LOGS_DIR
    deals = sim.deals(cfg.hands_for_table(index))
    for day, group in groupby(deals, key=lambda d: d.day):
        write_day(logs, f"{sim.table.table_id}_{day}.log", list(group), rng,
                  cfg.unrecorded_share, cfg.broken_share, crlf, result)
    if sim.cheater is not None:
        result.integrity = sim.cheater.labels()
    return result


def _run_table(args: tuple[GenerateConfig, int, str]) -> TableFiles:
    cfg, index, out = args
    return generate_table(cfg, index, Path(out))


def generate(cfg: GenerateConfig, out: Path) -> Summary:
    """Write ``out/logs/*.log`` and ``out/labels.jsonl``; return the summary."""
    load_profile(cfg.profile)  # fail early on an unknown profile
    (out / LOGS_DIR).mkdir(parents=True, exist_ok=True)
    jobs = [(cfg, i, str(out)) for i in range(cfg.tables)]
    if cfg.workers > 1 and cfg.tables > 1:
        with ProcessPoolExecutor(max_workers=cfg.workers) as pool:
            results = list(pool.map(_run_table, jobs))
    else:
        results = [_run_table(job) for job in jobs]
    summary = Summary()
    with (out / LABELS_FILE).open("w", encoding="utf-8", newline="\n") as labels:
        for result in results:
            for line in result.labels:
                labels.write(line + "\n")
            summary.hands += result.hands
            summary.files += result.files
            for code, n in result.planted.items():
                summary.planted[code] = summary.planted.get(code, 0) + n
            for kind, n in result.broken.items():
                summary.broken[kind] = summary.broken.get(kind, 0) + n
    if cfg.cheats.any:
        write_labels(out / INTEGRITY_LABELS_FILE, cfg, [c for r in results for c in r.integrity])
    summary.planted = dict(sorted(summary.planted.items()))
    summary.broken = dict(sorted(summary.broken.items()))
    return summary
