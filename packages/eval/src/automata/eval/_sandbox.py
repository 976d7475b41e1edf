"""Where a trial runs: its context, and the sandbox that gives it a workspace and
runs its commands.

Every trial gets a fresh workspace (a directory) that the agent factory hands to the
agent's file tools; file graders read it after the run, and it is removed once graded.
Commands a trial executes run through the sandbox's `backend`, the same
`automata.tools.CommandBackend` the `shell` tool uses: `TrialContext.shell(...)` builds
that tool on the workspace and the backend. `Sandbox` is the extension point;
`WorkspaceSandbox`, a temporary directory on this machine with the host backend unless
given a jail (`BubblewrapBackend`), is the default.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from automata.core import Tool
from automata.eval._model import Case
from automata.tools import CommandBackend, HostBackend, shell

__all__ = ["Sandbox", "TrialContext", "WorkspaceSandbox"]


@dataclass(frozen=True, slots=True)
class TrialContext:
    """What an agent factory is given to build the agent for one trial.

    `workspace` is this trial's own directory (empty at the start, removed after
    grading); `model` is the model string the run was asked to use (`--model`), or
    None, for the factory to pass to `Agent(...)` in place of its default provider.
    `backend` is where the trial's commands run: the sandbox's."""

    case: Case
    trial: int
    workspace: Path
    model: str | None = None
    backend: CommandBackend = field(default_factory=HostBackend)

    def shell(self, allow: Sequence[str], **options: Any) -> Tool:
        """`automata.tools.shell(allow, ...)` running programs in this trial's
        workspace through its sandbox's backend (`options` are shell's others)."""
        return shell(allow, cwd=self.workspace, backend=self.backend, **options)


@runtime_checkable
class Sandbox(Protocol):
    """Gives each trial a workspace: entering `workspace(case, trial)` yields a fresh,
    empty directory no other trial sees, writable by `backend`'s programs; leaving it
    (after grading) disposes of it. `backend` runs the commands trials execute."""

    @property
    def backend(self) -> CommandBackend: ...

    def workspace(self, case: Case, trial: int) -> AbstractAsyncContextManager[Path]: ...


class WorkspaceSandbox:
    """The default sandbox: a new temporary directory per trial (under `root`, or the
    system's temporary directory), deleted when the trial is graded unless `keep`.
    Commands run through `backend` (default `HostBackend()`: on this machine, as this
    process's user; pass a `BubblewrapBackend(...)` to jail each one in the workspace).
    """

    def __init__(
        self,
        root: Path | None = None,
        *,
        keep: bool = False,
        backend: CommandBackend | None = None,
    ) -> None:
        self._root = root
        self._keep = keep
        self._backend: CommandBackend = backend if backend is not None else HostBackend()

    @property
    def backend(self) -> CommandBackend:
        """Where the trials' commands run."""
        return self._backend

    @asynccontextmanager
    async def _workspace(self, case: Case, trial: int) -> AsyncIterator[Path]:
        if self._root is not None:
            self._root.mkdir(parents=True, exist_ok=True)
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in case.name)[:40]
        path = Path(tempfile.mkdtemp(prefix=f"eval-{safe}-{trial}-", dir=self._root))
        try:
            self._backend.make_writable(path)
            yield path
        finally:
            if not self._keep:
                shutil.rmtree(path, ignore_errors=True)

    def workspace(self, case: Case, trial: int) -> AbstractAsyncContextManager[Path]:
        return self._workspace(case, trial)
