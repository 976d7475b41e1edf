"""Where a trial runs: its context, and the sandbox that gives it a workspace.

Every trial gets a fresh workspace (a directory) that the agent factory hands to the
agent's file tools; file graders read it after the run, and it is removed once graded.
`Sandbox` is the extension point (a container sandbox would mount its directory the
same way); `WorkspaceSandbox`, a temporary directory on this machine, is the default.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from automata.eval._model import Case

__all__ = ["Sandbox", "TrialContext", "WorkspaceSandbox"]


@dataclass(frozen=True, slots=True)
class TrialContext:
    """What an agent factory is given to build the agent for one trial.

    `workspace` is this trial's own directory (empty at the start, removed after
    grading); `model` is the model string the run was asked to use (`--model`), or
    None, for the factory to pass to `Agent(...)` in place of its default provider."""

    case: Case
    trial: int
    workspace: Path
    model: str | None = None


@runtime_checkable
class Sandbox(Protocol):
    """Gives each trial a workspace: entering `workspace(case, trial)` yields a fresh,
    empty directory no other trial sees; leaving it (after grading) disposes of it."""

    def workspace(self, case: Case, trial: int) -> AbstractAsyncContextManager[Path]: ...


class WorkspaceSandbox:
    """The default sandbox: a new temporary directory per trial (under `root`, or the
    system's temporary directory), deleted when the trial is graded unless `keep`."""

    def __init__(self, root: Path | None = None, *, keep: bool = False) -> None:
        self._root = root
        self._keep = keep

    @asynccontextmanager
    async def _workspace(self, case: Case, trial: int) -> AsyncIterator[Path]:
        if self._root is not None:
            self._root.mkdir(parents=True, exist_ok=True)
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in case.name)[:40]
        path = Path(tempfile.mkdtemp(prefix=f"eval-{safe}-{trial}-", dir=self._root))
        try:
            yield path
        finally:
            if not self._keep:
                shutil.rmtree(path, ignore_errors=True)

    def workspace(self, case: Case, trial: int) -> AbstractAsyncContextManager[Path]:
        return self._workspace(case, trial)
