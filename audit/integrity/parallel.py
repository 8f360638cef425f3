"""The integrity tests on a second core: a forked worker fed the batches the main process reads.

The main process holds the store's connection, so it alone reads and replays the batches
(DuckDB lets no second process open the store). Once a batch is replayed and viewed, a
share of the tests (:func:`worker_share`, chosen by their measured cost) is fed in a
worker process forked when the analysis starts, while the main process feeds the others
and reads the next batch. At the end the worker gives its tests' cells; the main process
merges them in the registry's order, runs the false discovery control over all of them,
and asks the worker for the evidence of its cells that became alerts (the evidence of a
cell is kept where its test ran, in that process's temporary files).

Every test sees the same batches, in the same order, with the same numbers, as it would
in one process: its cells are the same to the bit.

A batch travels as one unnamed file (in memory, ``memfd``, where the system has it),
handed over open through the pipe: the view's arrays are written once (the lines of play,
which no test reads, are left out: :func:`lean`), and the worker maps the file (no copy,
read-only); the file is gone when the worker drops the batch, and nothing is left on disk
if either process is killed. At most :data:`AHEAD` batches are in flight, so the files
never hold more than that while the worker lags. A failure in the worker (an exception,
or its death) is raised in the main process as :class:`WorkerFailed`; the worker is
killed if the main process fails or dies.
"""

from __future__ import annotations

import dataclasses
import mmap
import multiprocessing
import os
import pickle
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from multiprocessing.connection import Connection
from multiprocessing.reduction import recv_handle, send_handle
from typing import Any, BinaryIO

from audit.integrity.features import BatchView, Lookup
from audit.integrity.frames import Batch, Names
from audit.integrity.heap import keep_heap, trim_heap
from audit.integrity.model import Cell, Evidence
from audit.integrity.registry import instances
from audit.integrity.rows import Compact, compact
from audit.integrity.test import Settings
from audit.workers import default_workers, die_with_parent, no_cyclic_gc

#: The tests the main process keeps in a run of at most :data:`SHORT_RUN_BATCHES` batches;
#: in a longer one, every test is fed in the worker. The main process reads, replays and
#: views every batch, about as long as every test's feeding takes, so in a long run the
#: worker takes them all; but the worker waits while the first batch is read, and in a run
#: of one or two batches that wait is a large share of the stage: the main process then
#: keeps the dealing tests that read the dealt hands (measured on 100,000 and modelled on
#: 1,000,000 hands, ``benchmarks/integrity.md``).
SHORT_RUN_MAIN = frozenset({"F101", "F102", "F103", "F104", "F105", "F108", "F109"})
SHORT_RUN_BATCHES = 2
#: Batches written for the worker and not yet fed, at most.
AHEAD = 2
#: Buffers start at multiples of this in a batch's file (as aligned as numpy's own).
_ALIGN = 64
#: The batch's per-line arrays (no test reads them): sent empty.
_LINE_FIELDS = tuple(f.name for f in dataclasses.fields(Batch)
                     if f.name.startswith("a_") or f.name == "cards")


class WorkerFailed(RuntimeError):
    """The worker's tests failed (its traceback is the message) or the worker died."""


def use_worker(workers: int | None) -> bool:
    """Whether to fork a worker: ``workers`` (None: one if this process may use two cores
    or more), where ``fork`` exists."""
    wanted = (1 if default_workers() >= 2 else 0) if workers is None else workers
    return wanted > 0 and "fork" in multiprocessing.get_all_start_methods()


def worker_share(codes: Sequence[str], batches: int) -> list[str]:
    """The tests of ``codes`` to feed in the worker, in a run of ``batches`` batches."""
    keep = SHORT_RUN_MAIN if batches <= SHORT_RUN_BATCHES else frozenset()
    return [code for code in codes if code not in keep]


def lean(view: BatchView) -> BatchView:
    """``view`` without the batch's lines of play (every test reads hands, seats, the
    replayed facts; none reads the lines again)."""
    empty = {name: getattr(view.batch, name)[:0] for name in _LINE_FIELDS}
    return dataclasses.replace(view, batch=dataclasses.replace(view.batch, **empty))


#: The worker's cells by code (:func:`audit.integrity.rows.compact`), those kept whole
#: without their evidence (left in the worker: ask for it with
#: :meth:`IntegrityWorker.evidence`).
RemoteCells = dict[str, Compact]


class IntegrityWorker:
    """The main process's side of the worker (use :func:`forked_worker`)."""

    def __init__(self, codes: Sequence[str], settings: Settings) -> None:
        self.codes = tuple(codes)
        self._sent = 0
        self._fed = 0
        trim_heap()  # fewer pages shared with the worker
        context = multiprocessing.get_context("fork")
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_serve,
                                        args=(theirs, self._conn, self.codes, settings),
                                        name="openers-integrity-worker", daemon=True)
        self._process.start()
        theirs.close()

    def feed(self, view: BatchView) -> None:
        """Send a batch to the worker's tests (waits while :data:`AHEAD` are in flight)."""
        while self._sent - self._fed >= AHEAD:
            self._reply("fed")
        buffers: list[pickle.PickleBuffer] = []
        header = pickle.dumps(lean(view), protocol=5, buffer_callback=buffers.append)
        spans = []
        with _batch_file() as out:
            at = 0
            for buffer in buffers:
                raw = buffer.raw()
                pad = -at % _ALIGN
                out.write(b"\0" * pad)
                at += pad
                spans.append((at, raw.nbytes))
                out.write(raw)
                at += raw.nbytes
            out.flush()
            self._send(("batch", header, spans))
            try:  # the file itself: it has no name, so nothing is left if either dies
                send_handle(self._conn, out.fileno(), self._process.pid or 0)
            except OSError as exc:
                raise self._died() from exc
        self._sent += 1

    def ask_cells(self, names: Names, fdr: float) -> None:
        """Ask for the worker's cells once every batch is sent (collect them with
        :meth:`cells`; the main process judges its own tests' meanwhile)."""
        self._send(("cells", names, fdr))

    def cells(self) -> RemoteCells:
        """Every cell of the worker's tests (see :data:`RemoteCells`), those that may
        become alerts at the rate asked whole."""
        cells: RemoteCells = self._reply("cells")
        return cells

    def evidence(self, keys: Sequence[tuple[str, int]]) -> list[Evidence]:
        """The evidence of the worker's cells ``(code, index in its test's cells)``."""
        self._send(("evidence", list(keys)))
        found: list[Evidence] = self._reply("evidence")
        return found

    def close(self, *, wait: float = 0.0) -> None:
        """Stop the worker: ``wait`` seconds for it to end by itself once the pipe is
        closed, then killed, whatever it was doing."""
        self._conn.close()
        self._process.join(wait)
        if self._process.is_alive():
            self._process.kill()
        self._process.join()

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._conn.send(message)
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise self._died() from exc

    def _reply(self, kind: str) -> Any:
        """The worker's next reply of ``kind`` (counting the batches it fed on the way)."""
        while True:
            try:
                got, payload = self._conn.recv()
            except (EOFError, ConnectionResetError) as exc:
                raise self._died() from exc
            if got == "error":
                raise WorkerFailed(f"the integrity worker failed:\n{payload}")
            if got == "fed":
                self._fed += 1
                if kind == "fed":
                    return None
            elif got == kind:
                return payload
            else:
                raise WorkerFailed(f"the integrity worker answered {got!r}, not {kind!r}")

    def _died(self) -> WorkerFailed:
        """The failure of a worker whose pipe broke: the error it sent before ending, if
        any, else its exit code."""
        with suppress(OSError, EOFError):
            while self._conn.poll():
                got, payload = self._conn.recv()
                if got == "error":
                    return WorkerFailed(f"the integrity worker failed:\n{payload}")
        self._process.join(5)
        return WorkerFailed(f"the integrity worker ended (exit code {self._process.exitcode})")


@contextmanager
def forked_worker(codes: Sequence[str], settings: Settings) -> Iterator[IntegrityWorker]:
    """A worker running the tests ``codes``, stopped when the block ends."""
    worker = IntegrityWorker(codes, settings)
    try:
        yield worker
    except BaseException:
        worker.close()
        raise
    worker.close(wait=5.0)


def _batch_file() -> BinaryIO:
    """A new unnamed file for a batch: in memory where the system allows it (``memfd``: no
    disk, and no wait for the disk when others write much), else a temporary file."""
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("openers-integrity-batch"), "wb")
    return tempfile.TemporaryFile(prefix="openers-integrity-batch-")


def _serve(conn: Connection, main_end: Connection, codes: tuple[str, ...],
           settings: Settings) -> None:
    """The worker: feed each batch to its tests, then give their cells and evidence (until
    the main process closes the pipe: its end, inherited, is closed here)."""
    die_with_parent()
    main_end.close()
    keep_heap()  # each batch's arrays reuse the last one's pages (audit.integrity.heap)
    try:
        with no_cyclic_gc():
            _answer(conn, codes, settings)
    except BaseException:
        with suppress(OSError):
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def _answer(conn: Connection, codes: tuple[str, ...], settings: Settings) -> None:
    tests = instances(settings, codes)
    names = Names()
    lookup = Lookup(names)
    kept: dict[tuple[str, int], Cell] = {}
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return  # the main process is done with us
        kind = message[0]
        if kind == "batch":
            view = _mapped(recv_handle(conn), *message[1:])
            lookup.add_batch(view.batch)
            for test in tests:
                test.feed(view)
            del view
            conn.send(("fed", None))
        elif kind == "cells":
            names.players, names.dealers, names.tables = (
                message[1].players, message[1].dealers, message[1].tables)
            lookup.freeze()
            out: RemoteCells = {}
            for test in tests:
                rows, whole = compact(test.cells(lookup), message[2])
                kept.update(((test.code, i), cell) for i, cell in whole.items())
                out[test.code] = (rows, {i: dataclasses.replace(cell, evidence=Evidence)
                                         for i, cell in whole.items()})
            conn.send(("cells", out))
        elif kind == "evidence":
            conn.send(("evidence", [kept[key].evidence() for key in message[1]]))


def _mapped(fd: int, header: bytes, spans: list[tuple[int, int]]) -> BatchView:
    """A batch's view from its file (``fd``, closed here), its arrays over the mapped file
    (read-only; unmapped when the last of them goes)."""
    try:
        size = os.fstat(fd).st_size
        memory: mmap.mmap | bytes = (mmap.mmap(fd, size, access=mmap.ACCESS_READ)
                                     if size else b"")
    finally:
        os.close(fd)
    whole = memoryview(memory)
    view: BatchView = pickle.loads(header, buffers=[whole[at:at + n] for at, n in spans])
    return view


__all__ = ["AHEAD", "SHORT_RUN_BATCHES", "SHORT_RUN_MAIN", "IntegrityWorker", "WorkerFailed",
           "forked_worker", "lean", "use_worker", "worker_share"]
