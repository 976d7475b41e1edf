"""A durable thread served as AG-UI events: `agui_thread_stream`. Needs the `threads`
extra (`automata-ai-ui[threads]`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ag_ui.core import RunAgentInput, RunStartedEvent, StateSnapshotEvent, UserMessage
from ag_ui.encoder import EventEncoder
from starlette.requests import Request
from starlette.responses import Response

from automata.ui._agui import read_run_input
from automata.ui._agui_thread_events import ThreadEventWriter
from automata.ui._errors import InvalidRequestBodyError
from automata.ui._limits import UILimits
from automata.ui._response import EventStreamResponse
from automata.ui._thread_diff import ThreadDiff
from automata.ui._thread_turns import TurnStart, answer_approvals, followed, send_or_answer

if TYPE_CHECKING:
    from automata.threads import ThreadService

__all__ = ["agui_thread_stream"]


def agui_thread_stream(
    service: ThreadService,
    request: Request,
    *,
    thread_id: str | None = None,
    limits: UILimits | None = None,
) -> Response:
    """Answer an AG-UI `RunAgentInput` with a turn of a durable thread, as AG-UI
    events. The thread is `thread_id` (checked against the input's `threadId`: a
    mismatch is refused with 400), or the input's `threadId` when none is given.

    The thread's journal is the truth: of the input's messages only the last is read.
    `resume` entries answer the thread's interrupts (an approval: `resolved` with
    `payload.approved` true approves, anything else denies, `payload.reason` the
    reason; a question: `payload.answer`, its text), which resumes the durable turn;
    otherwise a last user message is sent (or, while the thread asks a question,
    answers it). The stream follows the turn until it ends or waits for a person,
    whose approvals and questions are the interrupts of RUN_FINISHED. Closing the
    stream does not stop the turn.
    """
    bounds = limits or UILimits()

    async def open_stream(body: dict[str, Any]) -> AsyncIterator[str]:
        run_input = read_run_input(body, bounds)
        thread = thread_id or run_input.thread_id
        if thread != run_input.thread_id:
            raise InvalidRequestBodyError("threadId names another thread than this route")
        start = await _submit(service, thread, run_input)
        diff = ThreadDiff(
            turn_id=start.turn_id,
            after=start.after,
            first=start.view,
            earlier_outcomes=bool(run_input.resume),
        )
        writer = ThreadEventWriter(diff, thread_id=thread, run_id=run_input.run_id)
        return _frames(service, thread, run_input, writer)

    return EventStreamResponse(request, open_stream, limits=bounds)


async def _submit(service: ThreadService, thread_id: str, run_input: RunAgentInput) -> TurnStart:
    key = f"agui/{thread_id}/{run_input.run_id}"
    if run_input.resume:
        answers: dict[str, tuple[bool | str, str]] = {}
        for entry in run_input.resume:
            payload = entry.payload if isinstance(entry.payload, dict) else {}
            reason = payload.get("reason")
            answer = payload.get("answer")
            if isinstance(answer, str):
                answers[entry.interrupt_id] = (answer, "")
            else:
                approved = entry.status == "resolved" and payload.get("approved") is True
                answers[entry.interrupt_id] = (approved, reason if isinstance(reason, str) else "")
        return await answer_approvals(service, thread_id, answers, request_key=key)
    last = run_input.messages[-1] if run_input.messages else None
    if not isinstance(last, UserMessage):
        raise InvalidRequestBodyError("the input ends in no user message and resumes nothing")
    text = last.content if isinstance(last.content, str) else ""
    if not isinstance(last.content, str):
        text = "".join(str(getattr(part, "text", "")) for part in last.content)
    return await send_or_answer(service, thread_id, text, request_key=f"{key}/{last.id}")


async def _frames(
    service: ThreadService, thread_id: str, run_input: RunAgentInput, writer: ThreadEventWriter
) -> AsyncIterator[str]:
    encoder = EventEncoder()
    yield encoder.encode(RunStartedEvent(thread_id=thread_id, run_id=run_input.run_id))
    state = run_input.state if isinstance(run_input.state, dict) else {}
    yield encoder.encode(StateSnapshotEvent(snapshot=state))
    async for frame in followed(service, thread_id, writer, encoder.encode):
        yield frame
