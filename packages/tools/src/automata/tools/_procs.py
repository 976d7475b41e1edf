"""Finding every process a shell call started, through Linux's `/proc`.

`Descendants` follows one program's process tree while it runs and, when asked, kills
everything that belongs to it:

- every process in the program's session (the program leads a session of its own), so
  a child that moved to another process group with `setpgid` is found at any time;
- every process seen descending from the program through parent links, checked every
  `INTERVAL` seconds while it runs, so a child that started a session of its own
  (`setsid`) is found if it was seen before its parent exited.

Not contained: a descendant that starts its own session and loses its parent between
two checks (a classic double-forking daemon can do that in under `INTERVAL`), and any
process started through another service (`at`, `systemd-run`, a container runtime).
Use a container, a cgroup or a separate user where that matters. Without `/proc`
(macOS, BSD) only the process group is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal

__all__ = ["INTERVAL", "Descendants"]

INTERVAL = 0.1
"""Seconds between two looks at the running program's tree."""

_ROUNDS = 5  # kill passes: a process may fork between a scan and its kill


def _stat(pid: int) -> tuple[str, int, int, int, int] | None:
    """(state, ppid, process group, session, start time) of `pid`, or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    try:
        return (
            fields[0].decode(),
            int(fields[1]),
            int(fields[2]),
            int(fields[3]),
            int(fields[19]),
        )
    except (IndexError, ValueError):
        return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return found


class Descendants:
    """The processes that belong to the program `leader` (a session leader)."""

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.available = os.path.isdir("/proc/self/task")
        self.seen: dict[int, int] = {}  # pid -> start time (tells a reused pid apart)
        stat = _stat(leader) if self.available else None
        if stat is not None:
            self.seen[leader] = stat[4]

    def look(self) -> None:
        """Record the children of every process seen so far (and theirs)."""
        if not self.available:
            return
        queue = list(self.seen)
        while queue:
            for child in _children(queue.pop()):
                if child in self.seen:
                    continue
                stat = _stat(child)
                if stat is not None:
                    self.seen[child] = stat[4]
                    queue.append(child)

    def _members(self) -> list[int]:
        own = os.getpid()
        members = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            pid = int(name)
            stat = _stat(pid)
            if stat is None or pid == own or stat[0] == "Z":
                continue
            in_session = self.leader in (stat[2], stat[3])
            if in_session or self.seen.get(pid) == stat[4]:
                members.append(pid)
        return members

    def kill(self) -> None:
        """SIGKILL every live process of the program, in passes until none is left."""
        if not self.available:
            return
        self.look()
        for _ in range(_ROUNDS):
            members = self._members()
            if not members:
                return
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
