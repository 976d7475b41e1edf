"""The values that cross between client, workflow and activities: frozen dataclasses of
plain fields, so Temporal's default data converter carries them and a recorded history
replays them exactly."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "AgentPlan",
    "AgentRunRequest",
    "AgentRunResult",
    "Decision",
    "ModelCall",
    "ModelReply",
    "RecordedEvent",
    "RetrySettings",
    "ToolCall",
    "ToolSettings",
]


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
class AgentPlan:
    """What the workflow needs to know about a registered agent, read once per run by an
    activity and kept in the history, so the workflow never touches the agent itself."""

    agent: str
    system_prompt: str | None
    max_steps: int
    model_timeout: float
    model_retry: RetrySettings
    tool_retry: RetrySettings
    heartbeat_timeout: float
    tools: dict[str, ToolSettings] = field(default_factory=dict)
    default_tool: ToolSettings = field(default_factory=lambda: ToolSettings(60.0, True))


@dataclass(frozen=True)
class AgentRunRequest:
    """Run the agent registered as `agent` on `task` (a user message's text). `transcript`
    (a `dump_messages` document ending with a finished turn) continues a conversation."""

    agent: str
    task: str
    transcript: str | None = None


@dataclass(frozen=True)
class AgentRunResult:
    """A finished run: the final reply's text, the whole transcript (`dump_messages`)
    and the number of provider calls."""

    output: str
    transcript: str
    steps: int


@dataclass(frozen=True)
class ModelCall:
    """One provider call: the agent and the transcript (`dump_messages`) to send."""

    agent: str
    transcript: str


@dataclass(frozen=True)
class ModelReply:
    """The provider's committed reply: the assistant message as a one-message
    `dump_messages` document, and its stop reason."""

    message: str
    stop_reason: str


@dataclass(frozen=True)
class ToolCall:
    """One tool call: the agent, the call (a one-message `dump_messages` document holding
    the assistant's `ToolUseBlock`) and the run's id, which names the call for good
    together with the call id."""

    agent: str
    call_id: str
    message: str
    run_id: str


@dataclass(frozen=True)
class Decision:
    """A person's answer to a call waiting for approval."""

    call_id: str
    approved: bool
    reason: str = ""


@dataclass(frozen=True)
class RecordedEvent:
    """One thing that happened in a run, as the `events` query reports it: `kind` is
    `text`, `tool_call` or `tool_result`; `data` is the event's fields as JSON text."""

    kind: str
    data: str
