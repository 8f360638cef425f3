"""Logging for an unattended job: a progress bar for a person, lines for a machine.

On a terminal (``--log-format text`` and stderr is a TTY) the job shows rich
progress bars and coloured messages. Otherwise — cron mail, systemd's journal,
a log file — it writes one plain line per event (``text``) or one JSON object
per line (``json``), so that log collectors can parse it. Progress is then
logged at coarse steps rather than redrawn.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console


class LogFormat(StrEnum):
    """How the job writes its log."""

    TEXT = "text"
    JSON = "json"


#: Plain logs report progress at most this many times per stage.
_PLAIN_STEPS = 10


class JobLog:
    """The job's log: events with fields, and progress per stage."""

    def __init__(self, fmt: LogFormat = LogFormat.TEXT, stream: TextIO | None = None) -> None:
        self.fmt = fmt
        self.stream = stream if stream is not None else sys.stderr
        self._rich = fmt is LogFormat.TEXT and self.stream.isatty()
        self._console: Console | None = None
        if self._rich:  # rich only on a terminal: a tenth of a second of imports otherwise
            from rich.console import Console

            self._console = Console(file=self.stream)

    def info(self, message: str, **fields: Any) -> None:
        """Log an ordinary event."""
        self._emit("info", message, fields)

    def warning(self, message: str, **fields: Any) -> None:
        """Log something a person should look at, which did not stop the job."""
        self._emit("warning", message, fields)

    def error(self, message: str, **fields: Any) -> None:
        """Log why the job failed."""
        self._emit("error", message, fields)

    def _emit(self, level: str, message: str, fields: dict[str, Any]) -> None:
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        if self.fmt is LogFormat.JSON:
            record = {"time": now, "level": level, "message": message, **fields}
            self.stream.write(json.dumps(record, default=str) + "\n")
        elif self._console is not None:
            style = {"info": "", "warning": "yellow", "error": "bold red"}[level]
            extra = " ".join(f"[dim]{k}[/dim]={v}" for k, v in fields.items())
            self._console.print(f"[{style}]{message}[/{style}] {extra}" if style else
                                f"{message} {extra}", highlight=False)
        else:
            extra = "".join(f" {k}={_plain(v)}" for k, v in fields.items())
            self.stream.write(f"{now} {level.upper():7} {message}{extra}\n")
        self.stream.flush()

    @contextmanager
    def stage(self, name: str, total: int) -> Iterator[Callable[[int], None]]:
        """A stage of ``total`` units; yields ``advance(n)`` to report ``n`` more done."""
        if self._console is not None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            )
            with Progress(*columns, console=self._console, transient=False) as progress:
                task = progress.add_task(name, total=total or None)
                yield lambda n: progress.advance(task, n)
            return
        done = 0
        step = max(1, total // _PLAIN_STEPS)
        next_report = step

        def advance(n: int) -> None:
            nonlocal done, next_report
            done += n
            if done >= next_report and done < total:
                self.info(f"{name}: progress", stage=name, done=done, total=total)
                next_report = done + step

        self.info(f"{name}: start", stage=name, total=total)
        watch = Stopwatch()
        yield advance
        self.info(f"{name}: done", stage=name, done=done, total=total,
                  seconds=watch.seconds(), **watch.figures())


class Stopwatch:
    """A stage's figures for its log line: wall and CPU seconds since it started, and the
    job's peak memory so far."""

    def __init__(self) -> None:
        self._wall, self._cpu = time.perf_counter(), _cpu_seconds()

    def seconds(self) -> float:
        """Wall seconds since the start."""
        return round(time.perf_counter() - self._wall, 3)

    def figures(self) -> dict[str, float | int]:
        """``cpu_seconds`` since the start (this process and its ended children) and
        ``peak_mib``."""
        return {"cpu_seconds": round(_cpu_seconds() - self._cpu, 3), "peak_mib": peak_mib()}


def _cpu_seconds() -> float:
    """CPU time of this process (every thread) and of its children that have ended (the
    audit's pool workers, once the pool is shut down)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def peak_mib() -> int:
    """This process's peak resident memory so far, in MiB (0 where the platform does not
    say): logged at the end of each stage, so the stage that set the job's peak is the
    first whose figure reaches it."""
    try:
        import resource  # Unix only
    except ImportError:
        return 0
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) // 1024  # KiB on Linux


def _plain(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if (" " in text or not text) else text
