"""Crash tests with real processes on one SQLite file: a host SIGKILLed while a tool
runs, then resumed by another process (`_host_procs.py`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PROCS = Path(__file__).resolve().parent / "_host_procs.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def start(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), *map(str, args)], stdout=subprocess.PIPE, text=True
    )


def said(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"worker exited with {process.wait()} before reporting"
    message: dict[str, object] = json.loads(line)
    return message


def killed_mid_tool(tmp_path: Path, *flags: str) -> tuple[Path, Path]:
    db, effects = tmp_path / "threads.db", tmp_path / "effects.txt"
    worker = start("start", db, effects, *flags)
    try:
        assert "thread_id" in said(worker)
        assert said(worker) == {"tool": "started"}
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    return db, effects


def resumed(db: Path, effects: Path, *flags: str) -> dict[str, object]:
    worker = start("resume", db, effects, *flags)
    try:
        report = said(worker)
        assert worker.wait(timeout=20) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
    return report


def test_a_host_killed_mid_tool_is_resumed_without_replaying_the_effect(tmp_path: Path) -> None:
    """T8: the other process ends the turn effect_outcome_unknown; the tool ran once."""
    db, effects = killed_mid_tool(tmp_path)
    report = resumed(db, effects)
    assert report["status"] == "effect_outcome_unknown"
    items = report["items"]
    assert isinstance(items, list)
    assert items[1][:2] == ["tool_call", "error"]
    assert str(items[1][2]).startswith("outcome unknown")
    assert len(effects.read_text().splitlines()) == 1


def test_a_host_killed_mid_idempotent_tool_reruns_it_with_the_same_key(tmp_path: Path) -> None:
    """T9: the other process runs the call again with the same key and finishes."""
    db, effects = killed_mid_tool(tmp_path, "idempotent")
    report = resumed(db, effects, "idempotent")
    assert report["status"] == "done"
    keys = effects.read_text().splitlines()
    assert len(keys) == 2
    assert keys[0] == keys[1]
