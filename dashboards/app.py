"""The compliance dashboards: entry file, run with ``openers dashboard``.

``st.navigation`` lists one page per module of ``dashboards/views/``; the
pages hold layout only and call :mod:`dashboards.queries` through
:func:`dashboards.state.load`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# `streamlit run` executes this file as a script: make the project importable
# even when the package is not installed (a fresh clone run from its root).
_ROOT = Path(__file__).resolve().parent.parent
if str(_ROOT) not in sys.path:
    sys.path.insert(0, str(_ROOT))

from dashboards.state import store_path  # noqa: E402
from dashboards.text import md  # noqa: E402
from dashboards.views import PAGES  # noqa: E402

st.set_page_config(page_title="Openers: compliance", page_icon="🃏", layout="wide")

page = st.navigation(
    [
        st.Page(
            str(Path(__file__).parent / "views" / f"{spec.module}.py"),
            title=spec.title,
            url_path=spec.url_path,
            icon=spec.icon,
            default=spec.default,
        )
        for spec in PAGES
    ]
)
st.sidebar.caption(f"Store: {md(store_path().name)} (read-only)")
page.run()
