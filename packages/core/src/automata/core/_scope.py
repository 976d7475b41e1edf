"""What a run shares with the sub-agent runs its tools start."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from automata.core._events import StreamEvent
from automata.core._policy import CallBudget

__all__ = ["EventSink", "RunScope"]

EventSink = Callable[[StreamEvent], None]
"""Where a streamed run's events go."""


@dataclass(frozen=True, slots=True)
class RunScope:
    """Where events go (None when nobody streams) and the call budget that sub-agent
    runs draw from (None when no budget applies). Passed from a run to the tools it
    calls, through `ToolContext.scope`, so a sub-agent streams into its parent's stream
    and spends its parent's budget."""

    emit: EventSink | None = None
    budget: CallBudget | None = None
