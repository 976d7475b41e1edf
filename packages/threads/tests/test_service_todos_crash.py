"""A host on a SQLite file killed (SIGKILL, a real process) while its turn keeps a
to-do list, then a fresh process on the file (`_todo_procs.py`): the list it shows is
the one the journal holds, and the turn recovered shows the same view as one no crash
interrupted (TD4)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from automata.threads import SQLiteStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")

WORKER = Path(__file__).resolve().parent / "_todo_procs.py"


def _lines(*args: object) -> tuple[int, list[dict[str, object]]]:
    process = subprocess.run(
        [sys.executable, str(WORKER), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=WORKER.parent,
    )
    return process.returncode, [json.loads(line) for line in process.stdout.splitlines()]


async def _todo_kinds(path: Path) -> list[str]:
    store = SQLiteStore(path)
    await store.open()
    try:
        [row] = await store.list_threads(parent_id=None, before=None, limit=1)
        return [r.kind for r in await store.read(row.thread_id) if r.kind == "todos"]
    finally:
        await store.close()


@pytest.mark.timeout(120)
async def test_a_host_killed_around_a_todo_commit_comes_back_with_the_same_list_and_view(
    tmp_path: Path,
) -> None:
    """TD4"""
    code, clean = _lines("run", 0, "sqlite", tmp_path / "clean.db")
    assert code == 0, clean
    [expected] = [line["view"] for line in clean if "view" in line]
    assert isinstance(expected, list)
    assert expected[0] == "done"
    assert expected[1] == [["read the code", "completed"], ["fix the bug", "pending"]]
    writes = [line for line in clean if "write" in line]
    first_todos = next(w["write"] for w in writes if "todos" in w["kinds"])  # type: ignore[operator]
    second_dispatch = [w["write"] for w in writes if w["kinds"] == ["step", "dispatched"]][1]
    last = next(w["write"] for w in writes if w["kinds"] == ["turn_ended"])
    for n in (first_todos, second_dispatch, last):
        path = tmp_path / f"crash-{n}.db"
        code, crashed = _lines("run", n, "sqlite", path)
        assert code == -signal.SIGKILL, crashed
        code, back = _lines("reopen", "sqlite", path)
        assert code == 0, back
        first, done = back
        if n == first_todos:  # the first list is in the journal, whatever runs next
            view = first["view"]
            assert isinstance(view, list)
            assert view[1] in (
                [["read the code", "in_progress"], ["fix the bug", "pending"]],
                expected[1],
            )
        if n == last:  # nothing was left to run: the view is the one before the kill
            assert first["view"] == expected
        assert done["settled"] == expected, (n, crashed, back)
        # the committed list is never journaled twice; the idempotent todo call the
        # kill left dispatched ran again and set its list once
        assert await _todo_kinds(path) == ["todos", "todos"]
