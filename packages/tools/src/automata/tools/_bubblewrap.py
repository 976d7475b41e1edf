"""`BubblewrapBackend`: commands in a namespace jail built by bubblewrap (`bwrap`).

Each call starts `bwrap` (the distribution's `bubblewrap` package), which runs the
program in new user, pid, ipc, uts and cgroup namespaces, and a new network namespace
(loopback only) unless `network=True`. The file system is the host's, read-only,
except the sandbox root (bound read-write at its own path, the working folder), a
private `/tmp` (an in-memory tmpfs of `Limits.tmp_bytes`), a fresh `/proc` for the new
pid namespace and a minimal `/dev`. `prlimit` (util-linux), run inside the jail,
then sets the CPU time, address space, file size and process limits and executes the
program.

The whole tree dies with the call: the program's namespace has its own init (pid 1),
and when that init dies the kernel kills every process in the namespace, whatever
session or process group it made for itself. bwrap runs it with `--die-with-parent`
and `--new-session`, so killing bwrap (the caller kills its process group at the
deadline, on exit, overflow or cancellation) or the server's death ends the jail.

The process limit is the kernel's `RLIMIT_NPROC`, which counts processes per user,
here per user of the jail's own user namespace; the kernel exempts root from it. So
when the server runs as root, programs run as the host user `run_as` (default 65534,
"nobody"), which must be able to reach the programs and write the root
(`make_writable` hands a directory over to it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

from automata.tools._backends import Launch
from automata.tools._errors import SandboxUnavailable

__all__ = ["BubblewrapBackend", "Limits"]

_PROBE_SECONDS = 10.0
_MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What one call may use inside the jail (every value must be positive).

    `cpu_seconds` of CPU time (the program gets SIGXCPU, then SIGKILL a second
    later); `memory_bytes` of address space (allocations past it fail); `processes`
    alive at once, the jail's init included (a fork past it fails with EAGAIN);
    `file_bytes` per file written; `tmp_bytes` for the private `/tmp`.
    """

    cpu_seconds: int = 30
    memory_bytes: int = 2048 * _MIB
    processes: int = 64
    file_bytes: int = 1024 * _MIB
    tmp_bytes: int = 64 * _MIB

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_bytes", "processes", "file_bytes", "tmp_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")


@dataclass(frozen=True, slots=True)
class BubblewrapBackend:
    """Runs each command in a bubblewrap jail (see the module for what it contains).

    `limits` bounds each call; `network=True` keeps the host's network (off by
    default: the jail has only its own loopback); `run_as` is the host user id that
    programs run as when the server runs as root; `bwrap` and `prlimit` name the
    programs (looked up on the system `PATH` by default).
    """

    limits: Limits = field(default_factory=Limits)
    network: bool = False
    run_as: int = 65534
    bwrap: str = "bwrap"
    prlimit: str = "prlimit"

    def __post_init__(self) -> None:
        if self.run_as <= 0:
            raise ValueError(f"run_as must be a non-root user id, got {self.run_as}")

    def check(self, root: str | None) -> None:
        """Start one jail in `root` running `true`; raise `SandboxUnavailable` with
        bwrap's own message when that fails (bwrap or prlimit missing, user
        namespaces disabled, `root` unreachable or not writable by the jail's user)."""
        folder = _root(root)
        user = self._user()
        if user is not None and os.stat(folder).st_uid != user:
            raise SandboxUnavailable(
                f"the sandbox root {folder!r} is not owned by uid {user}, which sandboxed "
                "programs run as because the server runs as root (the kernel exempts root "
                "from the process limit); hand it over with make_writable(root)"
            )
        true = shutil.which("true", path=os.defpath) or "/bin/true"
        launch = self.launch(true, [], root=folder)
        try:
            probe = subprocess.run(
                launch.argv,
                cwd=launch.cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_PROBE_SECONDS,
                env={"PATH": os.defpath},
                user=launch.user,
                group=launch.user,
                extra_groups=None if launch.user is None else [],
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"bubblewrap could not start a jail: {exc}") from None
        if probe.returncode != 0:
            said = probe.stderr.decode("utf-8", errors="replace").strip()
            raise SandboxUnavailable(
                f"bubblewrap could not start a jail in {folder!r} "
                f"(exit {probe.returncode}): {said or 'no message'}"
            )

    def launch(self, executable: str, args: Sequence[str], *, root: str | None) -> Launch:
        """bwrap, then prlimit, then the program, with `root` as the one writable
        folder and the working folder."""
        folder = _root(root)
        limits = self.limits
        namespaces = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        namespaces.append("--unshare-cgroup-try")
        if not self.network:
            namespaces.append("--unshare-net")
        argv = (
            _find(self.bwrap, "bubblewrap (bwrap)", "bubblewrap"),
            *namespaces,
            *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"),
            *("--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"),
            *("--bind", folder, folder, "--chdir", folder),
            *("--die-with-parent", "--new-session", "--"),
            _find(self.prlimit, "prlimit", "util-linux"),
            f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
            f"--as={limits.memory_bytes}",
            f"--nproc={limits.processes}",
            f"--fsize={limits.file_bytes}",
            "--",
            executable,
            *args,
        )
        return Launch(argv=argv, cwd=folder, user=self._user(), signal_exits=True)

    def make_writable(self, path: str | os.PathLike[str]) -> None:
        """Hand the directory `path` (not its contents) to `run_as` when the server
        runs as root; a no-op otherwise (programs run as the server's user)."""
        user = self._user()
        if user is not None:
            os.chown(path, user, user)

    def _user(self) -> int | None:
        return self.run_as if os.geteuid() == 0 else None


def _root(root: str | None) -> str:
    if root is None:
        raise ValueError(
            "BubblewrapBackend needs a root folder (the tool's cwd): it is the only "
            "path sandboxed programs may write"
        )
    folder = os.path.realpath(root)
    if not os.path.isdir(folder):
        raise ValueError(f"sandbox root {root!r} is not a directory")
    if folder == os.sep:
        raise ValueError("the sandbox root cannot be '/': everything would be writable")
    return folder


def _find(name: str, shown: str, package: str) -> str:
    found = name if os.path.isabs(name) else shutil.which(name, path=os.defpath)
    if found is None or not os.access(found, os.X_OK):
        raise SandboxUnavailable(
            f"{shown} was not found; install the distribution's {package} package"
        )
    return found
