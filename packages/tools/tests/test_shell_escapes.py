"""shell against programs that try to outlive the call or to break it: children that
leave the process group or the session, and arguments a program cannot receive."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from automata.tools import shell

from .conftest import Invoke
from .test_shell import process_is_gone

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc/self/task"), reason="descendants are tracked through /proc"
)

# The program forks a child that leaves the group (or the session), writes its pid to
# escaped.pid and sleeps; the program itself waits `linger` seconds, then exits.
_ESCAPER = """
import os, sys, time
how, linger = sys.argv[1], float(sys.argv[2])
pid = os.fork()
if pid == 0:
    os.setpgid(0, 0) if how == "group" else os.setsid()
    with open("escaped.pid", "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
    os._exit(0)
time.sleep(linger)
"""


def escaped_pid(folder: Path) -> int:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        text = (folder / "escaped.pid").read_text() if (folder / "escaped.pid").exists() else ""
        if text.strip():
            return int(text)
        time.sleep(0.01)
    raise AssertionError("the child never wrote its pid")


async def test_a_child_that_leaves_the_process_group_is_killed_when_the_program_exits(
    tmp_path: Path, invoke: Invoke
) -> None:
    tool = shell([sys.executable], cwd=tmp_path, timeout=20)
    result = await invoke(tool, command=sys.executable, args=["-c", _ESCAPER, "group", "0.3"])
    assert not result.is_error, result.as_text()
    assert process_is_gone(escaped_pid(tmp_path))


async def test_a_child_that_leaves_the_process_group_is_killed_on_timeout(
    tmp_path: Path, invoke: Invoke
) -> None:
    tool = shell([sys.executable], cwd=tmp_path, timeout=0.8)
    result = await invoke(tool, command=sys.executable, args=["-c", _ESCAPER, "group", "30"])
    assert "timed out" in result.as_text()
    assert process_is_gone(escaped_pid(tmp_path))


async def test_a_child_that_starts_its_own_session_is_killed_while_tracked(
    tmp_path: Path, invoke: Invoke
) -> None:
    # The program outlives its child's setsid() by far more than one tracking interval.
    tool = shell([sys.executable], cwd=tmp_path, timeout=20)
    result = await invoke(tool, command=sys.executable, args=["-c", _ESCAPER, "session", "0.6"])
    assert not result.is_error, result.as_text()
    assert process_is_gone(escaped_pid(tmp_path))


async def test_a_nul_in_an_argument_is_an_error_result(tmp_path: Path, invoke: Invoke) -> None:
    result = await invoke(shell(["echo"], cwd=tmp_path), command="echo", args=["ok", "a\x00b"])
    assert result.is_error
    assert result.as_text() == (
        "argument 2 contains a NUL character, which no program can receive; nothing was run"
    )
