"""The steps of a run: each model turn and each tool batch, as it is committed.

`agent.iter(...)` and `session.iter(...)` deliver them one at a time (see
`RunSteps`); `run` and `stream` are the same steps driven to the end. The rules are in
docs/loop.md (**L50**-**L56**).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from automata.core._blocks import Message, ToolUseBlock
from automata.core._cost import Cost
from automata.core._stop import StopReason
from automata.core._usage import Usage

__all__ = ["ModelStep", "RunRef", "Step", "ToolStep"]


@dataclass(frozen=True, slots=True)
class RunRef:
    """The run a step belongs to, shared by every step of it: the run's agent,
    invocation id and transcript. A run only ever appends to its transcript, so the messages a step
    was committed with are its first `length` messages, for good."""

    agent: str
    invocation_id: str
    transcript: list[Message] = field(repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class ModelStep:
    """One model turn, committed: its assistant `message` is the last of `messages`.

    `usage` is what the provider reported for this turn (None when it reported
    nothing); `cost` what the run's price table priced it at (None: unpriced, L95);
    `stop_reason` is the turn's own; `step` counts the run's provider calls
    (1 for the first); `run` names the run (`run.agent`, `run.invocation_id`);
    `length` is how many messages `messages` holds. When `tool_calls` is not empty
    the tools have not run yet: the next step is their `ToolStep`, and a run stopped
    here commits a `canceled` result for each of them.
    """

    message: Message
    usage: Usage | None
    stop_reason: StopReason
    step: int
    run: RunRef
    length: int = field(repr=False)
    cost: Cost | None = None

    @property
    def tool_calls(self) -> tuple[ToolUseBlock, ...]:
        """The calls this turn asked for, in the model's order (empty for an answer)."""
        return self.message.tool_calls

    @property
    def messages(self) -> tuple[Message, ...]:
        """The run's transcript up to and including this turn's message, system message
        first. While `tool_calls` is not empty it ends in calls without results, so
        resume from the next `ToolStep` (or the run's result), not from here."""
        return tuple(self.run.transcript[: self.length])


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool batch, committed: `results` (a tool message holding one result per
    call, in the model's order) is the last of `messages`, and every call in the
    transcript has its result, so `messages` can be persisted and resumed from.
    `step` is the number of the model turn that asked for the calls."""

    calls: tuple[ToolUseBlock, ...]
    results: Message
    step: int
    run: RunRef
    length: int = field(repr=False)

    @property
    def messages(self) -> tuple[Message, ...]:
        """The run's transcript up to and including `results`, system message first."""
        return tuple(self.run.transcript[: self.length])


Step = ModelStep | ToolStep
"""What `iter` yields: a committed model turn or a committed tool batch."""
