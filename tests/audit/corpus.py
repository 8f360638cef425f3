"""Generated hands for the fast path's tests, parsed by the reference reader and cached.

``corpus(profile, ...)`` runs the generator once per set of arguments in a process
(the files live in a temporary directory for the process's lifetime) and returns
every readable hand as a record, in file order, plus the unreadable chunks.
``reference_clean`` says whether the reference engine passes a hand with no
finding, nothing unverifiable and no error: what a certificate must imply.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from audit.engine import AuditResult, audit_records
from audit.profiles import Profile, load_profile
from ingest.reader import QuarantineItem, read_path
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR
from schemas.records import HandRecord

_ROOT = Path(tempfile.mkdtemp(prefix="openers-fast-"))
atexit.register(shutil.rmtree, _ROOT, True)


@dataclass(frozen=True)
class Corpus:
    """A generated room: its log files, readable hands and unreadable chunks."""

    files: tuple[Path, ...]
    records: tuple[HandRecord, ...]
    problems: tuple[QuarantineItem, ...]


@cache
def corpus(profile: str = "robert", hands: int = 2000, seed: int = 1,
           violations: float = 0.05, unrecorded: float = 0.05, broken: float = 0.0,
           tables: int = 6) -> Corpus:
    """A generated room (cached per process for the same arguments)."""
    out = _ROOT / f"{profile}-{hands}-{seed}-{violations}-{unrecorded}-{broken}-{tables}"
    generate(GenerateConfig(hands=hands, tables=tables, seed=seed, profile=profile,
                            violations=violations, unrecorded_share=unrecorded,
                            broken_share=broken), out)
    files = tuple(sorted((out / LOGS_DIR).iterdir()))
    records: list[HandRecord] = []
    problems: list[QuarantineItem] = []
    for path in files:
        for got in read_path(path):
            if isinstance(got, QuarantineItem):
                problems.append(got)
            else:
                records.append(got.record)
    return Corpus(files, tuple(records), tuple(problems))


def is_clean(result: AuditResult) -> bool:
    """No finding, nothing unverifiable, no rule crash."""
    return not (result.findings or result.unverifiable or result.errors)


def hand_results(records: tuple[HandRecord, ...], profile: Profile) -> list[AuditResult]:
    """The reference path's per-hand results (hand rules only), in order."""
    return audit_records(records, profile, sequences=False, reference=True)


def full_results(records: tuple[HandRecord, ...], profile: Profile) -> list[AuditResult]:
    """The reference path's results, J rules included, one per hand, in order."""
    return audit_records(records, profile, reference=True)


def profile(name: str) -> Profile:
    """A built-in profile (cached by ``load_profile``'s callers is not needed: it is cheap)."""
    return load_profile(name)
