"""``openers dashboard``: the server goes down with the command, and hides developer tools."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import tomllib
import urllib.request
from pathlib import Path

from tests.dashboards.conftest import OPENERS, ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


def _start(store: Path, tmp_path: Path) -> tuple[subprocess.Popen[bytes], str, int]:
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [*OPENERS, "dashboard", "--db", str(store), "--port", str(port),
         "--reviews", str(tmp_path / "r.sqlite")],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    assert _wait(lambda: _healthy(url) or proc.poll() is not None, 60)
    assert proc.poll() is None, (tmp_path / "server.log").read_text()
    return proc, url, port


def test_sigterm_stops_the_streamlit_child(store: Path, tmp_path: Path) -> None:
    """Issue 12: stopping ``openers dashboard`` (SIGTERM) left the Streamlit child serving."""
    proc, url, _ = _start(store, tmp_path)
    try:
        children = _children(proc.pid)
        assert children, "openers dashboard runs Streamlit as a child"
        proc.send_signal(signal.SIGTERM)  # the command only, as a service manager would
        proc.wait(timeout=30)
        assert _wait(lambda: not any(_alive(c) for c in children), 20), "the child survived"
        assert not _healthy(url)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def test_a_killed_command_takes_its_child_along(store: Path, tmp_path: Path) -> None:
    proc, _, _ = _start(store, tmp_path)
    try:
        children = _children(proc.pid)
        proc.kill()  # SIGKILL: no handler runs; the kernel tells the child
        proc.wait(timeout=30)
        assert _wait(lambda: not any(_alive(c) for c in children), 20), "the child survived"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def test_the_app_config_hides_deploy_and_developer_menu() -> None:
    config = tomllib.loads((ROOT / "dashboards" / ".streamlit" / "config.toml").read_text())
    assert config["client"]["toolbarMode"] == "viewer"
    assert config["browser"]["gatherUsageStats"] is False
