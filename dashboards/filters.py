"""Filters that live in the URL, so a filtered view can be bookmarked and sent.

A page declares each filter once (widget key, URL name, allowed values); on the
first run of the page its widgets start from the URL, and after the widgets are
drawn the URL is rewritten from them. Values that are not allowed (a code no
finding has, a typo in a sent link) are dropped, never passed to a widget.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol


class QueryParams(Protocol):
    """What the page needs of ``st.query_params``."""

    def get_all(self, key: str) -> list[str]: ...

    def from_dict(self, params: dict[str, Any]) -> None: ...


@dataclass
class UrlFilters:
    """The filters of one page: read from the URL once, written back on every run."""

    params: QueryParams
    #: Where the widgets keep their values (``st.session_state``).
    state: MutableMapping[str, Any]
    #: widget key -> (URL name, kind, default)
    declared: dict[str, tuple[str, str, Any]] = field(default_factory=dict)
    #: URL parameters the page keeps that are not filters (e.g. the selected case).
    keep: tuple[str, ...] = ("case",)

    def _start(self, key: str, value: Any) -> None:
        if key not in self.state:
            self.state[key] = value

    def multi(self, key: str, name: str, allowed: Sequence[str]) -> None:
        """A multiselect: ``?name=a&name=b``."""
        self.declared[key] = (name, "multi", [])
        chosen = [v for v in self.params.get_all(name) if v in allowed]
        self._start(key, chosen)

    def text(self, key: str, name: str) -> None:
        """A text input: ``?name=text``."""
        self.declared[key] = (name, "text", "")
        given = self.params.get_all(name)
        self._start(key, given[-1][:80] if given else "")

    def choice(self, key: str, name: str, allowed: Sequence[str]) -> None:
        """A selectbox: ``?name=value`` (the first allowed value by default)."""
        self.declared[key] = (name, "choice", allowed[0])
        given = [v for v in self.params.get_all(name) if v in allowed]
        self._start(key, given[-1] if given else allowed[0])

    def flag(self, key: str, name: str) -> None:
        """A toggle: ``?name=1``."""
        self.declared[key] = (name, "flag", False)
        self._start(key, self.params.get_all(name)[-1:] == ["1"])

    def dates(self, key: str, first: str, last: str, low: date | None, high: date | None) -> None:
        """A date range: ``?from=2026-11-01&to=2026-11-30`` (the store's range by default)."""
        self.declared[key] = (f"{first}|{last}", "dates", (low, high))
        start = _date(self.params.get_all(first), low)
        end = _date(self.params.get_all(last), high)
        self._start(key, (start, end))

    def clear(self) -> None:
        """Put every filter back to its default."""
        for key, (_, _, default) in self.declared.items():
            self.state[key] = default

    def write_back(self) -> None:
        """Rewrite the URL from the widgets' values (defaults are left out)."""
        out: dict[str, Any] = {k: v for k in self.keep if (v := self.params.get_all(k))}
        for key, (name, kind, default) in self.declared.items():
            value = self.state.get(key, default)
            if value == default:
                continue
            if kind == "multi":
                out[name] = list(value)
            elif kind == "flag":
                out[name] = "1"
            elif kind == "dates":
                first, last = name.split("|")
                if isinstance(value, tuple) and len(value) == 2:
                    out[first], out[last] = value[0].isoformat(), value[1].isoformat()
            else:
                out[name] = str(value)
        self.params.from_dict(out)


def _date(given: list[str], fallback: date | None) -> date | None:
    try:
        return date.fromisoformat(given[-1]) if given else fallback
    except ValueError:
        return fallback
