"""Crash tests with real processes on one SQLite file: a host SIGKILLed while a tool
runs, while the model is being called, or between steps (after a tool batch was
committed), then resumed by another process; and two processes racing to resume one
thread (`_host_procs.py`)."""

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


def killed(tmp_path: Path, mode: str, where: dict[str, object], *flags: str) -> tuple[Path, Path]:
    """Start a host in `mode`, wait until it says `where` it hangs, SIGKILL it."""
    db, effects = tmp_path / "threads.db", tmp_path / "effects.txt"
    worker = start(mode, db, effects, *flags)
    try:
        assert "thread_id" in said(worker)
        assert said(worker) == where
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    return db, effects


def killed_mid_tool(tmp_path: Path, *flags: str) -> tuple[Path, Path]:
    return killed(tmp_path, "start", {"tool": "started"}, *flags)


def model_calls(effects: Path) -> list[str]:
    """The process id of every model call made, in order."""
    return effects.with_suffix(".calls").read_text().splitlines()


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


def test_a_host_killed_mid_model_call_is_resumed_by_calling_the_model_again(
    tmp_path: Path,
) -> None:
    """T10: nothing of the call in flight was committed; the other process calls the
    model again and finishes the turn, the tool running once."""
    db, effects = killed(tmp_path, "start-first-call", {"provider": "first call"})
    report = resumed(db, effects)
    assert report["status"] == "done"
    assert report["items"] == [
        ["user", None, "pay 5"],
        ["tool_call", "done", "charged 5"],
        ["assistant", None, "paid"],
    ]
    calls = model_calls(effects)
    assert len(calls) == 3
    assert calls[0] != calls[1] == calls[2]
    assert len(effects.read_text().splitlines()) == 1


def test_a_host_killed_between_steps_resumes_after_the_committed_tool_batch(
    tmp_path: Path,
) -> None:
    """The tool batch was committed before the host died: the other process goes on
    from its results, never running the (non-idempotent) tool again."""
    db, effects = killed(tmp_path, "start-second-call", {"provider": "second call"})
    report = resumed(db, effects)
    assert report["status"] == "done"
    assert report["items"] == [
        ["user", None, "pay 5"],
        ["tool_call", "done", "charged 5"],
        ["assistant", None, "paid"],
    ]
    assert len(effects.read_text().splitlines()) == 1
    first, second, third = model_calls(effects)
    assert first == second != third


def test_two_processes_racing_to_resume_a_thread_run_it_exactly_once(tmp_path: Path) -> None:
    """T2: both see the dead host's thread; one claims it and finishes the turn, the
    other only watches. The idempotent tool ran twice in all (the dead host, then the
    winner), and the model was called once after the crash."""
    db, effects = killed_mid_tool(tmp_path, "idempotent")
    racers = [start("resume", db, effects, "idempotent") for _ in range(2)]
    try:
        reports = [said(racer) for racer in racers]
        assert [racer.wait(timeout=20) for racer in racers] == [0, 0]
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
    assert [report["status"] for report in reports] == ["done", "done"]
    assert reports[0]["items"] == reports[1]["items"]
    assert len(effects.read_text().splitlines()) == 2
    calls = model_calls(effects)
    assert len(calls) == 2
    assert calls[1] in {str(racer.pid) for racer in racers}
