"""The activities: reading an agent's plan, one provider call, one tool call.

They run on a worker, outside the workflow sandbox, with the agents of its registry.
Every failure the model should see (a tool that raises, arguments that do not fit, a
tool that does not exist) is returned as an error result, never raised, so Temporal
only ever retries what a lost worker or a transient provider error left undone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError

from automata.core import (
    InvalidToolArguments,
    Message,
    ModelRequest,
    ModelRetry,
    ProviderError,
    RetryableError,
    TextBlock,
    ToolContext,
    ToolResult,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    dump_messages,
    load_messages,
)
from automata.temporal._mapping import NON_RETRYABLE
from automata.temporal._registry import AgentRegistry
from automata.temporal._types import AgentPlan, ModelCall, ModelReply, ToolCall

__all__ = ["DESCRIBE", "MODEL_CALL", "TOOL_CALL", "AgentActivities"]

DESCRIBE = "automata.describe"
MODEL_CALL = "automata.model_call"
TOOL_CALL = "automata.tool_call"

T = TypeVar("T")


async def _heartbeating(work: Awaitable[T]) -> T:
    """Await `work`, heartbeating at a third of the activity's heartbeat timeout, so a
    worker that dies is noticed by the server within that timeout."""
    timeout = activity.info().heartbeat_timeout
    task = asyncio.ensure_future(work)
    if timeout is None:
        return await task
    interval = max(timeout.total_seconds() / 3, 0.05)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=interval)
            if done:
                return task.result()
            activity.heartbeat()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


def _retryable(error: BaseException) -> bool:
    if isinstance(error, RetryableError):
        return True
    return isinstance(error, ProviderError) and bool(getattr(error, "retryable", False))


def _message(error: BaseException) -> str:
    try:
        text = str(error)
    except Exception:
        text = ""
    return text or type(error).__name__


class AgentActivities:
    """The activities of the agents in `registry`; register `activities` on a worker."""

    def __init__(self, registry: AgentRegistry) -> None:
        self._registry = registry

    @property
    def activities(self) -> list[Callable[..., Any]]:
        """The activity functions, for `Worker(activities=...)`."""
        return [self.describe, self.model_call, self.tool_call]

    @activity.defn(name=DESCRIBE)
    async def describe(self, agent: str) -> AgentPlan:
        """The plan of agent `agent`; an unknown name fails without retry."""
        try:
            return self._registry.plan(agent)
        except (KeyError, TypeError) as error:
            raise ApplicationError(_message(error), type=NON_RETRYABLE) from error

    @activity.defn(name=MODEL_CALL)
    async def model_call(self, call: ModelCall) -> ModelReply:
        """One provider call on the transcript. A transient provider error is raised for
        Temporal to retry; any other failure, and a reply whose stop reason contradicts
        it, fails without retry."""
        agent = self._registry.agent(call.agent)
        request = ModelRequest(
            messages=tuple(load_messages(call.transcript)),
            tools=tuple(ToolSpec(t.name, t.description, t.input_schema) for t in agent.tools),
            options=agent.call_options,
        )
        try:
            response = await _heartbeating(agent.provider.complete(request))
        except Exception as error:
            if _retryable(error):
                raise
            raise ApplicationError(
                f"provider failed: {_message(error)}", type=NON_RETRYABLE
            ) from error
        message = response.message
        calls = message.tool_calls
        if not message.content or (response.stop_reason == "tool_use") != bool(calls):
            raise ApplicationError(
                f"incomplete reply (stop reason {response.stop_reason!r})", type=NON_RETRYABLE
            )
        return ModelReply(message=dump_messages([message]), stop_reason=response.stop_reason)

    @activity.defn(name=TOOL_CALL)
    async def tool_call(self, call: ToolCall) -> str:
        """Run one tool call; return its result as a one-message `dump_messages` document
        holding the `ToolResultBlock`. The tool's context names the run (`run_id`) as its
        invocation id, so `idempotency_key(context)` is the same on every attempt."""
        (message,) = load_messages(call.message)
        (block,) = [b for b in message.tool_calls if b.id == call.call_id]
        result = await _heartbeating(self._run(block, call))
        results = ToolResultBlock(
            tool_use_id=block.id, content=result.content, is_error=result.is_error
        )
        return dump_messages([Message(role="tool", content=(results,))])

    async def _run(self, block: ToolUseBlock, call: ToolCall) -> ToolResult:
        agent = self._registry.agent(call.agent)
        found = {t.name: t for t in agent.tools}
        tool = found.get(block.name)
        if tool is None:
            names = ", ".join(found) or "none"
            return ToolResult.error(f'tool not found: "{block.name}" (available tools: {names})')
        if block.input_error is not None:
            return ToolResult.error(f"invalid args: {block.input_error}")
        context: ToolContext[Any] = ToolContext(
            call=block, agent=call.agent, invocation_id=call.run_id
        )
        try:
            value = await tool.execute(block.input, context)
        except InvalidToolArguments as error:
            return ToolResult.error(f"invalid args: {_message(error)}")
        except ModelRetry as error:
            return ToolResult.error(_message(error))
        except Exception as error:
            return ToolResult.error(_message(error))
        if isinstance(value, str):
            return ToolResult(content=(TextBlock(text=value),))
        return value
