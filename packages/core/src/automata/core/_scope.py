"""What a run shares with the sub-agent runs its tools start."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from automata.core._events import StreamEvent
from automata.core._labels import EMPTY_HOST, NO_LABELS, RunLabels
from automata.core._policy import CallBudget

if TYPE_CHECKING:
    from automata.core._guardrails import InputGuard
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
    input_guard: InputGuard | None = None
    """The run's input guardrails, checked around its first model call; never passed
    on to sub-agents."""
    on_handoff: Callable[[Any], None] | None = None
    """Told the `Agent` a run handed the conversation to (a session follows it); never
    passed on to sub-agents."""
    labels: RunLabels = NO_LABELS
    """The run's correlation labels (its parent's, for a sub-agent, plus its own)."""
    host: Mapping[str, Any] = field(default_factory=lambda: EMPTY_HOST)
    """The run's opaque host map (a sub-agent's is its parent's unless given one)."""
