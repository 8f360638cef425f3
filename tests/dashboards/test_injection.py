"""Every string from a log (and from an officer) is shown as text, never as markdown or HTML.

Issue 15, observation 8: a dealer id, player id, file name, reviewer name or a
``?hand_id=`` link holding ``![x](http://host/x.png)`` was rendered as markdown and the
officer's browser fetched the outside URL. Here a store is built whose hands carry
payloads in every free-text field, an officer with a payload for a name files a
payload note, and every page is rendered: each piece of markdown the app sends is
rendered with a CommonMark parser, and no image, link or raw HTML may come out of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from dashboards.text import md
from tests.dashboards.conftest import decide, open_page, openers, sql, write_house
from tests.nightly.handmaker import broken_hand_text, hand_text

EVIL = "![x](http://evil.example/x.png)"
PAYLOADS = (
    EVIL,
    "[click](http://evil.example/)",
    "<img src=http://evil.example/i.png>",
    ":red[alarm] $x^2$ `code` **bold**",
)
FILE_NAME = "![f](https:evil.example.png) [f](https:evil.example).log"
RENDER = MarkdownIt("commonmark")


def _hostile_hands() -> str:
    text = hand_text("T01", 1, over_cap=True)
    text = text.replace("Room: Bay City Card Club", f"Room: {' '.join(PAYLOADS)}")
    text = text.replace("Dealer: D-4401", f"Dealer: D{EVIL}")
    text = text.replace("P-10023", f"P{EVIL}").replace("P-30988", "P[click](http://evil.example/)")
    broken = broken_hand_text("T01", 2).replace("Seat 6: dances", f"Seat 6: {EVIL}")
    return f"{text}\n{broken}\n{hand_text('T01', 3)}\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A store of hostile hands, a review file, and the app pointed at both."""
    root = tmp_path_factory.mktemp("hostile")
    inbox = root / "inbox"
    inbox.mkdir()
    (inbox / FILE_NAME).write_text(_hostile_hands(), encoding="utf-8")
    store = root / "openers.duckdb"
    done = openers("nightly", str(inbox), "--db", str(store), "--reports", str(root / "reports"),
                   "--fail-on", "never")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    house = write_house(root, reviewers=(EVIL, "ana"))
    saved = {k: os.environ.get(k) for k in ("OPENERS_DB", "OPENERS_REVIEWS", "OPENERS_HOUSE")}
    os.environ.update(OPENERS_DB=str(store), OPENERS_REVIEWS=str(root / "r.sqlite"),
                      OPENERS_HOUSE=str(house))  # fmt: skip
    yield store, root / "r.sqlite"
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _nodes(child)


_MARKDOWN_FIELDS = {"body", "label", "help", "placeholder", "caption"}
_PLAIN = {"Html", "Code", "Dataframe", "Json", "Text", "UnknownElement"}


def _strings(message: Any, fields: set[str]) -> Iterator[str]:
    if isinstance(message, dict):
        for key, value in message.items():
            if key in fields and isinstance(value, str):
                yield value
            elif key not in ("options", "default", "value", "formattedOptions", "rawValues"):
                yield from _strings(value, fields)
    elif isinstance(message, list):
        for item in message:
            yield from _strings(item, fields)


def check_page(at: AppTest) -> int:
    """Assert no markdown of the page renders an image, a link out or HTML; return how many
    pieces of text were checked."""
    assert not at.exception, [e.value for e in at.exception]
    checked = 0
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is None or not hasattr(proto, "DESCRIPTOR"):
            continue
        kind = type(node).__name__
        if kind == "Html":
            # The app's own HTML has no image, link, script or frame: any such tag is injected.
            assert not re.search(r"<(img|a|script|iframe)\b", proto.body.lower()), proto.body
            checked += 1
            continue
        if kind in _PLAIN:
            continue
        for text in _strings(MessageToDict(proto), _MARKDOWN_FIELDS):
            rendered = RENDER.render(text)
            assert "<img" not in rendered, (kind, text)
            assert not re.search(r"<a href=\"(https?:|//)", rendered), (kind, text)
            assert "<img" not in text.lower() or "\\<img" in text, (kind, text)
            checked += 1
    return checked


def test_payloads_reach_the_store(hostile: tuple[Path, Path]) -> None:
    store, _ = hostile
    (room, dealer) = sql(store, "SELECT room, dealer_id FROM hands"
                                " WHERE hand_id = 'BCY-T01-000001'")[0]
    assert EVIL in room and EVIL in dealer
    assert sql(store, "SELECT count(*) FROM quarantine WHERE raw_text LIKE '%evil.example%'")[0][0]
    assert sql(store, "SELECT count(*) FROM stg_seats WHERE player_id LIKE '%evil%'")[0][0] == 2


def test_every_page_shows_log_strings_as_text(hostile: tuple[Path, Path]) -> None:
    hand = "BCY-T01-000001"
    # An officer whose name is a payload files a payload note.
    at = open_page("hand", {"hand_id": hand})
    at.selectbox(key="actor").set_value(EVIL)
    decide(at, "hand", "confirmed", " ".join(PAYLOADS), actor=EVIL)
    assert any(md(EVIL) in s.value for s in at.success)
    checked = check_page(at)

    for page, params in (
        ("overview", {}),
        ("findings", {"dealer": f"D{EVIL}"}),
        ("hand", {"hand_id": EVIL}),
        ("hand", {"hand_id": f"x`) {EVIL} (`"}),
        ("tables", {}),
        ("data_quality", {}),
        ("players", {}),
        ("dealers", {}),
    ):
        at = open_page(page, params)
        checked += check_page(at)
        if page == "findings":
            assert at.multiselect(key="f_dealers").value == [f"D{EVIL}"]
        if page == "players":
            at.text_input(key="p_search").input("evil").run()
            checked += check_page(at)
        if page == "dealers":
            at.selectbox(key="d_dealer").set_value(f"D{EVIL}").run()
            checked += check_page(at)
        if page == "data_quality":
            assert any("evil.example" in c.value for c in at.code)  # raw text, as code
    assert checked > 100


def test_the_markdown_escape_round_trips() -> None:
    for payload in (*PAYLOADS, FILE_NAME, "a\nb # c", "1. list", "> quote", "|t|a|"):
        rendered = RENDER.render(md(payload))
        assert re.fullmatch(r"<p>.*</p>\n", rendered, re.S), rendered
        assert "<img" not in rendered and "<a " not in rendered and "<code>" not in rendered
