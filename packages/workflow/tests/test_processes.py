"""Crash tests with real processes on one SQLite file: a runner SIGKILLed inside a node
and between nodes, then resumed by another process (`_procs.py`) (W6, W8)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PROCS = Path(__file__).resolve().parent / "_procs.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def spawn(*args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROCS), *map(str, args)], stdout=subprocess.PIPE, text=True
    )


def said(process: subprocess.Popen[str]) -> dict[str, object]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, f"worker exited with {process.wait()} before reporting"
    message: dict[str, object] = json.loads(line)
    return message


def killed(tmp_path: Path, where: str, wait_for: list[dict[str, object]]) -> tuple[Path, Path]:
    """Start a runner hanging `where`, read until it said all of `wait_for`, SIGKILL it."""
    db, effects = tmp_path / "runs.db", tmp_path / "effects.txt"
    worker = spawn("start", db, effects, where)
    try:
        pending = list(wait_for)
        while pending:
            message = said(worker)
            if message in pending:
                pending.remove(message)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=20)
    return db, effects


def resumed(db: Path, effects: Path) -> object:
    worker = spawn("resume", db, effects)
    try:
        while True:
            message = said(worker)
            if "output" in message:
                break
        assert worker.wait(timeout=30) == 0
    finally:
        if worker.poll() is None:
            worker.kill()
    return message["output"]


def calls(effects: Path) -> dict[str, list[tuple[str, int, int]]]:
    """node -> its calls as (idempotency key, attempt, pid), in order."""
    found: dict[str, list[tuple[str, int, int]]] = {}
    for line in effects.read_text(encoding="utf-8").splitlines():
        node, key, attempt, pid = line.split(" ")
        found.setdefault(node, []).append((key, int(attempt), int(pid)))
    return found


def test_a_runner_killed_mid_node_is_resumed_by_another_process(tmp_path: Path) -> None:
    """W6: `fetch` and `audit` had finished and run exactly once; `charge` was
    interrupted and runs again with the same idempotency key; the join runs once."""
    db, effects = killed(tmp_path, "mid-node", [{"hang": "charge"}, {"finished": "audit"}])
    assert resumed(db, effects) == "charged 500, audit ok"
    made = calls(effects)
    assert len(made["fetch"]) == 1
    assert len(made["audit"]) == 1
    assert len(made["report"]) == 1
    (key1, attempt1, pid1), (key2, attempt2, pid2) = made["charge"]
    assert key1 == key2
    assert key1.startswith("order-1/")
    assert (attempt1, attempt2) == (1, 2)
    assert pid1 != pid2
    assert made["report"][0][2] == pid2


def test_a_runner_killed_between_nodes_is_resumed_without_rerunning_any(tmp_path: Path) -> None:
    """W6: every node before the kill had finished; each ran exactly once."""
    db, effects = killed(
        tmp_path,
        "between",
        [{"hang": "before report"}, {"finished": "charge"}, {"finished": "audit"}],
    )
    assert resumed(db, effects) == "charged 500, audit ok"
    made = calls(effects)
    assert {node: len(made[node]) for node in made} == {
        "fetch": 1,
        "charge": 1,
        "audit": 1,
        "report": 1,
    }
    assert made["report"][0][2] != made["fetch"][0][2]  # the join ran in the new process


def test_two_processes_resuming_at_once_run_the_interrupted_node_once_between_them(
    tmp_path: Path,
) -> None:
    """W8: one takes the lease and finishes the run; the other waits and then answers
    from the journal. `charge` ran once before the kill and once after, not twice."""
    db, effects = killed(tmp_path, "mid-node", [{"hang": "charge"}, {"finished": "audit"}])
    workers = [spawn("resume", db, effects) for _ in range(2)]
    try:
        outputs = []
        for worker in workers:
            while "output" not in (message := said(worker)):
                pass
            outputs.append(message["output"])
            assert worker.wait(timeout=30) == 0
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
    assert outputs == ["charged 500, audit ok"] * 2
    made = calls(effects)
    assert {node: len(made[node]) for node in made} == {
        "fetch": 1,
        "charge": 2,
        "audit": 1,
        "report": 1,
    }
