"""Seeded mutants of hands: each one small change a dealer or a table system could make.

Two kinds, both read again by the reference reader (a mutant it rejects is no hand):

- record mutations (:data:`MUTATIONS`, :func:`record_mutants`): an amount, a seat, a
  line swapped, dropped or repeated, a verb, a header, an all-in, a balanced change;
- text mutations (:func:`mutate`): a card, a reading, a collector, a split pot, a
  dropped proof, the opener's deal, the draw order or counts, a header; and
  :func:`hide`, which writes ``??`` for known cards in one kind of line.

The fact tables' equality tests and the certifiers' soundness tests both feed on them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from ingest.errors import HandParseError
from ingest.parser import parse_hand
from ingest.writer import write_hand
from schemas.records import TURN_VERBS, Action, Actor, HandRecord, Section, Verb

# ---- record mutations ----------------------------------------------------------------------
Mutation = Callable[[random.Random, HandRecord], HandRecord | None]


def _with_actions(record: HandRecord, actions: list[Action]) -> HandRecord:
    return record.model_copy(update={"actions": tuple(actions)})


def _replace(record: HandRecord, i: int, **update: object) -> HandRecord:
    actions = list(record.actions)
    actions[i] = actions[i].model_copy(update=update)
    return _with_actions(record, actions)


def _unit(record: HandRecord, a: Action) -> int:
    return record.limit_small if a.section is Section.BEFORE_DRAW else record.limit_big


def _amount(rng: random.Random, r: HandRecord) -> HandRecord | None:
    moved = [i for i, a in enumerate(r.actions) if a.amount is not None]
    if not moved:
        return None
    i = rng.choice(moved)
    a = r.actions[i]
    step = rng.choice((1, _unit(r, a), r.limit_small))
    field = "to_amount" if a.to_amount is not None and rng.random() < 0.3 else "amount"
    return _replace(r, i, **{field: max(0, getattr(a, field) + rng.choice((-step, step)))})


def _seat(rng: random.Random, r: HandRecord) -> HandRecord | None:
    players = [i for i, a in enumerate(r.actions) if a.actor is Actor.SEAT]
    i = rng.choice(players)
    others = [s.seat for s in r.seats if s.seat != r.actions[i].seat]
    return _replace(r, i, seat=rng.choice(others))


def _lines(rng: random.Random, r: HandRecord) -> HandRecord | None:
    """Two consecutive lines swapped, one dropped, or one written twice."""
    actions = list(r.actions)
    i = rng.randrange(len(actions) - 1)
    how = rng.randrange(3)
    if how == 0:
        actions[i], actions[i + 1] = actions[i + 1], actions[i]
    elif how == 1:
        del actions[i]
    else:
        actions.insert(i, actions[i])
    return _with_actions(r, actions)


def _verb(rng: random.Random, r: HandRecord) -> HandRecord | None:
    turns = [i for i, a in enumerate(r.actions) if a.verb in TURN_VERBS]
    if not turns:
        return None
    i = rng.choice(turns)
    a = r.actions[i]
    verb = rng.choice(sorted(TURN_VERBS - {a.verb}))
    unit = _unit(r, a)
    amount = a.amount if a.amount is not None else unit * rng.choice((1, 2))
    update: dict[str, object] = {"verb": verb, "amount": None, "to_amount": None}
    if verb in (Verb.OPENS, Verb.BETS, Verb.CALLS):
        update["amount"] = amount
    elif verb is Verb.RAISES:
        update["amount"] = unit
        update["to_amount"] = amount + unit
    return _replace(r, i, **update)


def _header(rng: random.Random, r: HandRecord) -> HandRecord | None:
    field = rng.choice(("button", "ante", "pot", "rake", "carried", "limit_big"))
    if field == "button":
        value = rng.choice([n for n in range(1, 11) if n != r.button])
    else:
        value = max(0, getattr(r, field) + rng.choice((-1, 1)) * rng.choice((1, r.ante or 1)))
    return r.model_copy(update={field: value})


def _all_in(rng: random.Random, r: HandRecord) -> HandRecord | None:
    wagers = [i for i, a in enumerate(r.actions)
              if a.verb in (Verb.ANTES, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES)]
    return _replace(r, rng.choice(wagers), all_in=True) if wagers else None


def _balanced(rng: random.Random, r: HandRecord) -> HandRecord | None:
    """An amount changed, with ``Pot`` and the payout following it: P402 still balances,
    so only the betting itself can tell."""
    mutant = _amount(rng, r)
    if mutant is None:
        return None
    moved = sum(a.amount or 0 for a in mutant.actions if a.verb is not Verb.COLLECTS) - sum(
        a.amount or 0 for a in r.actions if a.verb is not Verb.COLLECTS)
    moved += sum(a.to_amount or 0 for a in mutant.actions) - sum(
        a.to_amount or 0 for a in r.actions)
    actions = list(mutant.actions)
    paid = [i for i, a in enumerate(actions) if a.verb is Verb.COLLECTS]
    update: dict[str, object] = {"pot": max(0, r.pot + moved)}
    if paid:
        a = actions[paid[0]]
        actions[paid[0]] = a.model_copy(update={"amount": max(0, (a.amount or 0) + moved)})
    elif r.carried_out is not None:
        update["carried_out"] = max(0, r.carried_out + moved)
    return _with_actions(mutant, actions).model_copy(update=update)


def _twice(rng: random.Random, r: HandRecord) -> HandRecord | None:
    first = rng.choice(MUTATIONS[:-1])(rng, r)
    return None if first is None else rng.choice(MUTATIONS[:-1])(rng, first)


MUTATIONS: tuple[Mutation, ...] = (_amount, _balanced, _balanced, _seat, _lines, _lines,
                                   _lines, _verb, _verb, _header, _all_in, _twice)


def record_mutants(rng: random.Random, records: Sequence[HandRecord], per_hand: int
                   ) -> list[HandRecord]:
    """Up to ``per_hand`` record mutants of each record that the reader still reads."""
    out = []
    for record in records:
        for _ in range(per_hand):
            mutant = rng.choice(MUTATIONS)(rng, record)
            if mutant is None:
                continue
            try:  # the text round trip keeps only what a log can say
                out.append(parse_hand(write_hand(mutant)))
            except (HandParseError, ValueError):  # the reader rejects it: no log says that
                continue
    return out



# ---- text mutations ---------------------------------------------------------------
CARD = re.compile(r"(?<![\w?])(?:[2-9TJQKA][cdhs]|Jk)(?![\w?])")
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"] + ["Jk"]
READINGS = ("five aces", "straight flush", "four of a kind", "full house", "flush",
            "straight", "three of a kind", "two pair", "one pair", "high card")
SEAT_LINE = re.compile(r"^Seat (\d+): ")


def _seats(lines: list[str]) -> list[int]:
    return sorted({int(m.group(1)) for ln in lines if (m := SEAT_LINE.match(ln))})


def _where(lines: list[str], pattern: str) -> list[int]:
    found = re.compile(pattern)
    return [i for i, ln in enumerate(lines) if found.search(ln)]


def _section(lines: list[str], name: str) -> list[int]:
    start = next((i for i, ln in enumerate(lines) if ln == f"*** {name} ***"), None)
    if start is None:
        return []
    out = []
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("***"):
            break
        out.append(i)
    return out


def _recard(line: str, rng: random.Random) -> str:
    spots = list(CARD.finditer(line))
    if not spots:
        return line
    m = rng.choice(spots)
    return line[:m.start()] + rng.choice(DECK) + line[m.end():]


def _rediscard(lines: list[str], rng: random.Random) -> None:
    """Swap a discard for a card the seat kept, and the shown or mucked hand with it."""
    rows = _where(lines, r"^Seat \d+: discards \[")
    if not rows:
        return
    i = rng.choice(rows)
    seat = lines[i].split(":")[0]
    thrown = lines[i][lines[i].index("[") + 1:lines[i].index("]")].split()
    deal = [ln for ln in lines if ln.startswith(f"{seat}: [")]
    if not deal:
        return
    kept = [c for c in deal[0][deal[0].index("[") + 1:-1].split() if c not in thrown]
    if not kept:
        return
    old, new = rng.choice(thrown), rng.choice(kept)
    lines[i] = lines[i].replace(f"{old}", "@", 1).replace("@", new, 1)
    for j, ln in enumerate(lines):
        if j > i and ln.startswith((f"{seat}: shows [", f"{seat}: mucks [")):
            lines[j] = ln.replace(new, old, 1)
    if rng.random() < 0.5:
        lines.insert(i, f"{seat}: splits openers")


def mutate(text: str, rng: random.Random) -> str:
    """One random change of the kind a dealer or a table system gets wrong."""
    lines = text.split("\n")
    seats = _seats(lines)
    op = rng.randrange(17)
    if op <= 2:  # a card anywhere: deal, draw, burn, shows, mucks, openers
        rows = [i for i, ln in enumerate(lines) if CARD.search(ln) and ":" in ln]
        if rows:
            i = rng.choice(rows)
            lines[i] = _recard(lines[i], rng)
    elif op == 3:  # swap a card between two seats' lines
        rows = [i for i, ln in enumerate(lines) if CARD.search(ln) and SEAT_LINE.match(ln)]
        if len(rows) >= 2:
            i, j = rng.sample(rows, 2)
            mi = rng.choice(list(CARD.finditer(lines[i])))
            mj = rng.choice(list(CARD.finditer(lines[j])))
            lines[i] = lines[i][:mi.start()] + mj.group() + lines[i][mi.end():]
            lines[j] = lines[j][:mj.start()] + mi.group() + lines[j][mj.end():]
    elif op == 4:  # another reading
        rows = _where(lines, r": shows \[.*\] \(")
        if rows:
            i = rng.choice(rows)
            lines[i] = lines[i][:lines[i].index("] (") + 3] + rng.choice(READINGS) + ")"
    elif op == 5:  # another collector
        rows = _where(lines, r": collects ")
        if rows and seats:
            i = rng.choice(rows)
            lines[i] = SEAT_LINE.sub(f"Seat {rng.choice(seats)}: ", lines[i])
    elif op == 6:  # the pot split between two seats, unevenly or not
        rows = _where(lines, r": collects \d+$")
        if rows and len(seats) >= 2:
            i = rng.choice(rows)
            total = int(lines[i].rsplit(" ", 1)[1])
            a, b = rng.sample(seats, 2)
            part = rng.choice((total // 2, (total + 1) // 2, rng.randint(0, total)))
            lines[i:i + 1] = [f"Seat {a}: collects {part}", f"Seat {b}: collects {total - part}"]
    elif op == 7:  # drop a proof, a show, or any line
        rows = _where(lines, r": shows openers ") or _where(lines, r"^Seat \d+: ")
        if rows:
            del lines[rng.choice(rows)]
    elif op == 8:  # the opener dealt something else (mostly no openers)
        opens = _where(lines, r": opens ")
        if opens:
            seat = SEAT_LINE.match(lines[opens[0]]).group(1)  # type: ignore[union-attr]
            deal = [i for i in _section(lines, "DEAL") if lines[i].startswith(f"Seat {seat}: [")]
            if deal:
                cards = rng.sample(DECK, 5)
                lines[deal[0]] = f"Seat {seat}: [{' '.join(cards)}]"
    elif op == 9:  # two draw lines swapped
        rows = [i for i in _section(lines, "DRAW") if SEAT_LINE.match(lines[i])]
        if len(rows) >= 2:
            i, j = rng.sample(rows, 2)
            lines[i], lines[j] = lines[j], lines[i]
    elif op == 10:  # draws one card more or less than discarded
        rows = _where(lines, r": discards \[")
        if rows:
            i = rng.choice(rows)
            head, drawn = lines[i].split(" draws [")
            cards = drawn.rstrip("]").split()
            if len(cards) > 1 and rng.random() < 0.5:
                cards.pop()
            else:
                cards.append(rng.choice(DECK))
            lines[i] = f"{head} draws [{' '.join(cards)}]"
    elif op == 11:  # the openers requirement, the joker, the jackpot
        which = rng.randrange(3)
        if which == 0:
            value = rng.choice(("JJ", "QQ", "KK", "AA", "ANY"))
            rows = _where(lines, r"^Openers: ")
            if rows:
                lines[rows[0]] = f"Openers: {value}"
        elif which == 1:
            rows = _where(lines, r"^Joker: ")
            if rows:
                lines[rows[0]] = "Joker: no" if "yes" in lines[rows[0]] else "Joker: yes"
            else:
                lines.insert(1, "Joker: yes")
        else:
            lines = [ln for ln in lines if not ln.startswith("Openers: ")]
            lines.insert(1, f"Jackpot: {rng.randint(1, 8)}")
    elif op == 12:  # the button elsewhere
        rows = _where(lines, r"^Button: ")
        if rows and seats:
            lines[rows[0]] = f"Button: {rng.choice(seats)}"
    elif op == 13:  # a line repeated
        rows = [i for i, ln in enumerate(lines) if SEAT_LINE.match(ln) and "(" not in ln[:12]]
        if rows:
            i = rng.choice(rows)
            lines.insert(i + rng.randint(0, 3), lines[i])
    elif op == 14:  # a line moved within its section or to the next
        rows = [i for i, ln in enumerate(lines) if ln.startswith(("Seat", "Dealer"))
                and not re.match(r"^Seat \d+: P-", ln)]
        if rows:
            i = rng.choice(rows)
            line = lines.pop(i)
            lines.insert(min(max(i + rng.randint(-3, 3), 1), len(lines)), line)
    elif op == 15:  # the seat throws another of its cards (a split?), its hand to match
        _rediscard(lines, rng)
    else:  # a mucked hand shown, or a shown hand mucked
        rows = _where(lines, r": mucks$") + _where(lines, r": shows \[")
        if rows:
            i = rng.choice(rows)
            seat = SEAT_LINE.match(lines[i]).group(1)  # type: ignore[union-attr]
            lines[i] = (f"Seat {seat}: mucks" if ": shows [" in lines[i]
                        else f"Seat {seat}: shows [{' '.join(rng.sample(DECK, 5))}]")
    return "\n".join(lines)


#: Where a known card may be written ``??``: the pattern of the lines, and whether the
#: line must be the opener's (0), a collector's (1) or anyone's (2).
HIDING_PLACES: dict[str, tuple[str, int]] = {
    "opener's deal": (r"^Seat \d+: \[", 0),
    "collector's deal": (r"^Seat \d+: \[", 1),
    "collector's draw": (r"^Seat \d+: discards \[", 1),
    "collector's shown hand": (r"^Seat \d+: shows \[", 1),
    "a deal": (r"^Seat \d+: \[", 2),
    "a shown hand": (r"^Seat \d+: shows \[", 2),
    "a mucked hand": (r"^Seat \d+: mucks \[", 2),
    "a proof": (r"^Seat \d+: shows openers \[", 2),
    "discards": (r"^Seat \d+: discards \[", 2),
    "drawn cards": (r"draws \[", 2),
    "a fifth card": (r"draws fifth \[", 2),
    "a burn": (r"^Dealer: burns \[", 2),
    "an exposed card": (r"^Dealer: exposes \[", 2),
}


def _seat_of(lines: list[str], pattern: str) -> set[str]:
    return {m.group(1) for ln in lines if re.search(pattern, ln)
            and (m := SEAT_LINE.match(ln)) is not None}


def hide(text: str, place: str, rng: random.Random) -> str:
    """Write ``??`` for one known card, or every card, of one line of ``place``."""
    lines = text.split("\n")
    pattern, whose = HIDING_PLACES[place]
    seats = (_seat_of(lines, r": opens ") if whose == 0
             else _seat_of(lines, r": collects ") if whose == 1 else None)
    rows = [i for i in _where(lines, pattern) if CARD.search(lines[i]) and (
        seats is None or ((m := SEAT_LINE.match(lines[i])) is not None and m.group(1) in seats))]
    if not rows:
        return text
    i = rng.choice(rows)
    if place == "drawn cards":  # only the cards after ``draws``
        head, tail = lines[i].split("draws [", 1)
        spots = list(CARD.finditer(tail))
        if not spots:
            return text
        chosen = spots if rng.random() < 0.4 else [rng.choice(spots)]
        for m in reversed(chosen):
            tail = tail[:m.start()] + "??" + tail[m.end():]
        lines[i] = head + "draws [" + tail
        return "\n".join(lines)
    spots = list(CARD.finditer(lines[i]))
    if rng.random() < 0.4:
        lines[i] = CARD.sub("??", lines[i])
    else:
        m = rng.choice(spots)
        lines[i] = lines[i][:m.start()] + "??" + lines[i][m.end():]
    if place == "a deal" and rng.random() < 0.5:
        # The generator's unrecorded hand: the seat's draw line goes unknown with it.
        seat = lines[i].split(":")[0]
        for j in _where(lines, rf"^{seat}: discards \["):
            lines[j] = CARD.sub("??", lines[j])
    return "\n".join(lines)


