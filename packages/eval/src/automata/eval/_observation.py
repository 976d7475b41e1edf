"""What graders look at: the observable outcome of one trial."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from automata.eval._model import ToolCallRecord

__all__ = ["Observation"]


@dataclass(frozen=True, slots=True)
class Observation:
    """One trial as graders see it: the tool calls in order, the number of model calls
    (`steps`), the final text (`output`, "" when there was none), whether the run ended
    with an answer (`completed`), the error that ended it otherwise (`error`), and the
    trial's workspace (None when it had none)."""

    tool_calls: tuple[ToolCallRecord, ...] = ()
    steps: int = 0
    output: str = ""
    completed: bool = True
    error: str | None = None
    workspace: Path | None = None
