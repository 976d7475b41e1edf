"""The values that cross between client, workflow and activities: frozen dataclasses of
plain fields, so Temporal's default data converter carries them and a recorded history
replays them exactly."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import TypeAdapter

from automata.core import Usage

__all__ = [
    "AgentRunRequest",
    "AgentRunResult",
    "ApprovalAnswer",
    "Carried",
    "Decision",
    "ModelCall",
    "RecordedEvent",
    "RetrySettings",
    "ToolCall",
    "ToolOutcome",
    "ToolSettings",
]

T = TypeVar("T")


@dataclass(frozen=True)
class RetrySettings:
    """A core `RetryPolicy` as Temporal retries it: attempts, first delay, growth, cap."""

    max_attempts: int
    base_delay: float
    max_delay: float
    multiplier: float


@dataclass(frozen=True)
class ToolSettings:
    """How one tool's calls run as activities: their time bound, whether they may be
    retried (idempotent tools only) and whether a person must approve each call; or,
    with `child_agent`, as a child workflow running that registered agent."""

    timeout: float
    idempotent: bool
    needs_approval: bool = False
    child_agent: str | None = None


@dataclass(frozen=True)
class RecordedEvent:
    """One thing that happened in a run, as the `events` query reports it: `kind` is
    `text`, `thinking`, `tool_call`, `tool_result`, `usage`, `handoff` or `approval`;
    `data` is the event's fields as JSON text."""

    kind: str
    data: str


@dataclass(frozen=True)
class Carried:
    """What a run continued as new (TP13) brings from the runs before it: their provider
    calls, usage and events."""

    steps: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    events: list[RecordedEvent] = field(default_factory=list)


@dataclass(frozen=True)
class AgentRunRequest:
    """Run the agent registered as `agent` on `task` (a user message's text). `transcript`
    (a `dump_messages` document) continues a conversation; with `task` None it must end
    where a run can go on (L88). `deps` are the run's deps as plain JSON values,
    validated as the agent's `deps_type` in the workflow and in each tool activity."""

    agent: str
    task: str | None
    transcript: str | None = None
    deps: Any = None
    carried: Carried | None = None


@dataclass(frozen=True)
class AgentRunResult:
    """A finished run: the final output (the reply's text; for an agent registered with
    an `output_type`, the typed output as JSON, see `output_as`), the whole transcript
    (`dump_messages`), the number of provider calls and the tokens they used."""

    output: str
    transcript: str
    steps: int
    usage: dict[str, int] = field(default_factory=dict)

    def output_as(self, output_type: type[T]) -> T:
        """The typed output, validated as `output_type`."""
        return TypeAdapter(output_type).validate_python(json.loads(self.output))

    @property
    def total_usage(self) -> Usage:
        """The run's usage as the core's `Usage` (every provider call summed)."""
        return Usage.model_validate(self.usage)


@dataclass(frozen=True)
class ModelCall:
    """One provider call: the registered agent, the agent of its handoff graph whose
    provider answers (`member`, by name), and the request (`dump_request`)."""

    agent: str
    member: str
    request: str


@dataclass(frozen=True)
class ToolCall:
    """One tool call: the registered agent, the member agent whose tool runs, the call
    (a one-message `dump_messages` document holding the `ToolUseBlock`), the run's id
    (which names the call for good together with the call id), the run's deps (plain
    JSON) and how many times the tool has asked to try again so far in the run."""

    agent: str
    member: str
    call_id: str
    message: str
    run_id: str
    deps: Any = None
    retries: int = 0


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call's activity hands back: `result` with the result (`dump_result`)
    in `data`; `retry` or `invalid` (the tool raised `ModelRetry` or
    `InvalidToolArguments`) with the message in `data`, which the workflow raises again
    so the core loop counts and reports it as in process."""

    kind: str
    data: str


@dataclass(frozen=True)
class ApprovalAnswer:
    """The agent's own approver's answer on one call (TP15)."""

    allowed: bool
    reason: str = ""


@dataclass(frozen=True)
class Decision:
    """A person's answer to a call waiting for approval."""

    call_id: str
    approved: bool
    reason: str = ""
