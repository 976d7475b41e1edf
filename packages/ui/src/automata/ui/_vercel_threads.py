"""A durable thread served as the AI SDK's UI message stream:
`ui_message_thread_stream`. Needs the `threads` extra (`automata-ai-ui[threads]`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from automata.ui._errors import InvalidRequestBodyError, UIProtocolError
from automata.ui._limits import UILimits
from automata.ui._response import EventStreamResponse
from automata.ui._thread_chunks import ThreadChunkWriter
from automata.ui._vercel_chunks import (
    DONE_FRAME,
    UI_MESSAGE_STREAM_HEADERS,
    sse_frame,
)
from automata.ui._vercel_request import ChatRequest, read_chat_request, tool_part_name

if TYPE_CHECKING:
    from automata.threads import ThreadService, ThreadView, ViewItem

__all__ = ["ThreadNotFound", "ui_message_thread_stream"]


class ThreadNotFound(UIProtocolError):
    """The thread (or the interaction an approval answers) is not in the store."""

    status = 404


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
        turn_id, after, first = await _submit(service, thread_id, chat)
        # answering approvals goes on writing the assistant message that asked for them;
        # a user message (new input, or a question's answer) gets a new one
        continued = chat.last.get("id") if chat.last["role"] == "assistant" else None
        writer = ThreadChunkWriter(
            turn_id=turn_id, after=after, first=first, earlier_outcomes=continued is not None
        )
        return _frames(
            service, thread_id, writer, continued if isinstance(continued, str) else None
        )

    return EventStreamResponse(
        request, open_stream, limits=bounds, headers=UI_MESSAGE_STREAM_HEADERS
    )


async def _submit(
    service: ThreadService, thread_id: str, chat: ChatRequest
) -> tuple[str, int, ThreadView]:
    from automata.core import InvalidArgumentError
    from automata.threads import ItemNotFoundError, RequestConflictError, ThreadNotFoundError

    last = chat.last
    key = f"ui/{thread_id}/{last.get('id') or len(chat.messages)}"
    try:
        if last["role"] == "user":
            text = "".join(
                part["text"]
                for part in last["parts"]
                if part["type"] == "text" and isinstance(part.get("text"), str)
            )
            if not text:
                raise InvalidRequestBodyError("the last user message holds no text")
            question = _pending_question(await service.view(thread_id))
            if question is not None and question.interaction_id and question.turn_id:
                # typed while the thread asks: the text answers the question
                view = await service.respond(
                    thread_id, question.interaction_id, text, request_key=key
                )
                return question.turn_id, question.ordinal, view
            view = await service.send(thread_id, text, request_key=key)
            turn: str | None
            if view.queue:
                turn = view.queue[-1].turn_id
            else:
                turn = next(item.turn_id for item in reversed(view.items) if item.kind == "user")
            after = max(
                (
                    item.ordinal
                    for item in view.items
                    if item.turn_id == turn and item.kind == "user"
                ),
                default=-1,
            )
            if turn is None:
                raise ThreadNotFound("the sent message started no turn")
            return turn, after, view
        answers = _approval_answers(last["parts"])
        if not answers:
            raise InvalidRequestBodyError(
                "the last assistant message answers no approval: send a user message"
            )
        view = await service.view(thread_id)
        for interaction, (approved, reason) in answers.items():
            view = await service.respond(
                thread_id, interaction, approved, request_key=f"{key}/{interaction}", reason=reason
            )
        answered = [item for item in view.items if item.interaction_id in answers]
        if not answered or answered[-1].turn_id is None:
            raise ThreadNotFound("the approvals answer no interaction of this thread")
        return answered[-1].turn_id, answered[-1].ordinal, view
    except ThreadNotFoundError as missing:
        raise ThreadNotFound(str(missing)) from missing
    except ItemNotFoundError as missing:
        raise ThreadNotFound(str(missing)) from missing
    except (RequestConflictError, InvalidArgumentError) as refused:
        raise InvalidRequestBodyError(str(refused)) from refused


def _pending_question(view: ThreadView) -> ViewItem | None:
    """The question the thread waits on, if it waits on one."""
    for item in reversed(view.items):
        if item.kind == "interaction" and item.interaction_kind == "question":
            return item if item.status == "pending" else None
    return None


def _approval_answers(parts: list[Mapping[str, Any]]) -> dict[str, tuple[bool, str]]:
    answers: dict[str, tuple[bool, str]] = {}
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
    async with aclosing(service.subscribe(thread_id)) as views:
        last: ThreadView | None = None
        async for view in views:
            last = view
            for chunk in writer.write(view):
                yield sse_frame(chunk)
            if writer.done(view):
                break
    if last is not None:
        for chunk in writer.finish(last):
            yield sse_frame(chunk)
    yield DONE_FRAME
