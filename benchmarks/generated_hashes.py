"""Print a sha256 per generated room, to compare the generator's bytes between two trees.

Run: ``.venv/bin/python benchmarks/generated_hashes.py OUT`` in each tree (a base from
``git archive``: ``PYTHONPATH=BASE python BASE/benchmarks/generated_hashes.py OUT``) and
diff the outputs. Rooms: every profile on one and two workers, each catalogue code
alone, cheats of every kind on one and two workers, heavy broken input and ``??``.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
from pathlib import Path

from openers.generator import GenerateConfig, generate
from openers.generator.cheats.config import CheatConfig, Collusion, DealerMode
from openers.generator.config import ALL_CODES

#: Codes that only some houses judge, planted under a house that does.
_HOUSE_FOR = {"O211": "foster", "J508": "laws"}


def rooms() -> dict[str, GenerateConfig]:
    """The compared runs, by name."""
    cases: dict[str, GenerateConfig] = {}
    for profile in ("robert", "house23", "foster", "laws"):
        for workers in (1, 2):
            cases[f"{profile}-w{workers}"] = GenerateConfig(
                hands=3000, tables=5, seed=2026, profile=profile, violations=0.05,
                unrecorded_share=0.05, broken_share=0.01, workers=workers)
    for code in ALL_CODES:
        cases[f"code-{code}"] = GenerateConfig(
            hands=200, tables=2, seed=31, profile=_HOUSE_FOR.get(code, "robert"),
            violations=0.25, codes=(code,), joker_share=0.5)
    cheats = CheatConfig(crooked_dealers=1, colluders=2, crooked_mode=DealerMode.BOTH,
                         collusion_kinds=tuple(Collusion))
    for workers in (1, 2):
        cases[f"cheats-w{workers}"] = GenerateConfig(hands=2000, tables=4, seed=4,
                                                     workers=workers, cheats=cheats)
    cases["broken-heavy"] = GenerateConfig(hands=1200, tables=3, seed=41, broken_share=0.15,
                                           unrecorded_share=0.3)
    return cases


def digest(out: Path) -> str:
    """One hash over every file's path and bytes under ``out``."""
    h = hashlib.sha256()
    for path in sorted(out.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(out)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def main() -> None:
    """Generate every room under OUT (emptied first) and print its hash."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    for name, cfg in rooms().items():
        generate(cfg, args.out / name)
        print(name, digest(args.out / name))


if __name__ == "__main__":
    main()
