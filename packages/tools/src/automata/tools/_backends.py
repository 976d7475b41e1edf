"""Where a command runs: the backend protocol, and the host backend that is the default.

A `CommandBackend` turns "run this program with these arguments in this folder" into
the process the caller actually starts (`Launch`): the host backend starts the program
itself; a jail such as `BubblewrapBackend` starts a launcher that puts the program
inside namespaces and limits first. Whatever the backend, the caller starts the
launch in a new session and, when the call ends, kills its process group and every
descendant it can find (`automata.tools._procs`); a backend only adds containment.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["CommandBackend", "HostBackend", "Launch"]


@dataclass(frozen=True, slots=True)
class Launch:
    """The process to start for one command.

    `argv[0]` is an absolute path. `cwd` is the folder to start it in (None: the
    server's). `user` is the host user id (and group id) to start it as, None to keep
    the server's. `signal_exits` says that an exit code above 128 means the program
    was killed by signal `code - 128` (a launcher that reports its child's death so).
    """

    argv: tuple[str, ...]
    cwd: str | None
    user: int | None = None
    signal_exits: bool = False


@runtime_checkable
class CommandBackend(Protocol):
    """Runs programs for the `shell` tool (and for eval trials that execute commands).

    `check(root)` raises `SandboxUnavailable` (or `ValueError` for a bad `root`) when
    programs cannot be run in `root` as the backend promises; tools call it once, when
    they are built. `launch(executable, args, root=...)` is what to start for one call.
    `make_writable(path)` lets the backend's programs write the directory `path`,
    which the caller created (a no-op where they run as the server's user).
    """

    def check(self, root: str | None) -> None: ...

    def launch(self, executable: str, args: Sequence[str], *, root: str | None) -> Launch: ...

    def make_writable(self, path: str | os.PathLike[str]) -> None: ...


@dataclass(frozen=True, slots=True)
class HostBackend:
    """The default backend: the program runs on this machine as the server's user.

    Contains: the process group, the session, and (on Linux) every descendant seen
    while the program runs, all killed when the call ends. Does not contain: file
    system access (everything the server's user may read or write), the network,
    CPU time, memory or process count, and a descendant that starts its own session
    and loses its parent between two looks at the tree (a double-forking daemon).
    """

    def check(self, root: str | None) -> None:
        """Nothing to check: the host runs anything the server's user can run."""

    def launch(self, executable: str, args: Sequence[str], *, root: str | None) -> Launch:
        """The program itself, started in `root`."""
        return Launch(argv=(executable, *args), cwd=root)

    def make_writable(self, path: str | os.PathLike[str]) -> None:
        """A no-op: programs run as the server's user, who created `path`."""
