"""The activities: one provider call, one tool call.

They run on a worker, outside the workflow sandbox, with the agents of its registry:
the workflow's loop sends them the request or the call, they answer with what the
agent's own provider or tool gave. Every failure the model should see (a tool that
raises, arguments that do not fit) is returned, never raised, so Temporal only ever
retries what a lost worker or a transient provider error left undone.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from automata.core import (
    Approval,
    InvalidToolArguments,
    ModelRetry,
    ProviderError,
    RetryableError,
    TextBlock,
    ToolContext,
    ToolResult,
    load_messages,
)
from automata.temporal._heartbeat import error_message, heartbeating
from automata.temporal._mapping import NON_RETRYABLE
from automata.temporal._registry import AgentRegistry
from automata.temporal._types import ApprovalAnswer, ModelCall, ToolCall, ToolOutcome
from automata.temporal._wire import dump_response, dump_result, load_deps, load_request

__all__ = ["APPROVE", "MODEL_CALL", "TOOL_CALL", "AgentActivities"]

APPROVE = "automata.approve"

MODEL_CALL = "automata.model_call"
TOOL_CALL = "automata.tool_call"


def _retryable(error: BaseException) -> bool:
    """A transient provider failure Temporal may retry (TP4)."""
    if isinstance(error, RetryableError):
        return True
    return isinstance(error, ProviderError) and error.retryable


class AgentActivities:
    """The activities of the agents in `registry`; register `activities` on a worker."""

    def __init__(self, registry: AgentRegistry) -> None:
        self._registry = registry

    @property
    def activities(self) -> list[Callable[..., Any]]:
        """The activity functions, for `Worker(activities=...)`."""
        return [self.model_call, self.tool_call, self.approve]

    @activity.defn(name=MODEL_CALL)
    async def model_call(self, call: ModelCall) -> str:
        """One provider call of the member agent, on the request the loop built; the
        reply as `dump_response` JSON. A transient provider error is raised for Temporal
        to retry; any other failure is raised as not retryable (TP4)."""
        try:
            agent = self._registry.member(call.agent, call.member)
        except KeyError as error:
            raise ApplicationError(error_message(error), type=NON_RETRYABLE) from error
        try:
            response = await heartbeating(agent.provider.complete(load_request(call.request)))
        except Exception as error:
            if _retryable(error):
                raise
            raise ApplicationError(error_message(error), type=NON_RETRYABLE) from error
        return dump_response(response)

    def _context(self, call: ToolCall) -> tuple[Any, ToolContext[Any]]:
        (message,) = load_messages(call.message)
        (block,) = [b for b in message.tool_calls if b.id == call.call_id]
        try:
            agent = self._registry.member(call.agent, call.member)
        except KeyError as error:
            raise ApplicationError(error_message(error), type=NON_RETRYABLE) from error
        root = self._registry.agent(call.agent)
        context: ToolContext[Any] = ToolContext(
            call=block,
            agent=agent.name,
            invocation_id=call.run_id,
            deps=load_deps(call.deps, root.deps_type),
            retries=call.retries,
        )
        return agent, context

    @activity.defn(name=APPROVE)
    async def approve(self, call: ToolCall) -> ApprovalAnswer:
        """The member agent's own approver on one call, with the call's context (TP15);
        an approver that raises, or returns something else than an `Approval`, fails
        without retry."""
        agent, context = self._context(call)
        approver = agent.approver
        if approver is None:
            return ApprovalAnswer(allowed=True)
        try:
            verdict = approver(context.call, context)
            decision = await heartbeating(verdict) if inspect.isawaitable(verdict) else verdict
        except Exception as error:
            raise ApplicationError(error_message(error), type=NON_RETRYABLE) from error
        if not isinstance(decision, Approval):
            returned = "None" if decision is None else type(decision).__name__
            raise ApplicationError(
                f"the approver returned {returned}, not an Approval", type=NON_RETRYABLE
            )
        return ApprovalAnswer(decision.allowed, decision.reason)

    @activity.defn(name=TOOL_CALL)
    async def tool_call(self, call: ToolCall) -> ToolOutcome:
        """Run one call of the member agent's tool. Its context names the run (`run_id`)
        as its invocation id, so `idempotency_key(context)` is the same on every attempt,
        and carries the run's deps and the tool's `ModelRetry` count."""
        agent, context = self._context(call)
        block = context.call
        found = {t.name: t for t in agent.tools}.get(block.name)
        if found is None:
            raise ApplicationError(f"no tool {block.name!r}", type=NON_RETRYABLE)
        try:
            value = await heartbeating(found.execute(block.input, context))
        except InvalidToolArguments as error:
            return ToolOutcome("invalid", error_message(error))
        except ModelRetry as error:
            return ToolOutcome("retry", error_message(error))
        except Exception as error:
            return ToolOutcome("result", dump_result(ToolResult.error(error_message(error))))
        if isinstance(value, str):
            value = ToolResult(content=(TextBlock(text=value),))
        return ToolOutcome("result", dump_result(value))
