"""One module per page; this list is the navigation order.

The folder is ``views`` and not ``pages`` on purpose: Streamlit treats a ``pages/``
folder beside the entry file as an old-style multipage app, and a first visit to
``/findings`` would then run that page without ``app.py`` (no navigation, no
page config).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """A page of the app: its module under ``dashboards/views`` and how it is shown."""

    module: str
    title: str
    url_path: str
    icon: str
    default: bool = False


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview", "Overview", "overview", ":material/dashboard:", default=True),
    PageSpec("findings", "Findings", "findings", ":material/flag:"),
    PageSpec("hand", "Hand", "hand", ":material/playing_cards:"),
    PageSpec("tables", "Tables", "tables", ":material/table_restaurant:"),
    PageSpec("dealers", "Dealers", "dealers", ":material/badge:"),
    PageSpec("players", "Players", "players", ":material/groups:"),
    PageSpec("integrity", "Integrity", "integrity", ":material/policy:"),
    PageSpec("data_quality", "Data quality", "data-quality", ":material/rule:"),
    PageSpec("browse", "Browse", "browse", ":material/table_view:"),
    PageSpec("sql", "SQL", "sql", ":material/terminal:"),
)
