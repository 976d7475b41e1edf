"""A host on a SQLite file killed (SIGKILL, a real process) while a turn compacts,
then fresh processes on the file (`_context_procs.py`): the context record they read is
the journal's, an operation the kill left open ends `interrupted` (never stays
started), and the record stays the same from one restart to the next (CX4)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

WORKER = Path(__file__).resolve().parent / "_context_procs.py"


def _lines(*args: object) -> tuple[int, list[dict[str, object]]]:
    process = subprocess.run(
        [sys.executable, str(WORKER), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=WORKER.parent,
    )
    return process.returncode, [json.loads(line) for line in process.stdout.splitlines()]


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The context record of a run no kill interrupts."""
    code, lines = _lines("run", "none", "sqlite", tmp_path_factory.mktemp("clean") / "t.db")
    assert code == 0, lines
    return _context(lines, "context")


def _context(lines: list[dict[str, object]], key: str) -> list[Any]:
    [found] = [line[key] for line in lines if key in line]
    assert isinstance(found, list)
    return found


@pytest.mark.timeout(120)
async def test_a_host_killed_while_its_summarizer_answers_comes_back_with_the_op_interrupted(
    tmp_path: Path, clean: list[Any]
) -> None:
    """CX4: killed right after `compaction_started` committed; the next process
    resumes the turn, ends that operation `interrupted` and compacts anew; the usage
    totals are the clean run's, and a third process reads the same record."""
    policy, usage, [completed] = clean
    assert policy == [[1, 2, "function"]]
    assert completed[2:] == ["completed", 2, False]
    path = tmp_path / "crash.db"
    code, crashed = _lines("run", "compaction_started", "sqlite", path)
    assert code == -signal.SIGKILL, crashed
    assert crashed[-1]["kinds"] == ["compaction_started"]
    code, back = _lines("reopen", "sqlite", path)
    assert code == 0, back
    settled = _context(back, "settled")
    assert [line["status"] for line in back if "status" in line] == ["done"]
    assert settled[:2] == [policy, usage]
    interrupted, again = settled[2]
    assert isinstance(interrupted, list)
    assert interrupted[2:] == ["interrupted", None, True]
    assert again[2:] == ["completed", 2, False]
    assert interrupted[1] == again[1] == completed[1]  # the same turn
    code, later = _lines("reopen", "sqlite", path)
    assert code == 0, later
    assert _context(later, "context") == _context(later, "settled") == settled


@pytest.mark.timeout(120)
async def test_a_host_killed_as_its_summary_commits_comes_back_with_the_same_record(
    tmp_path: Path, clean: list[Any]
) -> None:
    """CX4: killed right after the write holding the `compaction` record (with its
    step); the next process reads the clean run's record before and after recovery."""
    expected = clean
    path = tmp_path / "crash.db"
    code, crashed = _lines("run", "compaction", "sqlite", path)
    assert code == -signal.SIGKILL, crashed
    code, back = _lines("reopen", "sqlite", path)
    assert code == 0, back
    assert _context(back, "context") == _context(back, "settled") == expected
