"""The hand rules of this tree against another version's, interleaved in one process.

    .venv/bin/python benchmarks/bench_rules_against.py --base DIR [--room DIR]
        [--rules CODES] [--repeat 7] [--batches N]

``DIR`` is another version of the repository (``git archive COMMIT | tar -x -C DIR``).
Each batch of the room (as ``openers check`` cuts it) is read and replayed once by this
tree; then both versions' rule modules judge the same facts, in alternating order, so
the machine's load falls on both alike (a shared machine's figures drift by a third from
one minute to the next; run back to back, whole commands compare worse than this).

- without ``--rules``: the whole hand-rule stage, each version on a fresh ``Batch`` of
  the batch's facts (views and verb rows built afresh: the stage as a worker runs it);
- with ``--rules B104,D307``: each rule alone, the least of ``--repeat`` runs on one
  ``Batch`` (the views already built: the rule's own column passes and messages), after
  checking that both versions report the same on every batch.

Only the rule modules come from ``DIR``: the framework (``Batch``, the views, the
engine) is this tree's, so a change there is not measured here.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
import time
from pathlib import Path

from bench_check import _batches, _read, _Stages

from audit.engine import AuditResult, run_rules
from audit.facts.arrays import TableMemory
from audit.facts.context import Batch
from audit.facts.replay import replay_facts
from audit.profiles import load_profile
from audit.registry import hand_rules
from audit.rule import Rule
from audit.workers import no_cyclic_gc


def _base_rule(rule: Rule, base: Path) -> Rule:
    """The same code's rule class as the other version's module defines it."""
    path = base / (type(rule).__module__.replace(".", "/") + ".py")
    spec = importlib.util.spec_from_file_location(f"base_{rule.code}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    found = [c for _, c in inspect.getmembers(module, inspect.isclass)
             if issubclass(c, Rule) and getattr(c, "code", None) == rule.code]
    return found[0]()


def _reported(results: dict[int, AuditResult]) -> dict[int, list[object]]:
    return {hand: [f.model_dump() for f in r.findings] + [u.model_dump() for u in r.unverifiable]
            for hand, r in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="another version of the repository")
    parser.add_argument("--room", default="/tmp/dirty100k")
    parser.add_argument("--rules", default="", help="comma-separated codes: each alone")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batches", type=int, default=0, help="the first N batches (0: all)")
    args = parser.parse_args()
    files = sorted((Path(args.room) / "logs").iterdir())
    profile = load_profile("robert")
    codes = [c.strip().upper() for c in args.rules.split(",") if c.strip()]
    new = [r for r in hand_rules(profile) if not codes or r.code in codes]
    old = [_base_rule(r, Path(args.base)) for r in new]
    seconds = {(which, r.code): 0.0 for which in (0, 1) for r in new}
    memory, hands = TableMemory(), 0
    batches = _batches(files, 2)
    with no_cyclic_gc():
        for k, units in enumerate(batches[:args.batches or len(batches)]):
            arrays, words, _, _ = _read(units, _Stages(), time.process_time(), memory, [])
            facts = replay_facts(arrays, profile, memory)
            hands += len(facts)
            if not codes:
                for which in ((0, 1) if k % 2 else (1, 0)):
                    ctx = Batch(facts, profile, words)
                    start = time.process_time()
                    run_rules(ctx, old if which == 0 else new)
                    seconds[which, "all"] = (seconds.get((which, "all"), 0.0)
                                             + time.process_time() - start)
                continue
            ctx = Batch(facts, profile, words)
            for before, after in zip(old, new, strict=True):
                if _reported(run_rules(ctx, [before])) != _reported(run_rules(ctx, [after])):
                    raise SystemExit(f"{after.code} reports differently on batch {k}")
                runs: dict[int, list[float]] = {0: [], 1: []}
                for _ in range(args.repeat):
                    for which, rule in ((0, before), (1, after)):
                        start = time.perf_counter()
                        run_rules(ctx, [rule])
                        runs[which].append(time.perf_counter() - start)
                for which in (0, 1):
                    seconds[which, after.code] += min(runs[which])
    names = ["all"] if not codes else [r.code for r in new]
    print(f"{hands} hands; us/hand, {args.base} -> this tree:")
    for name in names:
        print(f"  {name:<4} {seconds[0, name] / hands * 1e6:7.3f} -> "
              f"{seconds[1, name] / hands * 1e6:7.3f}")


if __name__ == "__main__":
    main()
