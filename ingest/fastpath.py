"""Columnar fast path: check and convert a whole batch of hands with vectorised string
operations, straight into the staging tables' columns.

Per-line Python (the reference parser builds one frozen model per line) reads about
6,000 hands per CPU-second; this path about 2.5 times that (``benchmarks/bench_ingest.py``).
Here every line of a batch goes into one polars frame; the
format's grammar (:mod:`ingest.fast_grammar`) is matched by the regex engine in
one pass per line kind, the hand-level rules (required headers, section order,
one Pot...) are group-bys, and the values are sliced out column-wise.

The fast path only *accepts*: a hand with any line or rule outside its canonical
subset is returned as rejected, and the caller parses it with the reference parser
(which yields the record or the precise error). So the guarantees are the
reference parser's; ``tests/ingest/test_fastpath.py`` proves on generated and
mutated hands that every accepted hand gives exactly the rows the reference
parser's record gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from ingest import fast_grammar as g
from schemas.records import SECTION_ORDER

_SECTION_IDS = {f"*** {s.value} ***": i for i, s in enumerate(SECTION_ORDER)}
_SECTION_NAMES = {i: s.value for i, s in enumerate(SECTION_ORDER)}
_RESULT = len(SECTION_ORDER) - 1
_HEADER_LINE = (
    "^(?:" + "|".join(
        f"{key}: " + pat[1:-1] for key, pat in g.HEADER_VALUES.items()
    ) + f"|Seat {g.SEAT}: " + g.SEAT_VALUE[1:-1] + ")$"
)
_WORD_VERBS = {"declares": "declares openers", "splits": "splits openers",
               "stands": "stands pat", "draws": "draws fifth", "retrieves": "retrieves hand"}
_FLOOR_VERBS = {"false": "false openers", "fouled": "fouled hand", "penalty": "penalty"}
_EMPTY_CARDS = pl.lit([], dtype=pl.List(pl.String))


@dataclass(frozen=True)
class FastBatch:
    """What the fast path made of a batch: rows for the accepted hands, keyed by ``idx``
    (the hand's position in the batch), and the positions it left to the reference parser."""

    hands: pl.DataFrame
    seats: pl.DataFrame
    actions: pl.DataFrame
    rejected: list[int]


def _cents(col: pl.Expr) -> pl.Expr:
    parts = col.str.splitn(".", 2)
    whole = parts.struct.field("field_0").cast(pl.Int64, strict=False)
    frac = parts.struct.field("field_1").str.pad_end(2, "0").cast(pl.Int64, strict=False)
    return whole * 100 + frac.fill_null(0)


def _cards(inner: pl.Expr) -> pl.Expr:
    return pl.when(inner == "").then(_EMPTY_CARDS).otherwise(inner.str.split(" "))


def _lines(texts: Sequence[str], first_lines: Sequence[int]) -> pl.DataFrame:
    """One row per kept line: hand position, file line, text (right-stripped)."""
    # Splitting in polars keeps the per-line work out of the interpreter; "\n" is the
    # only separator, exactly as the reference parser's str.split("\n").
    lists = pl.Series(texts, dtype=pl.String).str.split("\n")
    counts = lists.list.len().to_numpy().astype(np.int64)
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    firsts = np.repeat(np.asarray(first_lines, dtype=np.int64), counts)
    frame = pl.DataFrame({
        "idx": np.repeat(np.arange(len(texts), dtype=np.int32), counts),
        "line": (firsts + np.arange(total) - starts).astype(np.int32),
        "text": lists.explode(),
    })
    # No line is stripped or skipped here: a blank or comment line, trailing white space
    # or a control character makes a line match no pattern, and its hand goes to the
    # reference parser (free-text patterns cannot end in white space, see fast_grammar).
    return frame


def _position_in_hand(idx: pl.Series) -> np.ndarray:
    """0, 1, 2... within each run of equal ``idx`` (the frame is sorted by idx)."""
    values = idx.to_numpy()
    return np.arange(len(values), dtype=np.int32) - np.searchsorted(values, values).astype(
        np.int32)


def parse_columns(texts: Sequence[str], first_lines: Sequence[int]) -> FastBatch:
    """Check and convert ``texts`` (one hand each, ``\\n`` line ends) at ``first_lines``."""
    frame = _lines(texts, first_lines)
    is_section = pl.col("text").str.starts_with("***")
    frame = frame.with_columns(
        sec=pl.when(is_section).then(
            pl.col("text").replace_strict(_SECTION_IDS, default=-1, return_dtype=pl.Int8)),
        is_section=is_section,
    )
    # Forward fill and shift within each hand, without window functions: fill over the
    # whole (idx-sorted) frame, then drop what came from another hand.
    sec_idx = pl.when(pl.col("is_section")).then(pl.col("idx")).forward_fill()
    frame = frame.with_columns(
        cur=pl.when(sec_idx == pl.col("idx")).then(pl.col("sec").forward_fill()))
    frame = frame.with_columns(
        prev=pl.when(pl.col("idx").shift(1) == pl.col("idx")).then(pl.col("cur").shift(1)))
    sections = frame.filter("is_section")
    header = frame.filter(pl.col("cur").is_null())
    body = frame.filter(pl.col("cur").is_not_null() & ~pl.col("is_section"))

    bad = [sections.filter((pl.col("sec") < 0) | (pl.col("sec") <= pl.col("prev").fill_null(-1)))
           ["idx"]]
    hands, seats, header_bad = _header(header)
    bad += header_bad
    actions, results, body_bad = _body(body)
    bad += body_bad
    last = frame.unique("idx", keep="last")
    bad.append(last.filter(pl.col("cur").fill_null(-1) != _RESULT)["idx"])
    rejected = pl.concat(bad).unique()
    firsts = pl.DataFrame({"idx": pl.Series(range(len(texts)), dtype=pl.Int32),
                           "first_line": pl.Series(first_lines, dtype=pl.Int32)})
    hands = hands.join(results, on="idx", how="left").join(firsts, on="idx")
    bad_after = hands.filter(pl.col("time").is_null() | pl.col("pot").is_null())["idx"]
    # A hand with no header line at all (e.g. the second half of a hand split by a stray
    # blank line) has no row in ``hands``: it is the reference parser's to judge too.
    headless = firsts.join(hands.select("idx"), on="idx", how="anti")["idx"]
    rejected = pl.concat([rejected, bad_after, headless]).unique()
    keep = ~pl.col("idx").is_in(rejected.implode())
    hands = hands.filter(keep)
    seats, actions = seats.filter(keep), actions.filter(keep)
    counts = (seats.group_by("idx").agg(n_seats=pl.len().cast(pl.Int32))
              .join(actions.group_by("idx").agg(n_actions=pl.len().cast(pl.Int32)), on="idx",
                    how="left"))
    hands = hands.join(counts, on="idx", how="left").with_columns(
        pl.col("n_actions").fill_null(0))
    return FastBatch(hands, seats, actions, sorted(rejected.to_list()))


def _header(header: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, list[pl.Series]]:
    kv = pl.col("text").str.splitn(": ", 2)
    header = header.with_columns(
        ok=pl.col("text").str.contains(_HEADER_LINE),
        key=kv.struct.field("field_0"), value=kv.struct.field("field_1"),
    )
    bad = [header.filter(~pl.col("ok"))["idx"],
           header.group_by("idx", "key").len().filter(pl.col("len") > 1)["idx"]]
    is_seat = pl.col("key").str.starts_with("Seat ")
    seat_rows = header.filter(is_seat)
    stack = pl.col("value").str.split(" (").list.last().str.strip_suffix(")")
    seats = seat_rows.select(
        "idx",
        seat=pl.col("key").str.slice(5).cast(pl.Int32, strict=False),
        player_id=pl.col("value").str.slice(
            0, pl.col("value").str.len_chars() - stack.str.len_chars() - 3),
        stack=_cents(stack),
    )
    keyed = header.filter(~is_seat)
    hands = keyed.filter(pl.col("key").is_in(list(g.HEADER_VALUES))).pivot(
        on="key", index="idx", values="value", aggregate_function="first")
    hands = hands.with_columns(
        [pl.lit(None, dtype=pl.String).alias(k) for k in g.HEADER_VALUES
         if k not in hands.columns])
    present = keyed.filter(pl.col("key").is_in(g.REQUIRED_KEYS)).group_by("idx").len()
    n_seats = seats.group_by("idx").len()
    all_idx = header.select("idx").unique()
    bad.append(all_idx.join(present.filter(pl.col("len") == len(g.REQUIRED_KEYS)), on="idx",
                            how="anti")["idx"])
    bad.append(all_idx.join(n_seats.filter(pl.col("len") >= 2), on="idx", how="anti")["idx"])
    # ``Z`` is UTC, as datetime.fromisoformat reads it.
    time = pl.when(pl.col("Time").str.ends_with("Z")).then(
        pl.col("Time").str.strip_suffix("Z") + "+00:00").otherwise(pl.col("Time"))
    sign = pl.when(time.str.slice(19, 1) == "-").then(-1).otherwise(1)
    limit = pl.col("Limit").str.splitn("/", 2)
    hands = hands.select(
        "idx",
        hand_id=pl.col("Hand"), table_id=pl.col("Table"),
        time=time.str.to_datetime("%Y-%m-%dT%H:%M:%S%:z", time_zone="UTC", strict=False,
                                  time_unit="us"),
        utc_offset_minutes=(sign * (time.str.slice(20, 2).cast(pl.Int32, strict=False) * 60
                                    + time.str.slice(23, 2).cast(pl.Int32, strict=False))
                            ).cast(pl.Int32, strict=False),
        room=pl.col("Room"), dealer_id=pl.col("Dealer"), game=pl.col("Game"),
        limit_small=_cents(limit.struct.field("field_0")),
        limit_big=_cents(limit.struct.field("field_1")),
        ante=_cents(pl.col("Ante")),
        joker=pl.col("Joker").fill_null("no") == "yes",
        button=pl.col("Button").cast(pl.Int32, strict=False),
        jackpot=pl.col("Jackpot").fill_null("1").cast(pl.Int32, strict=False),
        openers=pl.col("Openers"),
        carried=_cents(pl.col("Carried").fill_null("0")),
    )
    return hands, seats.sort("idx", "seat"), bad


def _body(body: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame, list[pl.Series]]:
    text = pl.col("text")
    in_result = pl.col("cur") == _RESULT
    is_result = in_result & (text.str.starts_with("Pot: ") | text.str.starts_with("Rake: ")
                             | text.str.starts_with("Passed out: carried "))
    body = body.with_columns(is_result=is_result)
    results = body.filter("is_result")
    actions = body.filter(~pl.col("is_result"))
    bad = [results.filter(~text.str.contains(g.RESULT_LINE))["idx"],
           ]
    actions = actions.with_columns(ok=text.str.contains(g.ACTION_LINE))
    bad.append(actions.filter(~pl.col("ok"))["idx"])
    kind = text.str.splitn(": ", 2).struct.field("field_0")
    amount = _cents(text.str.split(" ").list.last())
    per_hand = results.with_columns(kind=kind, amount=amount).group_by("idx").agg(
        pot=pl.col("amount").filter(pl.col("kind") == "Pot").first(),
        result_line=pl.col("line").filter(pl.col("kind") == "Pot").first(),
        rake=pl.col("amount").filter(pl.col("kind") == "Rake").first(),
        carried_out=pl.col("amount").filter(pl.col("kind") == "Passed out").first(),
        n_pot=(pl.col("kind") == "Pot").sum(), n_rake=(pl.col("kind") == "Rake").sum(),
        n_out=(pl.col("kind") == "Passed out").sum(),
    )
    bad.append(per_hand.filter((pl.col("n_pot") > 1) | (pl.col("n_rake") > 1)
                               | (pl.col("n_out") > 1))["idx"])
    per_hand = per_hand.select("idx", "pot", "rake", "carried_out", "result_line").with_columns(
        pl.col("rake").fill_null(0))
    # Only lines of the grammar are taken apart (their hands are dropped anyway).
    return _actions(actions.filter("ok")), per_hand, bad


def _field(col: pl.Expr, sep: str, n: int = 1) -> pl.Expr:
    """What follows the first ``sep`` (n=1) or precedes it (n=0); null if absent."""
    return col.str.splitn(sep, 2).struct.field(f"field_{n}")


_NULLS: dict[str, pl.DataType] = {
    "amount": pl.Int64(), "to_amount": pl.Int64(), "cards": pl.List(pl.String()),
    "drawn": pl.List(pl.String()), "side_pot": pl.Int32(), "reading": pl.String(),
    "note": pl.String(),
}
_AMOUNT_WORDS = ["antes", "opens", "bets", "calls", "withdraws"]
_BARE_WORDS = ["checks", "folds", "declares", "splits", "stands", "retrieves"]
_LIST_WORDS = ["draws", "mucks"]


# The category of a player line's verb word; one hash lookup per line instead of a chain
# of membership tests (a when/then chain evaluates every branch on every row).
_CATEGORY_OF_WORD = (
    {w: "amount" for w in _AMOUNT_WORDS} | {w: "bare" for w in _BARE_WORDS}
    | {w: "list" for w in _LIST_WORDS}
)


def _category() -> pl.Expr:
    """Which kind of line a validated action line is, to extract only its own fields."""
    text, rest = pl.col("text"), pl.col("rest")
    return (
        pl.when(~text.str.starts_with("Seat ")).then(
            pl.when(text.str.starts_with("Dealer: ")).then(pl.lit("dealer"))
            .otherwise(pl.lit("floor")))
        .when(rest.str.starts_with("[")).then(pl.lit("dealt"))
        .when(rest.str.starts_with("shows openers ")).then(pl.lit("list"))
        # Any other word (raises, collects, shows, discards) is its own category.
        .otherwise(pl.col("word").replace(_CATEGORY_OF_WORD))
    )


def _bracket(col: pl.Expr, which: int = 0) -> pl.Expr:
    """The cards of the first (0) or second (1) ``[..]`` list of ``col``."""
    inner = col.str.split_exact("[", 2).struct.field(f"field_{which + 1}")
    return _cards(_field(inner, "]", 0))


def _extract(cat: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Verb, seat and the fields of one category of lines (the others stay null)."""
    text, rest, word, args = pl.col("text"), pl.col("rest"), pl.col("word"), pl.col("args")
    seat = text.str.slice(5, 2).str.strip_suffix(":").cast(pl.Int32, strict=False)
    all_in_args = args.str.strip_suffix(" and is all-in")
    out: dict[str, pl.Expr] = {"actor": pl.lit("seat"), "verb": word, "seat": seat}
    if cat == "dealt":
        # The grammar makes the whole rest of a dealt line one "[...]" list.
        out |= {"verb": pl.lit("dealt"),
                "cards": _cards(rest.str.strip_prefix("[").str.strip_suffix("]"))}
    elif cat == "amount":
        out |= {"amount": _cents(all_in_args), "all_in": text.str.ends_with(" and is all-in")}
        out["all_in"] = out["all_in"] & (word != "withdraws")
    elif cat == "raises":
        out |= {"amount": _cents(_field(all_in_args, " to ", 0)),
                "to_amount": _cents(_field(all_in_args, " to ")),
                "all_in": text.str.ends_with(" and is all-in")}
    elif cat == "collects":
        out |= {"amount": _cents(_field(args, " from side pot ", 0)),
                "side_pot": _field(args, " from side pot ").cast(pl.Int32, strict=False)}
    elif cat == "bare":
        out["verb"] = word.replace(_WORD_VERBS)
    elif cat == "list":
        out |= {"verb": pl.when(rest.str.starts_with("shows openers ")).then(
            pl.lit("shows openers")).otherwise(word.replace(_WORD_VERBS)),
            "cards": pl.when(args.is_not_null()).then(_bracket(rest))}
    elif cat == "shows":
        reading_at = text.str.find("] (", literal=True) + 3
        out |= {"cards": _bracket(rest), "reading": pl.when(text.str.ends_with(")")).then(
            text.str.slice(reading_at, text.str.len_chars() - reading_at - 1))}
    elif cat == "discards":
        out |= {"cards": _bracket(rest), "drawn": _bracket(rest, 1)}
    elif cat == "dealer":
        out |= {"actor": pl.lit("dealer"),
                "seat": _field(args, " to Seat ").cast(pl.Int32, strict=False),
                "cards": pl.when(word != "returns").then(
                    pl.when(args.is_not_null()).then(_bracket(rest))),
                "amount": pl.when(word == "returns").then(_cents(_field(args, " ", 0)))}
    else:  # floor
        ruling = _field(_field(rest, " "), " ")  # "Seat N false openers" -> "false openers"
        on_seat = rest.str.starts_with("Seat ")
        out |= {"actor": pl.lit("floor"),
                "verb": pl.when(on_seat).then(_field(ruling, " ", 0).replace(_FLOOR_VERBS))
                .when(word == "pot").then(rest).otherwise(word),
                "seat": pl.when(on_seat).then(
                    rest.str.slice(5, 2).str.strip_suffix(" ").cast(pl.Int32, strict=False)),
                "amount": _cents(_field(ruling, "penalty ")),
                "note": pl.when(word == "note").then(args)}
    out.setdefault("all_in", pl.lit(False))
    for name, dtype in _NULLS.items():
        out.setdefault(name, pl.lit(None, dtype=dtype))
    return frame.select(
        "idx", "action_index", "line", "cur",
        **{name: expr for name, expr in out.items()},
    )


def _actions(actions: pl.DataFrame) -> pl.DataFrame:
    rest = _field(pl.col("text"), ": ")
    # One split gives both the verb word and its arguments.
    frame = actions.with_columns(rest=rest).with_columns(
        words=pl.col("rest").str.splitn(" ", 2)).with_columns(
        word=pl.col("words").struct.field("field_0"),
        args=pl.col("words").struct.field("field_1")).drop("words")
    # Positions are taken before the split by kind; the rows need not be put back in order.
    frame = frame.with_columns(cat=_category(),
                               action_index=pl.Series(_position_in_hand(frame["idx"])))
    parts = [_extract(str(cat[0]), part)
             for cat, part in frame.partition_by("cat", as_dict=True).items()]
    columns = ["idx", "action_index", "line", "cur", "actor", "verb", "seat", "amount",
               "to_amount", "cards", "drawn", "all_in", "side_pot", "reading", "note"]
    empty = frame.select("idx", "action_index", "line", "cur").with_columns(
        actor=pl.lit(None, pl.String), verb=pl.lit(None, pl.String), seat=pl.lit(None, pl.Int32),
        all_in=pl.lit(None, pl.Boolean), **{n: pl.lit(None, dtype=d) for n, d in _NULLS.items()})
    merged = pl.concat([p.select(columns) for p in parts]) if parts else empty.select(columns)
    return merged.select(
        "idx",
        action_index=pl.col("action_index").cast(pl.Int32),
        line=pl.col("line"),
        section=pl.col("cur").replace_strict(_SECTION_NAMES, default=None, return_dtype=pl.String),
        actor="actor", verb="verb", seat=pl.col("seat").cast(pl.Int32, strict=False),
        amount="amount",
        to_amount="to_amount", cards="cards", drawn="drawn", all_in="all_in",
        side_pot="side_pot", reading="reading", note="note",
    )
