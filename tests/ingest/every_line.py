"""Hands that hold every kind of line the format allows, for the scanner-vs-reference tests.

The spec's example hand, with lines of every player, dealer and floor verb (all-in
wagers, side pots, withdrawals, floor rulings, notes...) added to its sections, in a
few variants. The hands need not make sense at the table (the rules judge that); they
must be readable, so the compiled scanner and the reference parser both read them
and the tests can compare what each makes of every line kind.
"""

from __future__ import annotations

from pathlib import Path

from schemas.records import Verb

SPEC = Path(__file__).resolve().parents[3] / "shared" / "spec" / "hand-log-format.md"


def spec_example() -> str:
    """The complete hand of the format's spec."""
    text = SPEC.read_text()
    return text.split("## Example: a complete hand", 1)[1].split("```", 2)[1].strip("\n")


#: Lines added after the line that starts with the key (the first such line).
_ADDED: list[dict[str, list[str]]] = [
    {
        "Seat 6: antes 1": ["Seat 6: antes 0.50 and is all-in", "Floor: note late ante: (ok)"],
        "Seat 6: [Qs": ["Dealer: exposes [4h] to Seat 6", "Dealer: deals [Ah ??] to Seat 10",
                        "Floor: Seat 6 fouled hand"],
        "Seat 1: opens 10": ["Floor: Seat 1 false openers", "Seat 1: withdraws 10",
                             "Dealer: returns 2.50 to Seat 3", "Floor: pot plays",
                             "Seat 3: declares openers", "Seat 5: opens 0 and is all-in",
                             "Seat 3: calls 20 and is all-in",
                             "Seat 3: raises 10 to 20 and is all-in",
                             "Floor: Seat 10 penalty 0.01"],
        "Dealer: burns [2h]": ["Seat 1: splits openers", "Seat 6: stands pat",
                               "Seat 1: draws fifth [Jk]", "Dealer: burns"],
        "Seat 3: bets 20": ["Seat 5: bets 20 and is all-in", "Floor: pot killed"],
        "Seat 5: mucks": ["Seat 5: retrieves hand", "Seat 5: mucks [Ac Jk 9s 5d 3c]",
                          "Seat 3: shows [Kd Kc Kh 7s 7h] (full house, kings full)",
                          "Seat 6: shows [?? Kc] (no reading we know)"],
        "Seat 3: collects 140": ["Seat 5: collects 12.34 from side pot 1",
                                 "Seat 1: collects 0 from side pot 999999999",
                                 "Floor: note  paid   in full"],
    },
    {
        "Seat 1: antes 1": ["Dealer: misdeal", "Floor: note redeal as T07-124"],
    },
    {
        "Seat 3: collects 140": ["Seat 1: collects 1 and is all-in"],  # unreadable: not a wager
    },
    {
        "Seat 1: opens 10": ["Floor: Seat 1 false openers", "Floor: pot killed"],
        "Pot: 144": ["Passed out: carried 140"],
    },
]


def every_line_hands() -> list[str]:
    """The spec's example and its variants holding every kind of line (one unreadable)."""
    hands = [spec_example()]
    for added in _ADDED:
        lines = spec_example().split("\n")
        for key, extra in added.items():
            at = next(i for i, line in enumerate(lines) if line.startswith(key))
            lines[at + 1:at + 1] = extra
        hands.append("\n".join(lines))
    return hands


#: Every verb the format has: the hands above use each of them.
EVERY_VERB = frozenset(Verb)
