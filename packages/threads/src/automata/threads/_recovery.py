"""Settling the tool calls a stopped run left without an outcome.

A call the journal shows as dispatched may have run, partly run, or not run at all;
nothing says which. An idempotent tool (`tool(..., idempotent=True)`, or any `Tool`
with a true `idempotent` attribute) is run again, with the same invocation id and call
id, so `idempotency_key(context)` gives the outside world the same key. Any other
tool's call is never replayed: the turn ends `effect_outcome_unknown`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from automata.core import (
    Agent,
    InvalidToolArguments,
    Message,
    TextBlock,
    ToolContext,
    ToolResult,
    ToolResultBlock,
    ToolUseBlock,
)

__all__ = [
    "CANCELLED",
    "OUTCOME_UNKNOWN",
    "error_results",
    "is_idempotent",
    "rerun_calls",
]

OUTCOME_UNKNOWN = (
    "outcome unknown: the run stopped after this call was dispatched and before its "
    "result was recorded; the call was not run again"
)
CANCELLED = "cancelled"


def is_idempotent(agent: Agent[Any], name: str) -> bool:
    """Whether the agent's tool `name` declares itself idempotent (a missing tool does
    not: it would only get an error result, which is safe to give again)."""
    for candidate in agent.tools:
        if candidate.name == name:
            return bool(getattr(candidate, "idempotent", False))
    return True


def error_results(calls: Sequence[ToolUseBlock], text: str) -> Message:
    """A tool message answering every call with the error `text`."""
    return Message(
        role="tool",
        content=tuple(
            ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=text),), is_error=True)
            for call in calls
        ),
    )


async def _rerun(agent: Agent[Any], call: ToolUseBlock, invocation_id: str) -> ToolResultBlock:
    tools = {candidate.name: candidate for candidate in agent.tools}
    found = tools.get(call.name)

    def failed(text: str) -> ToolResultBlock:
        return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=text),), is_error=True)

    if found is None:
        available = ", ".join(sorted(tools)) or "none"
        return failed(f'tool not found: "{call.name}" (available tools: {available})')
    if call.input_error is not None:
        return failed(f"invalid args: {call.input_error}")
    context: ToolContext[Any] = ToolContext(
        call=call, agent=agent.name, invocation_id=invocation_id
    )
    try:
        value = await found.execute(call.input, context)
    except InvalidToolArguments as exc:
        return failed(f"invalid args: {exc}")
    except Exception as exc:
        return failed(str(exc) or type(exc).__name__)
    if isinstance(value, ToolResult):
        return ToolResultBlock(
            tool_use_id=call.id, content=tuple(value.content), is_error=value.is_error
        )
    return ToolResultBlock(tool_use_id=call.id, content=(TextBlock(text=str(value)),))


async def rerun_calls(
    agent: Agent[Any], calls: Sequence[ToolUseBlock], invocation_id: str
) -> Message:
    """Run the (idempotent) calls again, concurrently; their results as one tool
    message in the model's order."""
    results = await asyncio.gather(*(_rerun(agent, call, invocation_id) for call in calls))
    return Message(role="tool", content=tuple(results))
