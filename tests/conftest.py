"""Suite-wide collection order: the long tests first.

``pytest -n 2`` deals tests to its two workers in collection order; a long test dealt
near the end keeps one worker busy while the other has nothing left (the longest ones
sat at the end of the order: generator acceptance, crash tests). Starting the tests
marked ``slow`` (and the browser tests) first lets the short ones fill in around them.
The order inside each group is kept, so a module's tests stay together.
"""

from __future__ import annotations

import pytest

#: Markers of the tests started first.
_FIRST = ("slow", "browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Move the long tests to the front (a stable sort: the rest keep their order)."""
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in _FIRST))
