"""Strings from logs and from officers, shown as text and never as markdown.

Streamlit renders markdown in ``st.markdown``, ``st.write``, captions, alerts,
headers, tab and expander labels and widget labels. A dealer id, a player id, a
file name, a reviewer's note or a ``?hand_id=`` link can hold
``![x](http://host/x.png)``; rendered, the officer's browser would fetch it. So
every such string goes through :func:`md` before it is put in markdown: each
ASCII punctuation character is backslash-escaped (CommonMark allows that for
all of them, and Streamlit's ``:colour[...]``, ``:emoji:`` and ``$math$`` need
punctuation too), and line breaks become spaces so a value cannot start a
block. Strings put in HTML go through :func:`html.escape` instead.
"""

from __future__ import annotations

import string
from typing import Any

_ESCAPES = {ord(c): f"\\{c}" for c in string.punctuation}
_ESCAPES.update({ord("\n"): " ", ord("\r"): " ", ord("\t"): " "})


def md(value: Any) -> str:
    """``value`` as markdown that shows exactly its text (None shows as an em dash)."""
    if value is None:
        return "—"
    return str(value).translate(_ESCAPES)
