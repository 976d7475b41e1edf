"""The errors the A2A extension raises: a remote agent that cannot be reached, one
that answered with a protocol error or a failed task, and one that asks for input."""

from __future__ import annotations

from automata.core import AutomataError, RetryableError

__all__ = [
    "A2AError",
    "RemoteAgentUnavailableError",
    "RemoteInputRequiredError",
    "RemoteProtocolError",
    "RemoteTaskError",
]


class A2AError(AutomataError):
    """Base of the errors a call to a remote A2A agent raises."""


class RemoteAgentUnavailableError(A2AError, RetryableError):
    """The remote agent could not be reached: its agent card could not be fetched, the
    connection failed or timed out. Worth repeating (a `RetryableError`)."""


class RemoteProtocolError(A2AError):
    """The remote agent answered with an A2A error (an unknown task, invalid
    parameters, an internal error) or with something that is not a task's answer."""


class RemoteTaskError(A2AError):
    """The remote task ended without an answer: `state` is `failed`, `canceled` or
    `rejected`, and the message is the remote agent's own explanation when it gave
    one. `task_id` names the remote task."""

    def __init__(self, message: str, *, state: str, task_id: str) -> None:
        super().__init__(message)
        self.state = state
        self.task_id = task_id


class RemoteInputRequiredError(A2AError):
    """The remote task waits for input (an approval or an answer to a question) that
    a tool call cannot give. `question` is what the remote agent asks, `task_id` and
    `context_id` name the waiting task so a person (or a later call) can answer it
    with a message on that task."""

    def __init__(self, question: str, *, task_id: str, context_id: str) -> None:
        super().__init__(
            f"the remote agent needs input to go on: {question} "
            f"(task {task_id!r}, context {context_id!r})"
        )
        self.question = question
        self.task_id = task_id
        self.context_id = context_id
