"""Cards drawn as cards: small HTML tiles with the suit in its colour.

A four-colour deck (spades black, hearts red, diamonds blue, clubs green) so a
flush and a misread are visible at a glance; the joker is a purple ``JKR`` tile
with a star, and an unrecorded card (``??``) is drawn face down.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

SUIT_SYMBOL = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
SUIT_COLOUR = {"s": "#1f1f1f", "h": "#c62828", "d": "#1565c0", "c": "#2e7d32"}
SUIT_NAME = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_TEXT = {"T": "10"}

CARD_CSS = """
<style>
.op-card{display:inline-block;white-space:nowrap;min-width:2.1em;padding:.15em .3em;margin:0 .12em;
 border:1px solid #9e9e9e;border-radius:.3em;background:#fff;font-weight:700;
 text-align:center;font-family:ui-monospace,monospace;line-height:1.3}
.op-joker{background:#f3e5f5;color:#6a1b9a;border-color:#6a1b9a}
.op-back{background:repeating-linear-gradient(45deg,#90a4ae,#90a4ae 3px,#cfd8dc 3px,#cfd8dc 6px);
 color:transparent}
.op-step{padding:.25em .5em;border-radius:.3em;margin:.1em 0}
.op-bad{background:#ffebee;border-left:4px solid #c62828}
.op-raw{font-family:ui-monospace,monospace;font-size:.78em;white-space:pre;line-height:1.45;
 overflow-x:auto;max-width:100%}
.op-seats td,.op-seats th{padding:.2em .35em;white-space:nowrap}
.op-raw-bad{background:#ffcdd2}
</style>
"""


def card_html(code: str) -> str:
    """One card as an HTML tile (the code is escaped even though cards are validated)."""
    if code == "Jk":
        return '<span class="op-card op-joker" title="joker">★JKR</span>'
    if code == "??" or len(code) != 2 or code[1] not in SUIT_SYMBOL:
        return f'<span class="op-card op-back" title="unrecorded card">{html.escape(code)}</span>'
    rank, suit = code[0], code[1]
    colour = SUIT_COLOUR[suit]
    label = html.escape(RANK_TEXT.get(rank, rank))
    title = f"{label} of {SUIT_NAME[suit]}"
    return (
        f'<span class="op-card" style="color:{colour}" title="{title}">'
        f"{label}{SUIT_SYMBOL[suit]}</span>"
    )


def cards_html(codes: Iterable[str] | None) -> str:
    """A row of cards; an empty string for no cards."""
    if not codes:
        return ""
    return "".join(card_html(c) for c in codes)
