"""The line grammar of the hand log format as anchored regular expressions.

Used by the columnar fast path (:mod:`ingest.fastpath`) to accept whole batches of
lines at once. These patterns are deliberately a *subset* of what the reference
parser (:mod:`ingest.parser`) accepts, in canonical spelling only (no leading
zeros, seconds in ``Time``, at most 13 integer digits): a line outside them is not
an error here, its hand is simply parsed again by the reference parser, which
gives the record or the precise error. ``tests/ingest/test_fastpath.py`` checks
that whatever the fast path accepts, the reference parser accepts with the same
values.
"""

from __future__ import annotations

from schemas.records import CARD_CODES, Game, Openers

AMOUNT = r"[0-9]{1,13}(?:\.[0-9]{1,2})?"
# Free text as the reference parser keeps it from a right-stripped line: it cannot end in
# white space (\x1c-\x1f count as white space for Python only, so control characters are
# left to the reference parser).
FREE = r"[^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f]"
_CARD = "(?:" + "|".join(c.replace("?", r"\?") for c in CARD_CODES) + ")"
CARD_LIST = rf"\[(?:{_CARD}(?: {_CARD})*)?\]"
SEAT = r"(?:10|[1-9])"
ALL_IN = r"(?: and is all-in)?"
COUNT = r"[1-9][0-9]{0,8}"

PLAYER_LINE = (
    rf"^Seat {SEAT}: (?:{CARD_LIST}"
    rf"|(?:antes|opens|bets|calls) {AMOUNT}{ALL_IN}"
    rf"|raises {AMOUNT} to {AMOUNT}{ALL_IN}"
    r"|checks|folds|declares openers|splits openers|stands pat|retrieves hand"
    rf"|withdraws {AMOUNT}"
    rf"|shows openers {CARD_LIST}"
    rf"|discards {CARD_LIST} draws {CARD_LIST}"
    rf"|draws fifth {CARD_LIST}"
    rf"|shows {CARD_LIST}(?: \(.+\))?"
    rf"|mucks(?: {CARD_LIST})?"
    rf"|collects {AMOUNT}(?: from side pot {COUNT})?"
    r")$"
)
DEALER_LINE = (
    rf"^Dealer: (?:burns(?: {CARD_LIST})?|misdeal|(?:exposes|deals) {CARD_LIST} to Seat {SEAT}"
    rf"|returns {AMOUNT} to Seat {SEAT})$"
)
FLOOR_LINE = (
    rf"^Floor: (?:note {FREE}|pot plays|pot killed|Seat {SEAT} (?:false openers|fouled hand"
    rf"|penalty {AMOUNT}))$"
)
ACTION_LINE = f"(?:{PLAYER_LINE})|(?:{DEALER_LINE})|(?:{FLOOR_LINE})"
RESULT_LINE = rf"^(?:Pot: |Rake: |Passed out: carried ){AMOUNT}$"

# Years 2000..8999 and offsets up to ±17:59: inside the bounds of Time (schemas.limits)
# whatever the day and offset; other times are the reference parser's to judge.
_YEAR = r"[2-8][0-9]{3}"
_HOUR = r"(?:[01][0-9]|2[0-3])"
_OFFSET_HOUR = r"(?:0[0-9]|1[0-7])"
TIME = (
    rf"^{_YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T{_HOUR}:[0-5][0-9]:[0-5][0-9]"
    rf"(?:[+-]{_OFFSET_HOUR}:[0-5][0-9]|Z)$"
)
IDENTIFIER = r"^[A-Za-z0-9._-]+$"
# Free text as the reference parser keeps it: no control characters (where Python's and
# the regex engine's ideas of whitespace differ), no blank at either end.
SEAT_VALUE = rf"^([^\s\x00-\x1f\x7f](?:.*[^\s\x00-\x1f\x7f])?) \(({AMOUNT})\)$"
# Each header key and the pattern its value must match.
HEADER_VALUES: dict[str, str] = {
    "Hand": IDENTIFIER,
    "Time": TIME,
    "Room": f"^{FREE}$",
    "Table": IDENTIFIER,
    "Dealer": f"^{FREE}$",
    "Game": "^(?:" + "|".join(g.value for g in Game) + ")$",
    "Limit": rf"^{AMOUNT}/{AMOUNT}$",
    "Ante": rf"^{AMOUNT}$",
    "Joker": "^(?:yes|no)$",
    "Button": rf"^{SEAT}$",
    "Jackpot": rf"^{COUNT}$",
    "Openers": "^(?:" + "|".join(o.value for o in Openers) + ")$",
    "Carried": rf"^{AMOUNT}$",
}
REQUIRED_KEYS = ("Hand", "Time", "Table", "Game", "Limit", "Ante", "Button")
SEAT_KEY = rf"^Seat {SEAT}$"
