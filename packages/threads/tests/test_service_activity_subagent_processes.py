"""Sub-agent management calls fail closed across a SIGKILL (real processes on a SQLite
file, `_subagent_procs.py`): a stop whose cancel committed before its host died is run
again by recovery and stops nothing more (the child's next input runs), and a wait
cut short is run again and reports its child as it settled (AC9)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROCS = Path(__file__).resolve().parent / "_subagent_procs.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def run(mode: str, db: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), mode, str(db)], stdout=subprocess.PIPE, text=True
    )


def resumed(db: Path) -> dict[str, Any]:
    process = run("resume", db)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert process.wait(timeout=30) == 0
    said: dict[str, Any] = json.loads(line)
    return said


def calls(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for item in view["items"] if item["kind"] == "tool_call"]


@pytest.mark.timeout(90)
def test_a_stop_cut_short_after_its_cancel_committed_is_not_made_twice(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    crashed = run("stop", db)
    assert crashed.wait(timeout=30) == -signal.SIGKILL
    said = resumed(db)
    view, child = said["view"], said["child"]
    assert view["status"] == "done"
    started, stopped = calls(view)
    assert stopped["status"] == "done"
    assert stopped["activity"]["operation"] == {
        "action": "stop",
        "targets": [started["result"]],
    }
    assert said["ended"] == ["cancelled"]  # one stop: the queued input was not cancelled
    assert child["status"] == "running"
    assert [item["text"] for item in child["items"] if item["kind"] == "user"] == ["C", "again"]


@pytest.mark.timeout(90)
def test_a_wait_cut_short_is_run_again_and_reports_how_its_child_settled(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    crashed = run("wait", db)
    assert crashed.wait(timeout=30) == -signal.SIGKILL
    said = resumed(db)
    view = said["view"]
    assert view["status"] == "done"
    started, waited = calls(view)
    assert waited["activity"]["operation"] == {"action": "wait", "targets": [started["result"]]}
    assert json.loads(waited["result"]) == [
        {"thread_id": started["result"], "status": "effect_outcome_unknown", "answer": None}
    ]
    assert said["ended"] == ["effect_outcome_unknown"]
