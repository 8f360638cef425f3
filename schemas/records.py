"""Frozen records of one hand, exactly as the hand log format v1 defines it.

The format is ``../shared/spec/hand-log-format.md``. A :class:`HandRecord` is a
header, the seats, and every line of play in the order the log gives it (the
audit replays them in that order). Amounts are integer cents; cards are the
two-character codes of the format (``Ah``, ``Td``, ``Jk`` for the joker, ``??``
for a card the log did not record).

These models are the contract between ingest, audit, the generator and the
store: the parser produces them, the writer turns them back into text, and
``openers schema`` prints their JSON Schema.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from schemas.limits import MAX_CENTS, MAX_COUNT, MAX_LINE_NUMBER, MAX_SEAT, MIN_SEAT, time_problem

RANKS = "23456789TJQKA"
SUITS = "cdhs"
JOKER = "Jk"
UNKNOWN_CARD = "??"
#: Every card code a log may contain, in a fixed order (the 52 cards, the joker, unknown).
CARD_CODES: tuple[str, ...] = (
    *(rank + suit for rank in RANKS for suit in SUITS),
    JOKER,
    UNKNOWN_CARD,
)
_CARD_SET = frozenset(CARD_CODES)


def check_card(code: str) -> str:
    """Return ``code`` if it is a card of the format, else raise ``ValueError``."""
    if code not in _CARD_SET:
        raise ValueError(f"{code!r} is not a card (rank 2-9TJQKA + suit cdhs, Jk, or ??)")
    return code


Card = Annotated[str, AfterValidator(check_card)]
Cards = tuple[Card, ...]

#: Identifiers of hands, tables (``[A-Za-z0-9._-]+``).
Identifier = Annotated[str, Field(pattern=r"^[A-Za-z0-9._-]+$", min_length=1)]
#: Exact money: integer cents, never negative, at most ``schemas.limits.MAX_CENTS``.
Cents = Annotated[int, Field(ge=0, le=MAX_CENTS)]
SeatNumber = Annotated[int, Field(ge=MIN_SEAT, le=MAX_SEAT)]
#: A count of the format (``Jackpot``, a side pot's number): 1..MAX_COUNT.
Count = Annotated[int, Field(ge=1, le=MAX_COUNT)]
#: A line number or position in a file (0: unknown).
LineNumber = Annotated[int, Field(ge=0, le=MAX_LINE_NUMBER)]


def check_time(moment: datetime) -> datetime:
    """Return ``moment`` if it is a ``Time`` the format allows (``schemas.limits``)."""
    problem = time_problem(moment)
    if problem is not None:
        raise ValueError(f"time {moment.isoformat()}: {problem}")
    return moment


Time = Annotated[datetime, AfterValidator(check_time)]


class Game(StrEnum):
    """The game named in the ``Game`` header."""

    JACKS_OR_BETTER = "Jacks or Better"
    DRAW_HIGH = "Draw High"


class Openers(StrEnum):
    """The minimum openers named in the ``Openers`` header."""

    JJ = "JJ"
    QQ = "QQ"
    KK = "KK"
    AA = "AA"
    ANY = "ANY"


class Section(StrEnum):
    """The sections of a hand, in the order they must appear."""

    ANTES = "ANTES"
    DEAL = "DEAL"
    BEFORE_DRAW = "BEFORE DRAW"
    DRAW = "DRAW"
    AFTER_DRAW = "AFTER DRAW"
    SHOWDOWN = "SHOWDOWN"
    RESULT = "RESULT"


#: Sections in their required order, to compare positions.
SECTION_ORDER: tuple[Section, ...] = tuple(Section)
#: Each section's place in that order (``SECTION_POSITION[a.section] < ...``).
SECTION_POSITION: dict[Section, int] = {s: i for i, s in enumerate(SECTION_ORDER)}


class Actor(StrEnum):
    """Who wrote a line: a player's seat, the dealer, or the floor."""

    SEAT = "seat"
    DEALER = "dealer"
    FLOOR = "floor"


class Verb(StrEnum):
    """Every verb of the format. The value is the verb as written in the log.

    ``DEALT`` is the deal line ``Seat N: [c c c c c]``, which has no written verb;
    ``DISCARDS`` is ``discards [..] draws [..]``.
    """

    # players
    ANTES = "antes"
    DEALT = "dealt"
    CHECKS = "checks"
    OPENS = "opens"
    BETS = "bets"
    CALLS = "calls"
    RAISES = "raises"
    FOLDS = "folds"
    WITHDRAWS = "withdraws"
    DECLARES_OPENERS = "declares openers"
    SHOWS_OPENERS = "shows openers"
    SPLITS_OPENERS = "splits openers"
    DISCARDS = "discards"
    STANDS_PAT = "stands pat"
    DRAWS_FIFTH = "draws fifth"
    SHOWS = "shows"
    MUCKS = "mucks"
    RETRIEVES_HAND = "retrieves hand"
    COLLECTS = "collects"
    # dealer
    BURNS = "burns"
    EXPOSES = "exposes"
    RETURNS = "returns"
    DEALS = "deals"
    MISDEAL = "misdeal"
    # floor
    FALSE_OPENERS = "false openers"
    FOULED_HAND = "fouled hand"
    PENALTY = "penalty"
    POT_PLAYS = "pot plays"
    POT_KILLED = "pot killed"
    NOTE = "note"


#: The verbs that take a turn in a betting round (format spec, "Order of play").
TURN_VERBS = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES, Verb.FOLDS})
#: The verbs that put chips in as a wager (they may end with ``and is all-in``).
WAGER_VERBS = frozenset({Verb.ANTES, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES})

_FROZEN = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)


class Seat(BaseModel):
    """One ``Seat N: PLAYER (STACK)`` header line."""

    model_config = _FROZEN

    seat: SeatNumber = Field(description="Seat number, 1..10, clockwise.")
    player_id: str = Field(min_length=1, description="The player's id as the log names it.")
    stack: Cents = Field(description="The player's chips before the antes, in cents.")


class Action(BaseModel):
    """One line of play (any line inside a section), in the order of the log.

    Fields that a verb does not use are ``None`` (``all_in`` is ``False``).
    """

    model_config = _FROZEN

    index: LineNumber = Field(description="Position of this line among the hand's action lines.")
    line: LineNumber = Field(description="Line number in the source file (1-based; 0 if unknown).")
    section: Section = Field(description="The section the line appears in.")
    actor: Actor = Field(description="Who wrote the line: a seat, the dealer or the floor.")
    verb: Verb = Field(description="What the line does.")
    seat: SeatNumber | None = Field(
        default=None,
        description=(
            "The seat the line is about: the acting seat for a player's line, the target "
            "seat for a dealer or floor line (`to Seat N`, `Floor: Seat N ...`)."
        ),
    )
    amount: Cents | None = Field(
        default=None,
        description=(
            "Chips in cents: antes/opens/bets/calls X, the X of `raises X to Y`, withdraws, "
            "collects, returns, penalty."
        ),
    )
    to_amount: Cents | None = Field(
        default=None, description="The Y of `raises X to Y`: the seat's total bet this round."
    )
    cards: Cards | None = Field(
        default=None,
        description=(
            "The card list of the line: dealt cards, shown, mucked or openers cards, the "
            "discards of `discards [..] draws [..]`, a burned, exposed, dealt or fifth card."
        ),
    )
    drawn: Cards | None = Field(
        default=None, description="The cards received in `discards [..] draws [..]`."
    )
    all_in: bool = Field(default=False, description="The line ends with `and is all-in`.")
    side_pot: Count | None = Field(
        default=None, description="K of `collects X from side pot K`; None for the main pot."
    )
    reading: str | None = Field(
        default=None, description="The READING of `shows [..] (READING)`, verbatim."
    )
    note: str | None = Field(default=None, description="The TEXT of `Floor: note TEXT`, verbatim.")


class HandRecord(BaseModel):
    """One hand: header, seats, every line of play in order, and the result."""

    model_config = _FROZEN

    hand_id: Identifier = Field(description="`Hand`: unique per cardroom.")
    time: Time = Field(description="`Time`: when the deal began, with its UTC offset.")
    room: str | None = Field(default=None, description="`Room`: the cardroom, free text.")
    table_id: Identifier = Field(description="`Table`: the table id.")
    dealer_id: str | None = Field(default=None, description="`Dealer`: the dealer in the box.")
    game: Game = Field(description="`Game`: Jacks or Better, or Draw High (opens on anything).")
    limit_small: Cents = Field(description="`Limit` A/B: A, the unit before the draw, in cents.")
    limit_big: Cents = Field(description="`Limit` A/B: B, the unit after the draw, in cents.")
    ante: Cents = Field(description="`Ante`: each player's ante for this deal, in cents.")
    joker: bool = Field(default=False, description="`Joker`: a 53-card deck with the joker.")
    button: SeatNumber = Field(description="`Button`: the button's seat.")
    jackpot: Count = Field(
        default=1, description="`Jackpot`: which consecutive deal of one unopened pot."
    )
    openers: Openers | None = Field(
        default=None,
        description="`Openers`: the minimum the table applied; None when the header is absent.",
    )
    carried: Cents = Field(
        default=0, description="`Carried`: chips already in the pot from passed-out deals."
    )
    seats: tuple[Seat, ...] = Field(
        min_length=2, description="The `Seat N` lines, in increasing seat order."
    )
    actions: tuple[Action, ...] = Field(
        default=(), description="Every line inside a section, in log order."
    )
    pot: Cents = Field(description="RESULT `Pot`: all chips put in plus Carried, less returns.")
    rake: Cents = Field(default=0, description="RESULT `Rake`: taken from the main pot.")
    carried_out: Cents | None = Field(
        default=None,
        description="RESULT `Passed out: carried X`: X chips left for the table's next deal.",
    )
    first_line: LineNumber = Field(
        default=0, description="Line number of the hand's first line in its source file."
    )
    result_line: LineNumber = Field(
        default=0, description="Line number of the RESULT `Pot:` line (0 if unknown)."
    )

    def seat_numbers(self) -> tuple[int, ...]:
        """The occupied seats in clockwise (increasing) order."""
        return tuple(s.seat for s in self.seats)

    def player_at(self, seat: int) -> str | None:
        """The player id at ``seat``, or ``None`` if the seat is empty."""
        for s in self.seats:
            if s.seat == seat:
                return s.player_id
        return None
