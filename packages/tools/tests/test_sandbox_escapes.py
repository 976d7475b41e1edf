"""The escape `docs/tools.md` admits for the host backend, a program that calls
`setsid` and double-forks, against both backends: on the host the daemon outlives the
call; in a bubblewrap jail it dies with the call, when the program exits or at the
deadline."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from automata.tools import BubblewrapBackend, CommandBackend, HostBackend, Limits, shell

from ._jail import jail_python, kill_all, make_root, marker, require_bubblewrap, survivors
from .conftest import Invoke

# The program double-forks a daemon (a new session, its parent gone at once), waits
# until the daemon has written `daemon.started` in the working folder, then lingers
# `argv[1]` seconds and exits. The daemon sleeps a minute. argv[2] is the marker.
_DOUBLE_FORK = """
import os, sys, time
linger = float(sys.argv[1])
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        open("daemon.started", "w").close()
        time.sleep(60)
    os._exit(0)
deadline = time.monotonic() + 5
while not os.path.exists("daemon.started") and time.monotonic() < deadline:
    time.sleep(0.01)
print("daemon started" if os.path.exists("daemon.started") else "no daemon", flush=True)
time.sleep(linger)
"""


@pytest.fixture
def jail() -> BubblewrapBackend:
    require_bubblewrap()
    return BubblewrapBackend(limits=Limits(cpu_seconds=20, processes=64))


@pytest.fixture
def jail_root(jail: BubblewrapBackend) -> Iterator[Path]:
    yield from make_root(jail)


@pytest.fixture
def host_root() -> Iterator[Path]:
    yield from make_root(HostBackend())


async def run_double_fork(
    invoke: Invoke, backend: CommandBackend, root: Path, *, linger: float, deadline: float
) -> tuple[str, list[int]]:
    """The call's text, and the processes of the program still alive after it."""
    python, word = jail_python(), marker()
    tool = shell([python], cwd=root, timeout=deadline, backend=backend)
    result = await invoke(tool, command=python, args=["-c", _DOUBLE_FORK, str(linger), word])
    return result.as_text(), survivors(word)


async def test_on_the_host_a_double_forked_daemon_outlives_the_call(
    invoke: Invoke, host_root: Path
) -> None:
    """SB1: the host backend does not contain a daemon that started its own session
    and lost its parent at once (what this file shows the jail contains)."""
    text, left = await run_double_fork(invoke, HostBackend(), host_root, linger=0.2, deadline=20)
    try:
        assert text.startswith("daemon started"), text
        assert len(left) == 1
    finally:
        kill_all(left)


async def test_in_the_jail_a_double_forked_daemon_dies_when_the_program_exits(
    invoke: Invoke, jail: BubblewrapBackend, jail_root: Path
) -> None:
    """SB3: the jail's pid namespace ends with the program: nothing it started, in any
    session, is left running."""
    text, left = await run_double_fork(invoke, jail, jail_root, linger=0.2, deadline=20)
    kill_all(left)
    assert text.startswith("daemon started"), text
    assert left == []


async def test_in_the_jail_a_double_forked_daemon_dies_at_the_deadline(
    invoke: Invoke, jail: BubblewrapBackend, jail_root: Path
) -> None:
    """SB3: at the deadline the whole tree is killed, the daemon included."""
    text, left = await run_double_fork(invoke, jail, jail_root, linger=60, deadline=1.5)
    kill_all(left)
    assert "timed out after 1.5 s and was killed" in text
    assert "daemon started" in text
    assert left == []
