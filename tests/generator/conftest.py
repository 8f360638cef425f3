"""Shared helpers: generate a small cardroom into a temporary directory."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openers.generator import GenerateConfig, generate
from openers.generator.generate import LABELS_FILE, LOGS_DIR

Generate = Callable[..., Path]


@pytest.fixture
def make_room(tmp_path: Path) -> Generate:
    """``make_room(name, hands=..., **config)`` writes a cardroom and returns its directory."""

    def run(name: str = "room", **kwargs: Any) -> Path:
        out = tmp_path / name
        generate(GenerateConfig(**kwargs), out)
        return out

    return run


def read_labels(out: Path) -> list[dict[str, Any]]:
    """The label lines of a generated directory."""
    return [json.loads(line) for line in (out / LABELS_FILE).read_text().splitlines()]


def log_files(out: Path) -> list[Path]:
    """The generated log files, sorted."""
    return sorted((out / LOGS_DIR).iterdir())
