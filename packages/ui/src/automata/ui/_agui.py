"""An agent run served as AG-UI events: `agui_stream`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Collection
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    RunAgentInput,
    RunStartedEvent,
    StateSnapshotEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from automata.core import (
    Agent,
    Approval,
    Block,
    Message,
    TextBlock,
    ToolResult,
    ToolUseBlock,
)
from automata.ui._agui_events import AGUIEventWriter
from automata.ui._driver import drive, written
from automata.ui._errors import InvalidRequestBodyError
from automata.ui._limits import UILimits
from automata.ui._response import EventStreamResponse
from automata.ui._run_plan import ClientTool, RunPlan, check_continuable
from automata.ui._wire_values import APPROVAL_PREFIX

__all__ = ["agui_stream", "plan_agui_run", "read_run_input"]


def agui_stream(
    agent: Agent[Any],
    request: Request,
    *,
    approval_required: Collection[str] = (),
    limits: UILimits | None = None,
) -> Response:
    """Answer an AG-UI `RunAgentInput` (an `HttpAgent`'s POST) with a run of `agent`,
    as AG-UI events encoded by the official `EventEncoder`: RUN_STARTED, a
    STATE_SNAPSHOT of the input's `state`, the run's steps, text, reasoning and tool
    calls, a STATE_DELTA adding the run's `usage`, and RUN_FINISHED (or RUN_ERROR).

    The input's `tools` are the front end's tools: the model is offered them, and a
    call to one ends the run (RUN_FINISHED with the call among
    `outcome.pendingToolCallIds`) for the front end to run it and send a tool message
    with its next input. A call to a tool in `approval_required` ends the run with an
    interrupt (`outcome.interrupts`, reason `tool_approval`, with the call's id); the
    next input's `resume` entry for it (`status` `resolved` with `payload.approved`
    true runs the call; `cancelled`, or `approved` false, denies it) continues the
    run. Continuing a gated call without an answer is refused (400). As with every
    stateless protocol, the client's transcript is trusted.
    """
    bounds = limits or UILimits()
    gated = frozenset(approval_required)

    async def open_stream(body: dict[str, Any]) -> AsyncIterator[str]:
        run_input = read_run_input(body, bounds)
        plan = plan_agui_run(run_input)
        check_continuable(plan, gated)
        return _frames(agent, run_input, plan, gated, bounds)

    return EventStreamResponse(request, open_stream, limits=bounds)


def read_run_input(body: dict[str, Any], limits: UILimits) -> RunAgentInput:
    """The body as a `RunAgentInput`; `InvalidRequestBodyError` with the first
    problem when it is not one, or holds more than `limits.max_messages` messages."""
    try:
        run_input = RunAgentInput.model_validate(body)
    except ValidationError as bad:
        first = bad.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidRequestBodyError(f"not a RunAgentInput: {where}: {first['msg']}") from None
    if len(run_input.messages) > limits.max_messages:
        raise InvalidRequestBodyError(f"messages holds more than {limits.max_messages} messages")
    return run_input


def plan_agui_run(run_input: RunAgentInput) -> RunPlan:
    """The run an input asks for: its user, assistant and tool messages as the history
    (system and developer messages are left out: the agent keeps its own prompt); a
    last user message is the task; a last assistant message with calls (optionally
    followed by tool messages answering some of them) is continued, with the
    tool messages' content as the client-side calls' outputs and the `resume`
    entries as decisions."""
    history: list[Message] = []
    trailing: dict[str, ToolResult] = {}
    for message in run_input.messages:
        if isinstance(message, UserMessage):
            history.append(Message(role="user", content=_user_blocks(message)))
            trailing = {}
        elif isinstance(message, AssistantMessage):
            history.append(_assistant(message))
            trailing = {}
        elif isinstance(message, ToolMessage):
            result = ToolResult(
                content=ToolResult.text(_content_text(message.content)).content,
                is_error=message.error is not None,
            )
            trailing[message.tool_call_id] = result
            history = _answer(history, message.tool_call_id, result)
    history = [message for message in history if message.content]
    if not history:
        raise InvalidRequestBodyError("messages holds no user or assistant message")
    if history[-1].role == "user":
        task = history.pop()
        return RunPlan(tuple(history), task)
    calls = _open_calls(history)
    if not calls:
        raise InvalidRequestBodyError(
            "the last message is an assistant message with no tool call waiting"
        )
    decisions: dict[str, Approval] = {}
    for entry in run_input.resume or ():
        call_id = entry.interrupt_id.removeprefix(APPROVAL_PREFIX)
        payload = entry.payload if isinstance(entry.payload, dict) else {}
        approved = entry.status == "resolved" and payload.get("approved") is True
        reason = payload.get("reason")
        decisions[call_id] = (
            Approval.allow()
            if approved
            else Approval.deny(reason if isinstance(reason, str) else "")
        )
    return RunPlan(tuple(_without_tail_results(history)), None, decisions, trailing)


def client_tools_of(run_input: RunAgentInput) -> tuple[ClientTool, ...]:
    """The input's tools as client-side tools."""
    return tuple(
        ClientTool(
            tool.name,
            tool.description,
            tool.parameters if isinstance(tool.parameters, dict) else {"type": "object"},
        )
        for tool in run_input.tools or ()
    )


def _user_blocks(message: UserMessage) -> tuple[Block, ...]:
    text = _content_text(message.content)
    return (TextBlock(text=text),) if text else ()


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(getattr(part, "text", "")) for part in content)
    return ""


def _assistant(message: AssistantMessage) -> Message:
    blocks: list[Block] = []
    if message.content:
        blocks.append(TextBlock(text=message.content))
    for call in message.tool_calls or ():
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except json.JSONDecodeError:
            arguments = None
        blocks.append(
            ToolUseBlock(
                id=call.id,
                name=call.function.name,
                input=arguments if isinstance(arguments, dict) else {},
                input_error=None
                if isinstance(arguments, dict)
                else "arguments are not a JSON object",
            )
        )
    return Message(role="assistant", content=tuple(blocks))


def _answer(history: list[Message], call_id: str, result: ToolResult) -> list[Message]:
    from automata.core import ToolResultBlock

    block = ToolResultBlock(tool_use_id=call_id, content=result.content, is_error=result.is_error)
    if history and history[-1].role == "tool":
        last = history[-1]
        return [*history[:-1], Message(role="tool", content=(*last.content, block))]
    return [*history, Message(role="tool", content=(block,))]


def _open_calls(history: list[Message]) -> tuple[ToolUseBlock, ...]:
    """The calls of the last assistant message, when only tool messages follow it."""
    for message in reversed(history):
        if message.role == "assistant":
            return message.tool_calls
        if message.role != "tool":
            return ()
    return ()


def _without_tail_results(history: list[Message]) -> list[Message]:
    while history and history[-1].role == "tool":
        history = history[:-1]
    return history


async def _frames(
    agent: Agent[Any],
    run_input: RunAgentInput,
    plan: RunPlan,
    gated: frozenset[str],
    limits: UILimits,
) -> AsyncIterator[str]:
    encoder = EventEncoder()
    writer = AGUIEventWriter(thread_id=run_input.thread_id, run_id=run_input.run_id)
    yield encoder.encode(RunStartedEvent(thread_id=run_input.thread_id, run_id=run_input.run_id))
    state = run_input.state if isinstance(run_input.state, dict) else {}
    yield encoder.encode(StateSnapshotEvent(snapshot=state))
    for event in writer.continue_calls(plan.pending_calls):
        yield encoder.encode(event)
    items = drive(
        agent,
        plan,
        approval_required=gated,
        client_tools=client_tools_of(run_input),
        max_queued_events=limits.max_queued_events,
    )
    async for frame in written(items, lambda item: map(encoder.encode, writer.write(item))):
        yield frame
