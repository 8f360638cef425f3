"""Power of the integrity tests: how many hands a planted cheat needs before it is flagged.

One room (default 200,000 hands, 8 tables) with one crooked dealer favouring one
player on 5% of his deals with him (best of 20 hands, ``--mode deal``) and one
colluding pair soft-playing in 30% of their shared pots. The analysis runs on growing
prefixes of the room (by local day) and on the whole of it, at FDR 5%, and prints for
each prefix which cheats are flagged (and by which test, with the cell's sample), then
recall and precision on the whole room and every innocent flagged.

Run (CPU-heavy: about 5 minutes on 2 cores for the room, then the analyses):
``nice -n 10 .venv/bin/python benchmarks/integrity_power.py --dir /tmp/integrity-power``
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import duckdb
from integrity_rooms import labels, matches, room, score, workers_default

from audit.integrity.engine import Options, run_integrity
from audit.integrity.test import Settings

LOCAL_DAY = "CAST(timezone('UTC', time) + to_minutes(utc_offset_minutes) AS DATE)"


def cut_days(con: duckdb.DuckDBPyConnection, points: int) -> list[tuple[date, int]]:
    """``points`` local days splitting the room into about equal prefixes, with the hands
    on or before each."""
    rows = con.execute(f"SELECT {LOCAL_DAY} AS day, count(*) FROM stg_hands GROUP BY day "
                       "ORDER BY day").fetchall()
    total = sum(n for _, n in rows)
    out: list[tuple[date, int]] = []
    seen = 0
    target = 1
    for day, n in rows:
        seen += n
        if seen >= total * target / points:
            out.append((day, seen))
            target += 1
    return out


def main() -> None:
    """Print the flagged cheats per prefix, then recall and precision on the whole room."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, required=True, help="Folder for the room.")
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--share", type=float, default=0.05, help="Crooked dealer's share.")
    parser.add_argument("--mode", default="deal", help="deal, draw or both.")
    parser.add_argument("--strength", type=int, default=20)
    parser.add_argument("--collusion-share", type=float, default=0.3)
    parser.add_argument("--collusion", default="soft")
    parser.add_argument("--violations", type=float, default=0.0,
                        help="Share of deals with a planted rule violation.")
    parser.add_argument("--fdr", type=float, default=0.05)
    parser.add_argument("--points", type=int, default=8, help="Prefixes analysed.")
    parser.add_argument("--workers", type=int, default=workers_default())
    args = parser.parse_args()
    cheats = ("--crooked-dealers", "1", "--crooked-share", str(args.share), "--crooked-mode",
              args.mode, "--crooked-strength", str(args.strength), "--colluders", "1",
              "--collusion-share", str(args.collusion_share), "--collusion", args.collusion)
    store = room(args.dir, hands=args.hands, tables=args.tables, seed=args.seed,
                 workers=args.workers, cheats=cheats, violations=args.violations)
    planted = labels(args.dir)
    for i, c in enumerate(planted):
        who = c.get("players") or [c["dealer_id"], c["player_id"]]
        print(f"cheat {i}: {c['kind']} {' & '.join(who)} at {c['table_id']}: "
              f"{c.get('deals_with_player', c.get('deals_together'))} deals, acted {c['acted']}")
    con = duckdb.connect(str(store), read_only=True)
    first_flagged: dict[tuple[int, str], tuple[int, int]] = {}  # (cheat, test) -> hands, n
    settings = Settings(fdr=args.fdr)
    for day, hands in cut_days(con, args.points):
        result = run_integrity(con, Options(until=day, settings=settings))
        found = score(result.alerts, planted)
        line = []
        for i in range(len(planted)):
            hits = [a for a in result.alerts if matches(a, planted[i])]
            if hits:
                line.append(f"cheat {i} by " + ", ".join(
                    f"{a.code} {a.level.value} (n={a.n}, q={a.q_value:.1g})" for a in hits))
            for a in hits:
                first_flagged.setdefault((i, a.code), (hands, a.n))
        print(f"up to {day} ({hands:,} hands, {result.seconds:.0f} s): "
              f"{'; '.join(line) or 'nothing flagged'}; innocents flagged: {len(found.innocent)}")
    result = run_integrity(con, Options(settings=settings))
    found = score(result.alerts, planted)
    print(f"\nwhole room: {result.hands:,} hands, {len(result.alerts)} alerts, "
          f"recall {found.recall:.2f}, precision {found.precision:.2f}")
    for i in range(len(planted)):
        tests = sorted((hands, code, n) for (j, code), (hands, n) in first_flagged.items()
                       if j == i)
        print(f"cheat {i}: " + ("; ".join(f"{code} first flagged with {hands:,} room hands "
                                          f"(its own sample then: {n:,})"
                                          for hands, code, n in tests) or "not flagged"))
    for a in result.alerts:
        tag = "HIT" if any(matches(a, c) for c in planted) else "INNOCENT"
        print(f"  {tag:8s} {a.rank:>3} {a.code} {a.level.value:16s} q={a.q_value:.2g} "
              f"{a.message[:150]}")


if __name__ == "__main__":
    main()
