"""A workflow-backed agent SIGKILLed in its second tool batch, resumed by another
process on the same SQLite file (W16)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from automata.core import load_messages
from automata.workflow.testing import Conversation

PROCS = Path(__file__).resolve().parent / "_agent_procs.py"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def test_an_agent_killed_mid_batch_resumes_in_another_process_without_repeating_a_step(
    tmp_path: Path,
) -> None:
    """W16: killed while `c3` of the second batch runs (after `c4` may have run too), the
    run resumes elsewhere: the model is called once per turn in all, the first batch
    never runs again, the second runs again as a whole under the same keys, and the
    result is the uninterrupted run's."""
    db, log = tmp_path / "runs.db", tmp_path / "effects.log"
    first = subprocess.Popen(
        [sys.executable, str(PROCS), "start", db, log], stdout=subprocess.PIPE, text=True
    )
    try:
        assert first.stdout is not None
        assert json.loads(first.stdout.readline()) == {"hang": "c3"}
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=20)
    resumed = subprocess.run(
        [sys.executable, str(PROCS), "resume", db, log],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(resumed.stdout.splitlines()[-1])
    assert result["output"] == "the answer is 25"
    assert result["steps"] == 3
    assert result["tokens"] == [60, 18]

    lines = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    models = [line[1] for line in lines if line[0] == "model"]
    assert models == [str(first.pid)] * 2 + [str(resumed_pid(lines, first.pid))]
    tools = [(line[1], line[2], line[3]) for line in lines if line[0] == "tool"]
    by_call: dict[str, list[tuple[str, str]]] = {}
    for call, key, pid in tools:
        by_call.setdefault(call, []).append((key, pid))
    assert [pid for _, pid in by_call["c1"]] == [str(first.pid)]
    assert [pid for _, pid in by_call["c2"]] == [str(first.pid)]
    (first_c3, second_c3) = by_call["c3"]
    assert first_c3[0] == second_c3[0]
    assert (first_c3[1], second_c3[1]) == (str(first.pid), str(resumed_pid(lines, first.pid)))
    assert by_call["c4"][-1][0].rsplit("/", 1)[0] == first_c3[0].rsplit("/", 1)[0]

    reference = Conversation().agent().run_sync("What is (2 + 3) + (4 * 5)?")
    assert tuple(load_messages(result["messages"])) == reference.messages


def resumed_pid(lines: list[list[str]], first: int) -> int:
    (other,) = {int(line[-1]) for line in lines} - {first}
    return other
