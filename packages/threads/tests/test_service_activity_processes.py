"""Tool activity survives a SIGKILL (a real process on a SQLite file, `_activity_procs.py`):
a host killed after its turn settled shows a fresh process the same view, activity
included; a host killed right after the write that journals the activity leaves a
journal another process finishes the turn from, with the activity (AC2, AC3)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROCS = Path(__file__).resolve().parent / "_activity_procs.py"
HOST_TOKEN = "host-token-7f3a9c"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

SHOWN = {
    "label": "Fetching a.test",
    "rows": [
        {"text": "connected", "kind": "text", "language": None},
        {"text": "print('hi')", "kind": "code", "language": "python"},
    ],
    "status": "200",
    "answer": None,
    "operation": None,
    "dropped": 0,
}


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


def assert_not_in_files(db: Path, text: str) -> None:
    """RL5: no byte of the store's files (the database, its WAL) holds `text`."""
    files = sorted(db.parent.glob(db.name + "*"))
    assert files
    for path in files:
        assert text.encode() not in path.read_bytes(), path


def activities(view: dict[str, Any]) -> list[object]:
    return [item["activity"] for item in view["items"] if item["kind"] == "tool_call"]


@pytest.mark.timeout(60)
def test_a_host_killed_after_its_turn_shows_a_new_process_the_same_view(tmp_path: Path) -> None:
    """AC3, AC4, RL4, RL5: the labels are journaled with the send, the host map not."""
    db = tmp_path / "threads.db"
    worker = start("run", db)
    try:
        before = view_said(worker)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    assert activities(before) == [
        SHOWN,
        {**SHOWN, "label": "Reading b.txt", "rows": [], "status": None},
    ]
    resumed = start("resume", db)
    after = view_said(resumed)
    assert resumed.wait(timeout=20) == 0
    assert after == before
    assert after["items"][0]["labels"] == {"tenant": "acme"}
    assert_not_in_files(db, HOST_TOKEN)


@pytest.mark.timeout(60)
def test_a_host_killed_as_it_journals_the_activity_leaves_it_for_the_next(tmp_path: Path) -> None:
    """AC3: the activity committed with the results; the turn finishes without rerunning."""
    db = tmp_path / "threads.db"
    crashed = start("crash", db)
    assert crashed.wait(timeout=20) == -signal.SIGKILL
    resumed = start("resume", db)
    after = view_said(resumed)
    assert resumed.wait(timeout=20) == 0
    assert after["status"] == "done"
    assert activities(after)[0] == SHOWN
    assert [item["text"] for item in after["items"] if item["kind"] == "assistant"] == ["done"]
    assert after["items"][0]["labels"] == {"tenant": "acme"}
    assert_not_in_files(db, HOST_TOKEN)
