"""Building a shell on a backend: a jail that cannot start is refused when the tool is
built (never run less contained than asked), limits are checked, and a jail dies with
the server that started it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from automata.tools import (
    BubblewrapBackend,
    HostBackend,
    Launch,
    Limits,
    SandboxUnavailable,
    ToolError,
    shell,
)

from ._jail import jail_python, kill_all, make_root, marker, require_bubblewrap, survivors

_AS_ROOT = pytest.mark.skipif(
    os.geteuid() != 0, reason="only a server running as root runs programs as another user"
)


@pytest.fixture
def jail() -> BubblewrapBackend:
    require_bubblewrap()
    return BubblewrapBackend()


@pytest.fixture
def root(jail: BubblewrapBackend) -> Iterator[Path]:
    yield from make_root(jail)


def test_the_host_backend_starts_the_program_itself_in_the_root() -> None:
    """SB1: the default backend adds nothing between the tool and the program."""
    assert HostBackend().launch("/bin/echo", ["hi"], root="/srv") == Launch(
        argv=("/bin/echo", "hi"), cwd="/srv"
    )


def test_a_missing_bubblewrap_is_refused_when_the_tool_is_built(root: Path) -> None:
    """SB2: no jail, no tool: building fails with what to install."""
    backend = BubblewrapBackend(bwrap="/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable, match="install the distribution's bubblewrap"):
        shell(["echo"], cwd=root, backend=backend)
    assert issubclass(SandboxUnavailable, ToolError)


def test_the_jail_needs_a_root_other_than_slash(jail: BubblewrapBackend) -> None:
    """SB2: the root is the one writable path, so there must be one, and not '/'."""
    with pytest.raises(ValueError, match="needs a root folder"):
        shell(["echo"], backend=jail)
    with pytest.raises(ValueError, match="cannot be '/'"):
        shell(["echo"], cwd="/", backend=jail)


@_AS_ROOT
def test_as_root_a_root_the_jails_user_does_not_own_is_refused(jail: BubblewrapBackend) -> None:
    """SB2: programs run as `run_as`, which must be able to write the root."""
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(SandboxUnavailable, match="not owned by uid 65534"):
            shell(["echo"], cwd=folder, backend=jail)
        jail.make_writable(folder)
        shell(["echo"], cwd=folder, backend=jail)


@_AS_ROOT
def test_a_jail_that_cannot_start_is_refused_with_bubblewraps_message(
    jail: BubblewrapBackend,
) -> None:
    """SB2: a root its user cannot reach fails the probe jail, with bwrap's words."""
    with tempfile.TemporaryDirectory() as parent:  # mode 0700, root's own
        folder = Path(parent, "root")
        folder.mkdir()
        jail.make_writable(folder)
        with pytest.raises(SandboxUnavailable, match=r"could not start a jail .*bwrap"):
            shell(["echo"], cwd=folder, backend=jail)


@pytest.mark.parametrize("field", ["cpu_seconds", "memory_bytes", "processes", "tmp_bytes"])
def test_limits_must_be_positive_integers(field: str) -> None:
    with pytest.raises(ValueError, match=f"Limits.{field} must be a positive integer"):
        Limits(**{field: 0})


def test_programs_never_run_as_root() -> None:
    with pytest.raises(ValueError, match="non-root user id"):
        BubblewrapBackend(run_as=0)


# The "server": builds a shell on the backend named by argv[1] in folder argv[2] and
# runs a program that sleeps a minute; it prints "running" once the sleeper is up.
_SERVER = """
import asyncio, sys
from pathlib import Path
from automata.core import ToolContext, ToolUseBlock
from automata.tools import BubblewrapBackend, HostBackend, shell

backend = BubblewrapBackend() if sys.argv[1] == "jail" else HostBackend()
python, folder, word = sys.argv[3], sys.argv[2], sys.argv[4]
sleeper = "import pathlib, sys, time; pathlib.Path('up').touch(); time.sleep(60)"
tool = shell([python], cwd=folder, backend=backend, timeout=120)

async def main():
    args = {"command": python, "args": ["-c", sleeper, word]}
    call = ToolUseBlock(id="c", name=tool.name, input=args)
    context = ToolContext(call=call, agent="a", invocation_id="r")
    running = asyncio.ensure_future(tool.execute(args, context))
    while not Path(folder, "up").exists():
        await asyncio.sleep(0.01)
    print("running", flush=True)
    await running

asyncio.run(main())
"""


def sleeper_left_by_a_killed_server(backend: str, folder: Path) -> list[int]:
    """Start the server, SIGKILL it once its program runs, return what is left of it."""
    word = marker()
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, backend, str(folder), jail_python(), word],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert server.stdout.readline() == "running\n"
        assert survivors(word, settle=0) != []
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        time.sleep(0.2)
        return survivors(word)
    finally:
        server.kill()
        server.wait()


def test_on_the_host_a_program_outlives_a_killed_server(root: Path) -> None:
    """SB1: the host backend leaves the program running when the server dies."""
    left = sleeper_left_by_a_killed_server("host", root)
    kill_all(left)
    assert len(left) == 1


def test_a_jail_dies_with_the_server_that_started_it(root: Path) -> None:
    """SB3: `--die-with-parent`: a SIGKILLed server takes its jails with it."""
    left = sleeper_left_by_a_killed_server("jail", root)
    kill_all(left)
    assert left == []
