"""What a bubblewrap jail holds a program to, each shown by a real program trying to
get past it: processes, memory, CPU time, the file system and the network. The same
program run by the host backend gets through where that proves the jail is the
reason it fails."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from automata.tools import BubblewrapBackend, CommandBackend, HostBackend, Limits, shell

from ._jail import jail_python, kill_all, make_root, marker, require_bubblewrap, survivors
from .conftest import Invoke

_MIB = 1024 * 1024
PROCESS_LIMIT = 64

# Every process forks for as long as it can; the first one reports how many processes
# run in the jail when its fork is refused, then everyone sleeps until the deadline.
_FORK_BOMB = """
import os, time
top = os.getpid()
while True:
    try:
        os.fork()
    except BlockingIOError:
        if os.getpid() == top:
            live = sum(name.isdigit() for name in os.listdir("/proc"))
            print(f"fork refused with {live} processes running", flush=True)
        time.sleep(60)
"""

_ALLOCATE = """
held = []
for mib in (64, 10 * 1024):
    held.append(bytearray(mib * 1024 * 1024))
    print(mib, "MiB allocated", flush=True)
"""

_WRITE = """
import sys
with open(sys.argv[1], "w") as handle:
    handle.write("written")
print("wrote", sys.argv[1])
"""

_CONNECT = """
import socket, sys
try:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5) as conn:
        print("received", conn.recv(100).decode())
except OSError as exc:
    print("connection failed:", type(exc).__name__)
"""


@pytest.fixture
def jail() -> BubblewrapBackend:
    require_bubblewrap()
    return BubblewrapBackend(
        limits=Limits(cpu_seconds=1, memory_bytes=1024 * _MIB, processes=PROCESS_LIMIT)
    )


@pytest.fixture
def root(jail: BubblewrapBackend) -> Iterator[Path]:
    yield from make_root(jail)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the root that every user may write to, so that only the jail
    can be why a write there fails (not below /tmp, which the jail replaces)."""
    for folder in make_root(HostBackend(), under="/var/tmp"):
        folder.chmod(0o777)
        yield folder


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's loopback that says hello to whoever connects."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"hello")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def on_the_host(path: str) -> bool:
    return Path(path).exists()


async def run(
    invoke: Invoke, backend: CommandBackend, root: Path, program: str, *args: str, deadline: float
) -> tuple[bool, str]:
    python = jail_python()
    tool = shell([python], cwd=root, timeout=deadline, backend=backend)
    result = await invoke(tool, command=python, args=["-c", program, *args])
    return result.is_error, result.as_text()


async def test_a_fork_bomb_is_refused_at_the_process_limit_and_killed_at_the_deadline(
    invoke: Invoke, jail: BubblewrapBackend, root: Path
) -> None:
    """SB5: forks past `Limits.processes` fail; at the deadline every process is gone."""
    word = marker()
    _, text = await run(invoke, jail, root, _FORK_BOMB, word, deadline=3)
    left = survivors(word)
    kill_all(left)
    assert "timed out after 3 s and was killed" in text
    reported = [line for line in text.splitlines() if line.startswith("fork refused")]
    assert len(reported) == 1, text
    assert 1 < int(reported[0].split()[3]) <= PROCESS_LIMIT
    assert left == []


async def test_an_allocation_past_the_memory_limit_fails(
    invoke: Invoke, jail: BubblewrapBackend, root: Path
) -> None:
    """SB5: 64 MiB fit under a 1 GiB limit; 10 GiB do not."""
    failed, text = await run(invoke, jail, root, _ALLOCATE, deadline=20)
    assert failed
    assert " exited with code 1\n64 MiB allocated\n" in text
    assert text.endswith("MemoryError\n")
    assert "10240 MiB allocated" not in text


async def test_a_program_past_its_cpu_time_is_killed_by_sigxcpu(
    invoke: Invoke, jail: BubblewrapBackend, root: Path
) -> None:
    """SB5: a busy loop stops at `Limits.cpu_seconds`, reported as the signal."""
    failed, text = await run(invoke, jail, root, "while True: pass", deadline=20)
    assert failed
    assert "was killed by SIGXCPU" in text


async def test_a_write_outside_the_root_fails_on_a_read_only_file_system(
    invoke: Invoke, jail: BubblewrapBackend, root: Path, outside: Path
) -> None:
    """SB4: the host is read-only in the jail, even where its user may write."""
    target = outside / "escaped.txt"
    failed, text = await run(invoke, jail, root, _WRITE, str(target), deadline=20)
    assert failed
    assert "Read-only file system" in text
    assert not target.exists()


async def test_the_same_write_outside_succeeds_on_the_host(
    invoke: Invoke, root: Path, outside: Path
) -> None:
    """SB1: the host backend does not confine writes (what the jail's refusal rests on)."""
    target = outside / "escaped.txt"
    failed, text = await run(invoke, HostBackend(), root, _WRITE, str(target), deadline=20)
    assert not failed, text
    assert target.read_text() == "written"


async def test_the_root_stays_writable_and_tmp_is_private(
    invoke: Invoke, jail: BubblewrapBackend, root: Path
) -> None:
    """SB4: files written in the root reach the host; /tmp is the jail's own."""
    private = f"/tmp/{marker()}.txt"
    for target in ("result.txt", private):
        failed, text = await run(invoke, jail, root, _WRITE, target, deadline=20)
        assert not failed, text
    assert (root / "result.txt").read_text() == "written"
    assert not on_the_host(private)


async def test_a_connection_to_the_hosts_loopback_fails_without_network(
    invoke: Invoke, jail: BubblewrapBackend, root: Path, listener: int
) -> None:
    """SB6: without `network=True` the jail has only its own loopback."""
    _, text = await run(invoke, jail, root, _CONNECT, str(listener), deadline=20)
    assert text.strip() == "connection failed: ConnectionRefusedError"


async def test_a_connection_succeeds_when_network_is_granted(
    invoke: Invoke, jail: BubblewrapBackend, root: Path, listener: int
) -> None:
    """SB6: `network=True` keeps the host's network namespace."""
    granted = BubblewrapBackend(limits=jail.limits, network=True)
    _, text = await run(invoke, granted, root, _CONNECT, str(listener), deadline=20)
    assert text.strip() == "received hello"
