"""Small, valid hand logs for the nightly and report tests (format spec example based).

The generator makes realistic days; these tests need something smaller they fully
control: hands whose ids, times and tables they choose, and one planted kind of
fault (an over-cap raise, B101) at positions they choose.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

_TZ = timezone(timedelta(hours=-8))
START = datetime(2026, 11, 28, 20, 0, 0, tzinfo=_TZ)

_HEADER = """Hand: {hand_id}
Time: {time}
Room: Bay City Card Club
Table: {table}
Dealer: D-{dealer}
Game: Jacks or Better
Limit: 10/20
Ante: 1
Joker: yes
Button: 5
Openers: JJ
Seat 1: P-10023 (412)
Seat 3: P-30988 (96)
Seat 5: P-41002 (1020)
Seat 6: P-50231 (75)
*** ANTES ***
Seat 1: antes 1
Seat 3: antes 1
Seat 5: antes 1
Seat 6: antes 1
*** DEAL ***
Seat 1: [Jh Js 4c 8d 2s]
Seat 3: [Kd Kc 7s 7h 2d]
Seat 5: [Ac Jk 9s 5d 3c]
Seat 6: [Qs Td 6h 4s 3h]
"""

_CLEAN = """*** BEFORE DRAW ***
Seat 6: checks
Seat 1: opens 10
Seat 3: raises 10 to 20
Seat 5: calls 20
Seat 6: folds
Seat 1: calls 10
*** DRAW ***
Dealer: burns [2h]
Seat 1: discards [4c 8d 2s] draws [Qh 9h 9c]
Seat 3: discards [2d] draws [Kh]
Seat 5: discards [9s 5d 3c] draws [Ad 8h 7c]
*** AFTER DRAW ***
Seat 1: checks
Seat 3: bets 20
Seat 5: raises 20 to 40
Seat 1: folds
Seat 3: calls 20
*** SHOWDOWN ***
Seat 3: shows [Kd Kc Kh 7s 7h]
Seat 5: mucks
Seat 1: shows openers [Jh Js]
*** RESULT ***
Pot: 144
Rake: 4
Seat 3: collects 140
"""

# A bet and five raises with four seats in: the sixth bet (Seat 3 to 60) is over the cap.
_OVER_CAP = """*** BEFORE DRAW ***
Seat 6: checks
Seat 1: opens 10
Seat 3: raises 10 to 20
Seat 5: raises 10 to 30
Seat 6: raises 10 to 40
Seat 1: raises 10 to 50
Seat 3: raises 10 to 60
Seat 5: calls 30
Seat 6: calls 20
Seat 1: calls 10
*** DRAW ***
Dealer: burns [2h]
Seat 6: discards [6h 4s 3h] draws [6c 6d 4d]
Seat 1: discards [4c 8d 2s] draws [Qh 9h 9c]
Seat 3: discards [2d] draws [Kh]
Seat 5: discards [9s 5d 3c] draws [Ad 8h 7c]
*** AFTER DRAW ***
Seat 1: checks
Seat 3: checks
Seat 5: checks
Seat 6: checks
*** SHOWDOWN ***
Seat 3: shows [Kd Kc Kh 7s 7h]
Seat 1: shows [Jh Js Qh 9h 9c]
Seat 5: mucks
Seat 6: mucks
*** RESULT ***
Pot: 244
Rake: 4
Seat 3: collects 240
"""


def hand_text(table: str, number: int, *, over_cap: bool = False,
              when: datetime | None = None) -> str:
    """Hand ``number`` of ``table``: two minutes after the previous one (or at ``when``)."""
    when = when or START + timedelta(minutes=2 * number)
    header = _HEADER.format(
        hand_id=f"BCY-{table}-{number:06d}", time=when.isoformat(), table=table,
        dealer=4400 + number % 3,
    )
    return header + (_OVER_CAP if over_cap else _CLEAN)


def write_table_log(path: Path, table: str, numbers: range, *, every: int = 0,
                    append: bool = False) -> int:
    """Write (or append) hands ``numbers`` of ``table``; every ``every``-th is over the cap.

    Hands end with a blank line, as a table system appending hands writes them.
    Returns how many were written.
    """
    text = "".join(
        hand_text(table, n, over_cap=bool(every) and n % every == 0) + "\n" for n in numbers
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as handle:
        handle.write(text)
    return len(numbers)


def broken_hand_text(table: str, number: int) -> str:
    """A hand that cannot be read (an unknown verb): it goes to quarantine."""
    return hand_text(table, number).replace("Seat 6: folds", "Seat 6: dances", 1)


def write_day(inbox: Path, tables: tuple[str, ...], numbers: range, *, every: int = 7,
              append: bool = False) -> None:
    """One log file per table in ``inbox``."""
    for table in tables:
        write_table_log(inbox / f"{table.lower()}.log", table, numbers, every=every,
                        append=append)
