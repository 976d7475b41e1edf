"""A host on a SQLite file killed (SIGKILL, a real process) right after each write of
a turn in turn, each crash then recovered by a fresh process (`_crash_points.py`):
every turn ends `done` with its answer, no acknowledged send is lost, the tool never
runs twice, and a committed reply is never asked of the model again."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def crash_points() -> ModuleType:
    path = Path(__file__).resolve().parent / "_crash_points.py"
    spec = importlib.util.spec_from_file_location("_threads_crash_points", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(120)  # nineteen processes; the machine may be busy
def test_a_host_killed_after_any_write_of_a_turn_is_recovered_to_the_turns_answer(
    tmp_path: Path,
) -> None:
    """T8, T10: the crash after the answer step (before the turn's end) included."""
    crash_points().check_a_crash_at_every_write(
        lambda n: ["sqlite", str(tmp_path / f"threads-{n}.db")], tmp_path
    )


@pytest.mark.timeout(60)
def test_a_host_killed_as_its_cancel_commits_keeps_the_stopped_reply_once(
    tmp_path: Path,
) -> None:
    """T6, T26: the cancel that keeps a streamed draft is one commit; a client that
    repeats it after the crash finds the turn cancelled with the stopped reply once."""
    crash_points().check_a_crash_as_a_cancel_commits(
        lambda n: ["sqlite", str(tmp_path / "threads-cancel.db")], tmp_path
    )
