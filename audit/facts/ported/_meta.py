"""Scratch: a ported rule takes its code, name, severity, source, summary and docstring
from the rule it replaces (until the migration moves its check into that module)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def like(old: Any) -> Callable[[T], T]:
    def apply(cls: T) -> T:
        for name in ("code", "name", "severity", "source", "summary", "__doc__"):
            setattr(cls, name, getattr(old, name))
        return cls
    return apply
