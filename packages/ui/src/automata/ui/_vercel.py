"""An agent run served as the AI SDK's UI message stream: `ui_message_stream`."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Collection, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from automata.core import Agent
from automata.ui._chunk_parts import DONE_FRAME, UI_MESSAGE_STREAM_HEADERS, sse_frame
from automata.ui._driver import drive, written
from automata.ui._limits import UILimits
from automata.ui._response import EventStreamResponse
from automata.ui._run_plan import ClientTool, RunPlan, check_continuable
from automata.ui._vercel_chunks import UIChunkWriter
from automata.ui._vercel_request import plan_chat_run, read_chat_request

__all__ = ["ui_message_stream"]


def ui_message_stream(
    agent: Agent[Any],
    request: Request,
    *,
    approval_required: Collection[str] = (),
    client_tools: Sequence[ClientTool] = (),
    limits: UILimits | None = None,
) -> Response:
    """Answer an AI SDK chat request (`useChat`'s POST: `{id, messages, trigger}`)
    with a run of `agent`, as a UI message stream (server-sent events, header
    `x-vercel-ai-ui-message-stream: v1`, ended by `[DONE]`).

    The request's messages are the conversation (the agent keeps its own system
    prompt); a last user message is the new input. Calls to tools named in
    `approval_required` are not run: the stream sends `tool-approval-request` and
    finishes; the front end's approve or deny (`addToolApprovalResponse`) comes back
    in its next request, and that run starts with those calls (a denied one answered
    `denied: <reason>`, shown as `tool-output-denied`). A call to a `client_tools`
    tool ends the stream the same way, for the front end to run it and send its
    output. A request that would continue a gated call without a decision is refused
    (400) and runs nothing; a body over `limits.max_body_bytes` is refused with 413.

    This mode trusts the transcript the client sends, as the AI SDK's own servers
    do: a client can claim any history. Serve a durable thread
    (`ui_message_thread_stream`) when the server must keep the truth.
    """
    bounds = limits or UILimits()
    gated = frozenset(approval_required)

    async def open_stream(body: dict[str, Any]) -> AsyncIterator[str]:
        chat = read_chat_request(body, bounds)
        plan = plan_chat_run(chat)
        check_continuable(plan, gated)
        # a continued run goes on writing the message it continues, under its id
        continued = chat.last.get("id") if plan.task is None else None
        message_id = continued if isinstance(continued, str) and continued else None
        return _frames(agent, plan, gated, client_tools, bounds, message_id)

    return EventStreamResponse(
        request, open_stream, limits=bounds, headers=UI_MESSAGE_STREAM_HEADERS
    )


async def _frames(
    agent: Agent[Any],
    plan: RunPlan,
    gated: frozenset[str],
    client_tools: Sequence[ClientTool],
    limits: UILimits,
    message_id: str | None,
) -> AsyncIterator[str]:
    writer = UIChunkWriter(message_id=message_id or f"msg-{uuid.uuid4().hex}", denied=plan.denied)
    for chunk in writer.start():
        yield sse_frame(chunk)
    writer.continue_calls(plan.pending_calls)
    items = drive(
        agent,
        plan,
        approval_required=gated,
        client_tools=client_tools,
        max_queued_events=limits.max_queued_events,
    )
    async for frame in written(items, lambda item: map(sse_frame, writer.write(item))):
        yield frame
    yield DONE_FRAME
