"""A durable thread served as the AI SDK's UI message stream:
`ui_message_thread_stream`. Needs the `threads` extra (`automata-ai-ui[threads]`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from automata.ui._chunk_parts import DONE_FRAME, UI_MESSAGE_STREAM_HEADERS, sse_frame
from automata.ui._limits import UILimits
from automata.ui._response import EventStreamResponse
from automata.ui._thread_chunks import ThreadChunkWriter
from automata.ui._thread_diff import ThreadDiff
from automata.ui._thread_turns import TurnStart, answer_approvals, followed, send_or_answer
from automata.ui._vercel_request import ChatRequest, read_chat_request, tool_part_name

if TYPE_CHECKING:
    from automata.threads import ThreadService

__all__ = ["ui_message_thread_stream"]


def ui_message_thread_stream(
    service: ThreadService,
    thread_id: str,
    request: Request,
    *,
    limits: UILimits | None = None,
) -> Response:
    """Answer an AI SDK chat request with turn of the durable thread `thread_id`, as
    a UI message stream.

    The thread's journal is the truth, not the client's messages: only the last
    message is read. A user message is sent to the thread (`service.send`, its
    request key made from the message's id, so a retried request sends nothing
    twice); an assistant message carrying approval responses (`addToolApprovalResponse`)
    answers the thread's pending approvals (`service.respond`, with the approval's
    id, which is the thread's interaction id), which resumes the durable turn. The
    stream then follows the turn (`service.subscribe`) until it ends or waits for a
    person again: a call the thread's `require_approval` gate holds is sent as
    `tool-approval-request`, a question (`ask_user`) as a `data-question` part, and
    the next user message, while the question waits, answers it (`service.respond`). Closing the
    stream does not stop the turn: it runs on in the host.
    """
    bounds = limits or UILimits()

    async def open_stream(body: dict[str, Any]) -> AsyncIterator[str]:
        chat = read_chat_request(body, bounds)
        start = await _submit(service, thread_id, chat)
        # answering approvals goes on writing the assistant message that asked for them;
        # a user message (new input, or a question's answer) gets a new one
        continued = chat.last.get("id") if chat.last["role"] == "assistant" else None
        diff = ThreadDiff(
            turn_id=start.turn_id,
            after=start.after,
            first=start.view,
            earlier_outcomes=continued is not None,
        )
        writer = ThreadChunkWriter(diff)
        return _frames(
            service, thread_id, writer, continued if isinstance(continued, str) else None
        )

    return EventStreamResponse(
        request, open_stream, limits=bounds, headers=UI_MESSAGE_STREAM_HEADERS
    )


async def _submit(service: ThreadService, thread_id: str, chat: ChatRequest) -> TurnStart:
    last = chat.last
    key = f"ui/{thread_id}/{last.get('id') or len(chat.messages)}"
    if last["role"] == "user":
        text = "".join(
            part["text"]
            for part in last["parts"]
            if part["type"] == "text" and isinstance(part.get("text"), str)
        )
        return await send_or_answer(service, thread_id, text, request_key=key)
    return await answer_approvals(
        service, thread_id, _approval_answers(last["parts"]), request_key=key
    )


def _approval_answers(parts: list[Mapping[str, Any]]) -> dict[str, tuple[bool | str, str]]:
    answers: dict[str, tuple[bool | str, str]] = {}
    for part in parts:
        approval = part.get("approval")
        if (
            tool_part_name(part) is not None
            and part.get("state") == "approval-responded"
            and isinstance(approval, dict)
            and isinstance(approval.get("id"), str)
            and isinstance(approval.get("approved"), bool)
        ):
            reason = approval.get("reason")
            answers[approval["id"]] = (
                approval["approved"],
                reason if isinstance(reason, str) else "",
            )
    return answers


async def _frames(
    service: ThreadService, thread_id: str, writer: ThreadChunkWriter, message_id: str | None
) -> AsyncIterator[str]:
    yield sse_frame({"type": "start", "messageId": message_id} if message_id else {"type": "start"})
    yield sse_frame({"type": "data-thread", "data": {"threadId": thread_id}, "transient": True})
    async for frame in followed(service, thread_id, writer, sse_frame):
        yield frame
    yield DONE_FRAME
