"""Log lines for machines: plain key=value lines, or one JSON object per line."""

from __future__ import annotations

import io
import json

from openers.nightly.joblog import JobLog, LogFormat, peak_mib


def test_json_lines_carry_level_message_and_fields():
    out = io.StringIO()
    log = JobLog(LogFormat.JSON, out)
    log.info("run started", run_id=3)
    with log.stage("ingest", 100) as advance:
        for _ in range(10):
            advance(10)
    log.error("run failed: disk full")
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0]["message"] == "run started" and records[0]["run_id"] == 3
    assert records[0]["level"] == "info" and records[0]["time"].endswith("Z")
    progress = [r for r in records if r.get("stage") == "ingest"]
    assert progress[0]["message"] == "ingest: start" and progress[-1]["done"] == 100
    # Coarse progress: not one line per advance, but some in between.
    assert 2 < len(progress) <= 12
    assert records[-1]["level"] == "error"


def test_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    JobLog(LogFormat.TEXT, out).warning("file shrank", file="/in/a b.log")
    line = out.getvalue()
    assert "WARNING" in line and 'file="/in/a b.log"' in line and "\x1b[" not in line


def test_a_stage_ends_with_the_peak_memory_so_far():
    out = io.StringIO()
    log = JobLog(LogFormat.JSON, out)
    with log.stage("audit", 1) as advance:
        held = bytearray(64 << 20)  # 64 MiB touched inside the stage
        held[:: 4096] = b"x" * len(held[:: 4096])
        advance(1)
    done = [json.loads(line) for line in out.getvalue().splitlines()][-1]
    assert done["message"] == "audit: done"
    assert done["peak_mib"] >= 64 and done["peak_mib"] == peak_mib()
    del held
