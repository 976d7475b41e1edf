"""A host SIGKILLed while a call shows live activity (a real process on a SQLite file,
`_live_activity_procs.py`): what it showed was never journaled, so a fresh process
shows the call as recovery settled it, without activity, and nothing of the live
activity is in the store's files (AC7)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROCS = Path(__file__).resolve().parent / "_live_activity_procs.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def start(mode: str, db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), mode, str(db)], stdout=subprocess.PIPE, text=True
    )


def view_said(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"worker exited with {process.wait()} before reporting"
    view: dict[str, Any] = json.loads(line)["view"]
    return view


def the_call(view: dict[str, Any]) -> dict[str, Any]:
    (call,) = [item for item in view["items"] if item["kind"] == "tool_call"]
    found: dict[str, Any] = call
    return found


@pytest.mark.timeout(60)
def test_a_host_killed_while_a_call_shows_live_activity_leaves_only_what_was_committed(
    tmp_path: Path,
) -> None:
    db = tmp_path / "threads.db"
    worker = start("run", db)
    try:
        live = view_said(worker)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    shown = the_call(live)
    assert shown["status"] == "running"
    assert shown["activity"]["label"] == "Watching"
    assert [row["text"] for row in shown["activity"]["rows"]] == ["first", "second"]
    for path in sorted(db.parent.glob(db.name + "*")):
        assert b"Watching" not in path.read_bytes(), path
    resumed = start("resume", db)
    after = view_said(resumed)
    assert resumed.wait(timeout=20) == 0
    assert after["status"] == "effect_outcome_unknown"
    settled = the_call(after)
    assert settled["status"] == "error"
    assert settled["activity"] is None
