"""A thread host killed (SIGKILL, a real process) while its turn's MCP call waits on an
elicitation, then a fresh process on the same SQLite file (`_elicitation_procs.py`):
the call is not sent again, its question is closed as unanswerable, the turn ends
`effect_outcome_unknown`, and an answer given afterwards changes nothing."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from automata.threads import SQLiteStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

WORKER = Path(__file__).resolve().parent / "_elicitation_procs.py"
UNANSWERABLE = (
    "unanswerable: the host stopped while the call waited for this answer; "
    "the call was not run again"
)
OUTCOME_UNKNOWN = (
    "outcome unknown: the run stopped after this call was dispatched and before its "
    "result was recorded; the call was not run again"
)


def _start(db: Path, calls: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WORKER), "start", str(db), str(calls)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=WORKER.parent,
    )


async def _kinds(db: Path) -> list[str]:
    store = SQLiteStore(db)
    await store.open()
    try:
        [row] = await store.list_threads(parent_id=None, before=None, limit=1)
        return [record.kind for record in await store.read(row.thread_id)]
    finally:
        await store.close()


@pytest.mark.timeout(90)
def test_a_host_killed_while_a_call_waits_on_an_elicitation_never_replays_the_call(
    tmp_path: Path,
) -> None:
    """P28"""
    db, calls = tmp_path / "threads.db", tmp_path / "calls.txt"
    host = _start(db, calls)
    try:
        assert host.stdout is not None
        assert "thread_id" in json.loads(host.stdout.readline())
        assert "asked" in json.loads(host.stdout.readline())
    finally:
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=30)
    killed = asyncio.run(_kinds(db))
    assert killed[-2:] == ["dispatched", "interaction"]

    resumed = subprocess.run(
        [sys.executable, str(WORKER), "resume", str(db), str(calls)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=WORKER.parent,
    )
    assert resumed.returncode == 0, resumed.stderr
    settled, late = (json.loads(line) for line in resumed.stdout.splitlines())
    assert settled["status"] == "effect_outcome_unknown"
    assert settled["items"] == [
        ["user", None, "use form"],
        ["tool_call", "error", OUTCOME_UNKNOWN],
        ["interaction", "closed", "asking: form? (answer: city)"],
    ]
    assert settled["question"] == ["closed", UNANSWERABLE]
    assert late == {"after_answer": "effect_outcome_unknown", "question": settled["question"]}
    assert calls.read_text(encoding="utf-8").split() == ["form"]  # sent once, never again
    # The question closed with the calls' results; the late answer wrote nothing.
    assert asyncio.run(_kinds(db))[len(killed) :] == ["answer", "results", "turn_ended"]
