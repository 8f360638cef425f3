"""How fast ``openers check`` audits hands, against pokerkit replaying the same hands.

Hands are dealt by pokerkit itself (fixed-limit five-card draw, antes, a bet and
four raises, 10/20), driven by random legal actions, and written in the hand log
format; seat 1 (left of the button) always opens with jacks or better, so both
replays agree on every turn. Then, in the same run:

- pokerkit replays each hand from its recorded operations (a fresh ``State``);
- our replay alone (``audit.replay.Replay``) replays the parsed records;
- the stages of a check one by one, to show what limits it: the reference parser
  (what ``check`` uses), the ingest fast path (columns only, no records), every
  hand rule on prebuilt replays, and the J rules on each deal;
- ``openers check --reference`` (``check_paths(fast=False)``: read + parse + replay +
  every registered rule for every hand) on a process pool;
- ``openers check`` (``check_paths``: the compiled fast path certifies ordinary clean
  hands, the engine audits the rest) on 1 worker and on the pool;
- the same ``openers check`` on a generated room (every code planted in 5% of the
  hands, 5% with unrecorded cards: both go to the engine), to show what realistic
  input costs.

Run: ``.venv/bin/python benchmarks/bench_audit.py [--hands 20000] [--workers 2]``. The
``openers check`` rows run in a fresh interpreter (after one call that loads the compiled
code), best of three; the CLI row is the whole command, interpreter start included.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from pokerkit import (
    Automation,
    BettingStructure,
    Deck,
    Opening,
    StandardHighHand,
    State,
    Street,
)

from audit.engine import audit_records
from audit.profiles import Profile, load_profile
from audit.replay import Replay
from audit.workers import no_cyclic_gc
from ingest.parser import parse_hand
from ingest.scan.scanner import scan
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR
from schemas.records import HandRecord

RANKS = "23456789TJQKA"
DECK = [r + s for r in RANKS for s in "cdhs"]
AUTOMATIONS = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
)
ROOT = Path(__file__).resolve().parents[1]
STACK = 100000  # cents: 1000.00, never all-in at 10/20
Op = tuple[str, str | None]


def new_state(players: int) -> State:
    """Fixed-limit five-card draw: ante 1, 10/20 (in cents), a bet and four raises."""
    return State(
        AUTOMATIONS, Deck.STANDARD, (StandardHighHand,),
        (Street(False, (False,) * 5, 0, False, Opening.POSITION, 1000, 5),
         Street(False, (), 0, True, Opening.POSITION, 2000, 5)),
        BettingStructure.FIXED_LIMIT, True, 100, (0,), 0, STACK, players,
    )


def _openers(cards: list[str]) -> bool:
    counts = [sum(c[0] == r for c in cards) for r in RANKS]
    pairs = [r for r, n in zip(RANKS, counts, strict=True) if n >= 2]
    return len(pairs) >= 2 or max(counts) >= 3 or any(RANKS.index(r) >= 9 for r in pairs)


def _pair_cards(cards: list[str]) -> set[str]:
    ranks = [c[0] for c in cards]
    return {c for c in cards if ranks.count(c[0]) >= 2}


class Simulator:
    """Deal one hand with pokerkit and write it in the log format."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def hand(self, number: int) -> tuple[str, int, list[Op]]:
        rng = self.rng
        n = rng.choice((3, 4, 5, 6))
        while True:
            deck = DECK[:]
            rng.shuffle(deck)
            if _openers(deck[:5]):
                break
        state = new_state(n)
        ops: list[Op] = []
        lines = [f"Hand: BENCH-{number}", f"Time: 2026-11-28T20:{number // 60 % 60:02d}:"
                 f"{number % 60:02d}-08:00", f"Table: BT{number}", "Game: Jacks or Better",
                 "Limit: 10/20", "Ante: 1", f"Button: {n}", "Openers: JJ"]
        lines += [f"Seat {i + 1}: P-{i + 1} ({STACK // 100})" for i in range(n)]
        lines += ["*** ANTES ***", *(f"Seat {i + 1}: antes 1" for i in range(n)), "*** DEAL ***"]
        hands = [deck[5 * i: 5 * i + 5] for i in range(n)]
        openers = sorted(_pair_cards(hands[0]))
        rest = deck[5 * n:]
        paid = [100] * n
        for i in range(n):
            ops.append(("deal_hole", "".join(hands[i])))
            state.deal_hole("".join(hands[i]))
            lines.append(f"Seat {i + 1}: [{' '.join(hands[i])}]")
        lines.append("*** BEFORE DRAW ***")
        folded = self._betting(state, ops, lines, paid, 1000, opener=True)
        if state.status and state.street_index == 1:
            lines.append("*** DRAW ***")
            while state.can_stand_pat_or_discard():
                drawer = state.stand_patter_or_discarder_index
                assert drawer is not None
                i = drawer
                keep = _pair_cards(hands[i]) if i == 0 else set(
                    rng.sample(hands[i], rng.randint(2, 5)))
                out = [c for c in hands[i] if c not in keep][:3]
                ops.append(("stand_pat_or_discard", "".join(out)))
                state.stand_pat_or_discard("".join(out))
                new = [rest.pop() for _ in out]
                if out:
                    lines.append(f"Seat {i + 1}: discards [{' '.join(out)}] draws "
                                 f"[{' '.join(new)}]")
                else:
                    lines.append(f"Seat {i + 1}: stands pat")
                hands[i] = [c for c in hands[i] if c not in out] + new
            while state.can_deal_hole():
                dealee = state.hole_dealee_index
                assert dealee is not None
                count = len(hands[dealee]) - len(state.hole_cards[dealee])
                cards = "".join(hands[dealee][-count:])
                ops.append(("deal_hole", cards))
                state.deal_hole(cards)
            lines.append("*** AFTER DRAW ***")
            folded = self._betting(state, ops, lines, paid, 2000, opener=False, folded=folded)
        live = [i for i in range(n) if i not in folded]
        lines.append("*** SHOWDOWN ***")
        if len(live) > 1:
            lines += [f"Seat {i + 1}: shows [{' '.join(hands[i])}]" for i in live]
        if 0 in folded or (len(live) == 1 and live[0] == 0):
            lines.append(f"Seat 1: shows openers [{' '.join(openers)}]")
        lines += ["*** RESULT ***", f"Pot: {_money(sum(paid))}"]
        for i in range(n):
            won = state.stacks[i] - (STACK - paid[i])
            if won > 0:
                lines.append(f"Seat {i + 1}: collects {_money(won)}")
        return "\n".join(lines), n, ops

    def _betting(self, state: State, ops: list[Op], lines: list[str], paid: list[int],
                 unit: int, opener: bool, folded: set[int] | None = None) -> set[int]:
        folded = set() if folded is None else folded
        rng = self.rng
        while state.actor_index is not None:
            i = state.actor_index
            top = max(state.bets)
            owed = top - state.bets[i]
            can_raise = state.can_complete_bet_or_raise_to()
            if opener and top == 0 and i == 0:
                choice = "raise"
            elif owed and rng.random() < 0.3 and state.can_fold():
                choice = "fold"
            elif can_raise and rng.random() < 0.25 and not (opener and top == 0):
                choice = "raise"
            else:
                choice = "call"
            if choice == "fold":
                ops.append(("fold", None))
                state.fold()
                folded.add(i)
                lines.append(f"Seat {i + 1}: folds")
            elif choice == "raise":
                ops.append(("complete_bet_or_raise_to", None))
                before = state.bets[i]
                state.complete_bet_or_raise_to()
                paid[i] += state.bets[i] - before
                lines.append(self._raise_line(i, top, unit, opener))
            else:
                ops.append(("check_or_call", None))
                state.check_or_call()
                paid[i] += owed
                lines.append(f"Seat {i + 1}: calls {_money(owed)}" if owed
                             else f"Seat {i + 1}: checks")
        return folded

    @staticmethod
    def _raise_line(i: int, top: int, unit: int, before_draw: bool) -> str:
        if top == 0:
            return f"Seat {i + 1}: {'opens' if before_draw else 'bets'} {_money(unit)}"
        return f"Seat {i + 1}: raises {_money(unit)} to {_money(top + unit)}"


def _money(cents: int) -> str:
    whole, frac = divmod(cents, 100)
    return f"{whole}.{frac:02d}" if frac else str(whole)


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall time and this process's CPU time (the latter is fair on a busy machine).

    The cyclic garbage collector is paused for every row, as ``openers check`` pauses
    it per batch: otherwise its scans of the live records dominate the stage rows.
    """
    gc.collect()
    with no_cyclic_gc():
        wall, cpu = time.perf_counter(), time.process_time()
        value = fn()
        return time.perf_counter() - wall, time.process_time() - cpu, value


def run_hand_rules(records: list[HandRecord], profile: Profile) -> int:
    """The Python replay's facts and every hand rule on them (the reference path);
    results count."""
    return len(audit_records(records, profile, sequences=False, reference=True))


def run_sequence_rules(records: list[HandRecord], profile: Profile) -> int:
    """Hand and J rules over the reference facts (each bench deal is its table's first)."""
    return len(audit_records(records, profile, reference=True))


def main() -> None:
    """Generate, then time pokerkit, our replay, and the full check."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    sim = Simulator(random.Random(args.seed))
    hands = [sim.hand(k) for k in range(args.hands)]
    texts = [h[0] for h in hands]
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        per_file = max(1, len(texts) // 8)
        for f in range(0, len(texts), per_file):
            path = Path(tmp) / f"bench_{f // per_file}.log"
            path.write_text("\n\n".join(texts[f:f + per_file]) + "\n", encoding="utf-8")
            files.append(str(path))

        def pokerkit_replay() -> None:
            for _, players, ops in hands:
                state = new_state(players)
                for name, arg in ops:
                    method = getattr(state, name)
                    method(arg) if arg is not None else method()

        records = [parse_hand(t) for t in texts]
        robert = load_profile("robert")
        t_pk, c_pk, _ = _timed(pokerkit_replay)
        t_replay, c_replay, _ = _timed(lambda: [Replay(r) for r in records])
        t_parse, c_parse, _ = _timed(lambda: [parse_hand(t) for t in texts])
        joined = np.frombuffer("\n\n".join(texts).encode(), dtype=np.uint8)
        t_fast, c_fast, _ = _timed(lambda: scan(joined))
        t_rules, c_rules, _ = _timed(lambda: run_hand_rules(records, robert))
        t_seq, c_seq, _ = _timed(lambda: run_sequence_rules(records, robert))
        ref = _check_elsewhere(files, args.workers, fast=False, runs=1)
        one = _check_elsewhere(files, 1)
        pool = _check_elsewhere(files, args.workers)
        cli_wall = _cli(files, args.workers)
        room, room_hands = _generated_room(Path(tmp), args.hands)
        room_check = _check_elsewhere([str(room)], args.workers)
    n = len(hands)
    print(f"hands: {n} ({pool['hands']} checked, {pool['findings']} findings, "
          f"{pool['unreadable']} unreadable); load average {os.getloadavg()[0]:.1f}")
    header = ("", "wall hands/s", "x pokerkit", "cpu hands/s", "x pokerkit", "cpu us/hand")
    print(f"{header[0]:36s}" + "".join(f"{h:>13s}" for h in header[1:]))
    for label, wall, cpu in (
        ("pokerkit replay", t_pk, c_pk),
        ("our replay alone (1 core)", t_replay, c_replay),
        ("parse alone (1 core)", t_parse, c_parse),
        ("compiled scanner, no records", t_fast, c_fast),
        ("reference facts + hand rules (1 core)", t_rules, c_rules),
        ("reference facts + all rules (1 core)", t_seq, c_seq),
        (f"check --reference ({args.workers} workers)", ref["wall"], None),
        ("openers check (1 worker)", one["wall"], one["cpu"]),
        (f"openers check ({args.workers} workers)", pool["wall"], None),
        (f"  same, CLI incl. start ({args.workers} w.)", cli_wall, None),
    ):
        cpu_part = f"{n / cpu:13.0f}{c_pk / cpu:13.1f}{cpu / n * 1e6:13.0f}" if cpu else ""
        print(f"{label:36s}{n / wall:13.0f}{t_pk / wall:13.1f}{cpu_part}")
    print(f"generated room, {room_hands} hands ({room_check['flagged']} with findings or "
          "unverifiable, which the engine audits):")
    label = f"openers check ({args.workers} workers)"
    print(f"{label:36s}{room_hands / room_check['wall']:13.0f}"
          f"{t_pk / n * room_hands / room_check['wall']:13.1f}")


#: Run in a fresh interpreter: the fast path's pool forks its workers, and forking this
#: benchmark's process (gigabytes of records and pokerkit states) would measure the
#: copy of its page tables, not the check. The first call loads the compiled code.
_CHILD = """
import json, sys, time
from audit.batch import check_paths
from audit.profiles import load_profile
files, workers, fast, runs = json.loads(sys.argv[1])
robert = load_profile("robert")
check_paths(files[:1], robert, workers=1, fast=fast)
best = None
for _ in range(runs):
    wall, cpu = time.perf_counter(), time.process_time()
    report = check_paths(files, robert, workers=workers, fast=fast)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if best is None or wall < best[0]:
        best = (wall, cpu)
print(json.dumps({"wall": best[0], "cpu": best[1], "hands": report.hands,
                  "findings": sum(len(r.findings) for r in report.results),
                  "flagged": len(report.results), "unreadable": len(report.problems)}))
"""


def _check_elsewhere(files: list[str], workers: int, fast: bool = True,
                     runs: int = 3) -> dict[str, Any]:
    """``check_paths`` timed in a fresh interpreter (best wall time of ``runs``)."""
    done = subprocess.run([sys.executable, "-c", _CHILD,
                           json.dumps([files, workers, fast, runs])],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _cli(files: list[str], workers: int) -> float:
    """Wall seconds of the ``openers check`` command itself, interpreter start included."""
    start = time.perf_counter()
    subprocess.run([str(Path(sys.executable).with_name("openers")), "check",
                    "--workers", str(workers), *files], capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


def _generated_room(tmp: Path, hands: int) -> tuple[Path, int]:
    """A generated room: 5% of hands break a rule, 5% have unrecorded cards."""
    out = tmp / "room"
    generate(GenerateConfig(hands=hands, tables=8, seed=3, violations=0.05,
                            unrecorded_share=0.05), out)
    return out / LOGS_DIR, hands


if __name__ == "__main__":
    main()
