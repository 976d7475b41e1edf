"""Which replies a run refuses: a reply that is not a usable assistant turn is not
committed, and the run fails with the error named here (L33-L36, L92)."""

from __future__ import annotations

from automata.core._errors import CompletionError, IncompleteResponseError, RunError
from automata.core._provider import ModelResponse
from automata.core._stop import StopReason

__all__ = ["refusal"]


def refusal(response: ModelResponse, has_calls: bool) -> tuple[RunError, StopReason] | None:
    """The error and stop reason a run fails with for `response`, or None when the
    reply is usable. `has_calls`: whether the reply's message calls tools."""
    message = response.message
    stop = response.stop_reason
    problem: RunError
    if message.role != "assistant":
        problem = CompletionError(f"provider returned a {message.role} message")
    elif not message.content:
        problem = IncompleteResponseError(
            f"provider returned an empty message (stop reason {stop.value})"
        )
    elif stop is StopReason.END_TURN and has_calls:
        problem = IncompleteResponseError("stop reason end_turn but the message calls tools")
    elif stop is StopReason.TOOL_USE and not has_calls:
        problem = IncompleteResponseError("stop reason tool_use but the message calls no tool")
    elif stop is StopReason.MAX_TOKENS and has_calls:
        problem = IncompleteResponseError("max_tokens reached inside a tool call")
    elif stop is StopReason.PAUSED:
        if not has_calls:
            return None
        problem = IncompleteResponseError("a paused turn that calls tools")
    elif stop is StopReason.INCOMPLETE:
        problem = IncompleteResponseError("provider reported an incomplete response")
    elif stop in (StopReason.END_TURN, StopReason.TOOL_USE, StopReason.MAX_TOKENS):
        return None
    else:
        raw = response.raw_stop_reason or stop.value
        problem = CompletionError(
            f"model stopped with {stop.value} (raw stop reason {raw!r})",
            raw_stop_reason=response.raw_stop_reason,
        )
    status = StopReason.INCOMPLETE if isinstance(problem, IncompleteResponseError) else stop
    if status in (StopReason.END_TURN, StopReason.TOOL_USE):
        status = StopReason.ERROR
    return problem, status
