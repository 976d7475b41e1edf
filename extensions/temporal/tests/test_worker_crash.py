"""A worker process SIGKILLed mid-run is replaced by another, and the run completes with
no tool executed twice. The workers are real processes (`_worker_proc.py`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from automata.core import load_messages
from automata.core.testing import tool_results
from automata.temporal import OUTCOME_UNKNOWN, start_agent_run

PROC = Path(__file__).resolve().parent / "_worker_proc.py"


@pytest.fixture
def workers(temporal_address: str) -> Iterator[Callable[[str, Path], subprocess.Popen[str]]]:
    """Starts worker processes; each is waited for until it polls, and killed at the end."""
    started: list[subprocess.Popen[str]] = []

    def start(queue: str, folder: Path) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, str(PROC), temporal_address, queue, str(folder)],
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready"
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def wait_for(path: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


@pytest.mark.timeout(90)
async def test_a_killed_worker_is_replaced_and_no_tool_runs_twice(
    client: Client,
    fresh: Callable[[str], str],
    tmp_path: Path,
    workers: Callable[[str, Path], subprocess.Popen[str]],
) -> None:
    """TP5, TP6: the first worker is SIGKILLed while both tools of a batch are running.
    The non-idempotent `charge` is not run again: its result is the `outcome unknown`
    error the model sees. The idempotent `lookup` is run again by the second worker with
    the same idempotency key, so its keyed effect happens once. The run completes."""
    queue, run_id = fresh("crash"), fresh("run")
    first = workers(queue, tmp_path)
    handle = await start_agent_run(client, "crash", "buy tea", id=run_id, task_queue=queue)
    wait_for(tmp_path / "started-charge")
    wait_for(tmp_path / "started-lookup")
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    workers(queue, tmp_path)

    result = await handle.result()

    key = f"{run_id}/c2"
    assert (tmp_path / "effects").read_text().splitlines().count("charge 5") == 1
    assert (tmp_path / "effects").read_text().splitlines().count(f"lookup {key}") == 1
    assert (tmp_path / "attempts").read_text().splitlines() == [key, key]
    assert tool_results(load_messages(result.transcript)) == [
        ("c1", OUTCOME_UNKNOWN, True),
        ("c2", "tea: in stock", False),
    ]
    assert result.output == f"{OUTCOME_UNKNOWN} | tea: in stock"
