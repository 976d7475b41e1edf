"""`shell`: run one allow-listed program with literal arguments.

Guarantees:

- The program is executed directly (`execve`), never through a shell, so pipes,
  redirections, globbing, `$(...)` and `;` in the arguments are passed through as
  literal text.
- Only programs named in `allow` run; an empty list allows nothing. Names are pinned
  to absolute paths when the tool is built, so a file planted on `PATH` later is not
  picked up.
- The program runs in a new session and process group. When it exits, times out,
  floods its output or the call is cancelled, the group is killed, and on Linux every
  process still in the session (a child that moved to another group with `setpgid`)
  and every descendant seen while it ran (checked every 0.1 s, so a child that started
  its own session with `setsid` is found if its parent was still alive at a check).
  What is not contained is listed in `automata.tools._procs`.
- stdout and stderr are read together, in order, capped at `max_output_bytes`; past
  the cap the program is stopped.
- The server's environment is not passed on (it usually holds credentials); the
  program gets `PATH`, `HOME`, `LANG` and `TMPDIR` unless `env` says otherwise.
- Where the program runs is the `backend`'s (`automata.tools._backends`): on this
  machine by default, or in a jail (`BubblewrapBackend`) that also contains the file
  system, the network, CPU time, memory and processes, and kills the whole tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import signal
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated

from automata.core import Tool, ToolResult, tool
from automata.tools._backends import CommandBackend, HostBackend
from automata.tools._errors import Refused, ToolError
from automata.tools._procs import INTERVAL, Descendants

__all__ = ["shell"]

_PASSED_VARIABLES = ("PATH", "HOME", "LANG", "TMPDIR")
_DRAIN_SECONDS = 2.0


class _Collector(asyncio.SubprocessProtocol):
    """Gathers the merged output up to a cap and signals exit or overflow."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.output = bytearray()
        self.overflowed = False
        self.stop = asyncio.Event()  # the process exited, or its output overflowed
        self.closed = asyncio.Event()  # exited and every pipe closed

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        room = self.limit - len(self.output)
        if len(data) > room:
            self.output += data[: max(room, 0)]
            self.overflowed = True
            self.stop.set()
        else:
            self.output += data

    def process_exited(self) -> None:
        self.stop.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop.set()
        self.closed.set()


def _kill_all(pgid: int, descendants: Descendants) -> None:
    """Kill the program's group, then whatever else of it `descendants` can find."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    descendants.kill()


async def _kill_once_started(
    starting: asyncio.Future[tuple[asyncio.SubprocessTransport, _Collector]],
) -> None:
    """Kill the program a cancelled call was starting, once it has started."""
    try:
        transport, _ = await asyncio.shield(starting)
    except BaseException:  # it never started (or its start failed): nothing to kill
        return
    pgid = transport.get_pid()
    _kill_all(pgid, Descendants(pgid))
    transport.close()


async def _watch(descendants: Descendants) -> None:
    while True:
        descendants.look()
        await asyncio.sleep(INTERVAL)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@dataclass(frozen=True, slots=True)
class _Runner:
    programs: Mapping[str, str]  # allowed name -> absolute path
    cwd: str | None
    timeout: float
    max_output_bytes: int
    env: Mapping[str, str]
    backend: CommandBackend

    async def run(self, command: str, args: Sequence[str]) -> ToolResult:
        executable = self.programs.get(command)
        if executable is None:
            allowed = ", ".join(sorted(self.programs)) or "none"
            hint = " (put arguments in args, not in command)" if " " in command.strip() else ""
            raise Refused(f"program {command!r} is not allowed{hint}; allowed programs: {allowed}")
        for number, argument in enumerate(args, 1):
            if "\x00" in argument:
                raise ToolError(
                    f"argument {number} contains a NUL character, which no program can "
                    "receive; nothing was run"
                )
        shown = shlex.join([command, *args])
        launch = self.backend.launch(executable, args, root=self.cwd)
        loop = asyncio.get_running_loop()
        starting = asyncio.ensure_future(
            loop.subprocess_exec(
                lambda: _Collector(self.max_output_bytes),
                *launch.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=launch.cwd,
                env=dict(self.env),
                start_new_session=True,
                user=launch.user,
                group=launch.user,
                extra_groups=None if launch.user is None else [],
            )
        )
        try:
            transport, collector = await asyncio.shield(starting)
        except OSError as exc:
            raise ToolError(f"could not start {command}: {exc.strerror or exc}") from None
        except asyncio.CancelledError:
            # The program may be running already (and have started others): let its
            # start finish, kill its whole group, then give in to the cancellation.
            await _kill_once_started(starting)
            raise
        pgid = transport.get_pid()  # the leader of its own new session and group
        descendants = Descendants(pgid)
        watcher = asyncio.create_task(_watch(descendants))
        timed_out = False
        try:
            try:
                async with asyncio.timeout(self.timeout):
                    await collector.stop.wait()
            except TimeoutError:
                timed_out = True
            _kill_all(pgid, descendants)
            try:
                # Let the last output arrive; a descendant that left the group can
                # keep the pipe open, so this wait is bounded.
                async with asyncio.timeout(_DRAIN_SECONDS):
                    await collector.closed.wait()
            except TimeoutError:
                pass
        finally:
            watcher.cancel()
            _kill_all(pgid, descendants)  # also on cancellation
            transport.close()
        output = collector.output.decode("utf-8", errors="replace")
        if timed_out:
            return ToolResult.error(
                _join(f"{shown} timed out after {self.timeout:g} s and was killed", output)
            )
        if collector.overflowed:
            return ToolResult.error(
                _join(
                    output,
                    f"[output truncated at {self.max_output_bytes} bytes; "
                    f"{command} was stopped before it finished]",
                )
            )
        code = transport.get_returncode()
        if code is not None and launch.signal_exits and code > 128:
            code = 128 - code  # the launcher reports its child's death by signal n as 128 + n
        if code is None or code < 0:
            cause = _signal_name(-code) if code is not None else "an unknown cause"
            return ToolResult.error(_join(f"{shown} was killed by {cause}", output))
        if code != 0:
            return ToolResult.error(_join(f"{shown} exited with code {code}", output))
        return ToolResult.text(output if output else "(no output)")


def _join(first: str, second: str) -> str:
    if not second:
        return first
    return first.rstrip("\n") + "\n" + second


def _pin(allow: Iterable[str], path: str | None) -> dict[str, str]:
    if isinstance(allow, str):
        raise TypeError("allow must be a list of program names, not one string")
    programs: dict[str, str] = {}
    for name in allow:
        if not name or name != name.strip():
            raise ValueError(f"invalid program name {name!r}")
        if os.sep in name:
            if not os.path.isabs(name):
                raise ValueError(f"{name!r}: give a bare program name or an absolute path")
            found = name if os.access(name, os.X_OK) and os.path.isfile(name) else None
        else:
            found = shutil.which(name, path=path)
        if found is None:
            raise ValueError(f"allowed program {name!r} was not found or is not executable")
        programs[name] = os.path.realpath(found)
    return programs


def shell(
    allow: Iterable[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 30.0,
    max_output_bytes: int = 64_000,
    env: Mapping[str, str] | None = None,
    name: str = "shell",
    backend: CommandBackend | None = None,
) -> Tool:
    """A tool that runs one allow-listed program (`command`) with arguments (`args`).

    `allow` lists program names (looked up on `PATH` now) or absolute paths; the model
    must name one exactly. Allowing an interpreter or a program that runs others
    (`sh`, `python`, `env`, `xargs`, `find`) allows anything. `cwd` is the working
    folder (default: the server's), `timeout` bounds each call in seconds,
    `max_output_bytes` caps the merged stdout and stderr, and `env` replaces the small
    default environment. `backend` is where programs run (default `HostBackend()`:
    this machine, as the server's user; `BubblewrapBackend(...)` jails each call in
    `cwd`). Raises ValueError when an allowed program cannot be found, and
    `SandboxUnavailable` when the backend cannot run programs in `cwd`.
    """
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
    if max_output_bytes <= 0:
        raise ValueError(f"max_output_bytes must be positive, got {max_output_bytes}")
    if env is None:
        environment = {k: os.environ[k] for k in _PASSED_VARIABLES if k in os.environ}
    else:
        environment = dict(env)
    working = os.path.abspath(cwd) if cwd is not None else None
    if working is not None and not os.path.isdir(working):
        raise ValueError(f"cwd {working!r} is not a directory")
    chosen = backend if backend is not None else HostBackend()
    chosen.check(working)
    runner = _Runner(
        programs=_pin(allow, environment.get("PATH", os.environ.get("PATH"))),
        cwd=working,
        timeout=timeout,
        max_output_bytes=max_output_bytes,
        env=environment,
        backend=chosen,
    )
    listed = ", ".join(sorted(runner.programs)) or "none"

    async def run(
        command: Annotated[str, "The program to run, exactly as allowed (no arguments here)."],
        args: Annotated[Sequence[str], "Arguments, one string each, passed literally."] = (),
    ) -> ToolResult:
        try:
            return await runner.run(command, list(args))
        except ToolError as exc:
            return ToolResult.error(str(exc))

    return tool(
        run,
        name=name,
        description=(
            "Run a program directly, without a shell: no pipes, redirection, globbing or "
            "variable expansion; each argument is passed as given. A non-zero exit is "
            f"reported with the output. Allowed programs: {listed}."
        ),
    )
