"""`A2AAgent`: a tool that hands a task to a remote A2A agent, with the SDK's client,
and returns its answer, as `as_tool` does for a local agent."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import httpx
from a2a.client import (
    A2AClientError,
    A2AClientTimeoutError,
    AgentCardResolutionError,
    ClientConfig,
    create_client,
)
from a2a.types import (
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskState,
)
from a2a.utils.errors import A2AError as SdkError

from automata.a2a._errors import (
    RemoteAgentUnavailableError,
    RemoteInputRequiredError,
    RemoteProtocolError,
    RemoteTaskError,
)
from automata.core import (
    InvalidArgumentError,
    InvalidToolArguments,
    TextEvent,
    ToolContext,
    ToolDefinitionError,
)

__all__ = ["A2AAgent"]

_TASK_SCHEMA: Mapping[str, Any] = MappingProxyType(
    {
        "type": "object",
        "properties": {"task": {"type": "string", "description": "The task, in natural language."}},
        "required": ["task"],
        "additionalProperties": False,
    }
)

_ENDED = {
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_CANCELED: "canceled",
    TaskState.TASK_STATE_REJECTED: "rejected",
}
_WAITING = (TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED)


def _text(parts: Any) -> str:
    return "".join(part.text for part in parts if part.HasField("text"))


@dataclass(slots=True)
class _Progress:
    """What the remote task has said so far: its artifacts' text, its state and its
    status message."""

    artifacts: dict[str, str] = field(default_factory=dict)
    state: TaskState = TaskState.TASK_STATE_UNSPECIFIED
    status_text: str = ""
    task_id: str = ""
    context_id: str = ""
    reply: str | None = None

    def take(self, event: StreamResponse) -> str:
        """Fold `event` in; the text it adds to an artifact ("" for none)."""
        if event.HasField("message"):
            self.reply = _text(event.message.parts)
            return self.reply
        if event.HasField("task"):
            self._task(event.task)
            return ""
        if event.HasField("status_update"):
            status = event.status_update
            self.task_id, self.context_id = status.task_id, status.context_id
            self.state = status.status.state
            self.status_text = _text(status.status.message.parts)
            return ""
        if event.HasField("artifact_update"):
            update = event.artifact_update
            self.task_id, self.context_id = update.task_id, update.context_id
            key, added = update.artifact.artifact_id, _text(update.artifact.parts)
            if update.append:
                self.artifacts[key] = self.artifacts.get(key, "") + added
                return added
            before = self.artifacts.get(key, "")
            self.artifacts[key] = added
            return added.removeprefix(before) if added.startswith(before) else ""
        return ""

    def _task(self, task: Task) -> None:
        self.task_id, self.context_id = task.id, task.context_id
        self.state = task.status.state
        self.status_text = _text(task.status.message.parts)
        for artifact in task.artifacts:
            self.artifacts[artifact.artifact_id] = _text(artifact.parts)

    def answer(self) -> str:
        if self.reply is not None:
            return self.reply
        if self.state in _WAITING:
            raise RemoteInputRequiredError(
                self.status_text or "(no question given)",
                task_id=self.task_id,
                context_id=self.context_id,
            )
        if self.state in _ENDED:
            state = _ENDED[self.state]
            raise RemoteTaskError(
                f"the remote task was {state}: {self.status_text or 'no reason given'}",
                state=state,
                task_id=self.task_id,
            )
        if self.state != TaskState.TASK_STATE_COMPLETED:
            raise RemoteProtocolError(
                f"the remote agent stopped answering with its task {TaskState.Name(self.state)}"
            )
        return "\n".join(self.artifacts.values()) or self.status_text


@dataclass(frozen=True, slots=True)
class A2AAgent:
    """A tool that sends its `task` argument to the A2A agent at `url` (the base URL
    its agent card is served under) and returns the agent's answer: the text of the
    completed task's artifacts (or of the message the agent replied with).

    Calls stream when the remote card says it can; the answer's text is streamed into
    the calling run's stream as it arrives, as `TextEvent`s tagged with the tool's
    name and the call's id (as a local sub-agent's are). Every call is a new remote
    task in a new context. A call fails with `RemoteAgentUnavailableError` (retryable)
    when the agent cannot be reached or times out (`timeout` seconds per request),
    `RemoteProtocolError` when it answers with an A2A error, `RemoteTaskError` when
    the task fails, is canceled or rejected, and `RemoteInputRequiredError` (naming
    the task and its question) when it waits for input; the loop shows each to the
    model as an error result. Raises `ToolDefinitionError` for a name a model cannot
    call, `InvalidArgumentError` for a url that is not http(s) or a timeout not
    above 0."""

    url: str
    name: str = "remote_agent"
    description: str = "Hand a task, in natural language, to a remote agent; get its answer."
    timeout: float = 300.0
    input_schema: Mapping[str, Any] = field(default_factory=lambda: _TASK_SCHEMA, repr=False)

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise InvalidArgumentError(f"A2AAgent needs an http(s) url, got {self.url!r}")
        if not self.timeout > 0:
            raise InvalidArgumentError(f"timeout must be above 0 seconds, got {self.timeout}")
        if not self.name or len(self.name) > 64 or not self.name.replace("-", "_").isidentifier():
            raise ToolDefinitionError(
                f"invalid tool name {self.name!r}: use 1-64 letters, digits, '_' or '-'"
            )

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> str:
        task = arguments.get("task")
        if not isinstance(task, str) or not task.strip() or set(arguments) != {"task"}:
            raise InvalidToolArguments(
                "task: give the task as the one argument, a non-empty string"
            )
        message = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, parts=[Part(text=task)])
        progress = _Progress()
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as http:
                client = await create_client(self.url, ClientConfig(httpx_client=http))
                async with client:
                    async for event in client.send_message(SendMessageRequest(message=message)):
                        self._emit(context, progress.take(event))
        except (AgentCardResolutionError, A2AClientTimeoutError, httpx.TransportError) as exc:
            raise RemoteAgentUnavailableError(
                f"the A2A agent at {self.url} could not be reached: {exc}"
            ) from exc
        except A2AClientError as exc:
            if isinstance(exc.__cause__, httpx.TransportError):
                raise RemoteAgentUnavailableError(
                    f"the A2A agent at {self.url} could not be reached: {exc}"
                ) from exc
            raise RemoteProtocolError(f"the A2A agent at {self.url} answered: {exc}") from exc
        except SdkError as exc:
            raise RemoteProtocolError(
                f"the A2A agent at {self.url} answered {type(exc).__name__}: {exc}"
            ) from exc
        return progress.answer()

    def _emit(self, context: ToolContext, text: str) -> None:
        if text and context.scope.emit is not None:
            context.scope.emit(
                TextEvent(
                    agent=self.name,
                    invocation_id=context.call.id,
                    depth=context.depth + 1,
                    text=text,
                )
            )
