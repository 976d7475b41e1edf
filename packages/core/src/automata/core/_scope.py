"""What a run shares with the sub-agent runs its tools start."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from automata.core._events import StreamEvent
from automata.core._policy import CallBudget

if TYPE_CHECKING:
    from automata.core._limits import UsageMeter

__all__ = ["EventSink", "RunScope"]

EventSink = Callable[[StreamEvent], None]
"""Where a streamed run's events go."""


@dataclass(frozen=True, slots=True)
class RunScope:
    """Where events go (None when nobody streams), the call budget that sub-agent
    runs draw from (None when no budget applies) and the usage meter whose limits they
    share when asked to (None when no limit applies). Passed from a run to the tools it
    calls, through `ToolContext.scope`, so a sub-agent streams into its parent's stream
    and spends its parent's budget."""

    emit: EventSink | None = None
    budget: CallBudget | None = None
    usage: UsageMeter | None = None
