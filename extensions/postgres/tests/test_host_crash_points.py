"""A host on a PostgreSQL schema killed (SIGKILL, a real process) right after each
write of a turn in turn, each crash then recovered by a fresh process: the checks of
packages/threads/tests/_crash_points.py, each crash point on a schema of its own."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[3]


def crash_points() -> ModuleType:
    path = REPO / "packages" / "threads" / "tests" / "_crash_points.py"
    spec = importlib.util.spec_from_file_location("_threads_crash_points", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(120)  # nineteen processes; the machine may be busy
def test_a_host_killed_after_any_write_of_a_turn_is_recovered_to_the_turns_answer(
    pg_server: str, new_schema: Callable[[], str], tmp_path: Path
) -> None:
    """The crash after the answer step (before the turn's end) included: the turn
    ends `done` with its answer, nothing sent is lost, the tool never runs twice."""
    schemas = [new_schema() for _ in range(len(crash_points().TURN_WRITES) + 1)]
    crash_points().check_a_crash_at_every_write(
        lambda n: ["postgres", pg_server, schemas[n]], tmp_path
    )


@pytest.mark.timeout(60)
def test_a_host_killed_as_its_cancel_commits_keeps_the_stopped_reply_once(
    pg_server: str, new_schema: Callable[[], str], tmp_path: Path
) -> None:
    """The cancel that keeps a streamed draft is one commit: a client repeating it
    after the crash finds the turn cancelled with the stopped reply once."""
    schema = new_schema()
    crash_points().check_a_crash_as_a_cancel_commits(
        lambda n: ["postgres", pg_server, schema], tmp_path
    )
