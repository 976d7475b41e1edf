"""Artifacts survive a SIGKILL: a host killed after a tool's artifact was committed,
in the model call that followed, is resumed by another process on the same SQLite
file, which shows the same artifacts, serves the same content and lets the model
read on (docs/threads.md, AR3-AR6; `_artifact_procs.py`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PROCS = Path(__file__).resolve().parent / "_artifact_procs.py"
PAGE = "".join(f"line {n:05d} of the page\n" for n in range(1000))

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


def test_a_host_killed_after_an_artifact_is_resumed_with_the_same_artifacts(
    tmp_path: Path,
) -> None:
    db = tmp_path / "threads.db"
    worker = start("start", db)
    try:
        assert "thread_id" in said(worker)
        before = said(worker)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    artifacts = before["artifacts"]
    assert isinstance(artifacts, list)
    assert [a["id"] for a in artifacts] == [before["seen"]]
    assert artifacts[0]["size"] == len(PAGE)

    resumed = start("resume", db)
    try:
        report = said(resumed)
        assert resumed.wait(timeout=20) == 0
    finally:
        if resumed.poll() is None:
            resumed.kill()
    assert report["status"] == "done"
    assert report["artifacts"] == artifacts  # the same view of them, field for field
    assert report["content"] == PAGE
    assert report["answer"] == PAGE[2000:].split("\n")[0]


def test_a_sub_agents_artifact_survives_a_kill_and_a_fork_after_the_restart_serves_it(
    tmp_path: Path,
) -> None:
    """AR9, AR7: a host killed after the parent's results (and the artifact a tool
    returned inside the sub-agent's run) were committed is resumed by another process
    with the same artifacts, the model reads on from the id the sub-agent named, and a
    fork made after the restart serves the same content."""
    db = tmp_path / "threads.db"
    worker = start("start", db, "sub")
    try:
        assert "thread_id" in said(worker)
        before = said(worker)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    artifacts = before["artifacts"]
    assert isinstance(artifacts, list)
    assert [(a["id"], a["agent"], a["call_id"]) for a in artifacts] == [
        (before["seen"], "researcher", "sub-c1")
    ]

    resumed = start("resume", db, "sub")
    try:
        report = said(resumed)
        assert resumed.wait(timeout=20) == 0
    finally:
        if resumed.poll() is None:
            resumed.kill()
    assert report["status"] == "done"
    assert report["artifacts"] == artifacts
    assert report["content"] == PAGE
    assert report["answer"] == PAGE[2000:].split("\n")[0]
    forked = report["forked"]
    assert isinstance(forked, list)
    assert [(a["id"], a["agent"], a["turn_id"]) for a in forked] == [
        (before["seen"], "researcher", None)
    ]
    assert report["forked_content"] == PAGE
