"""What a front end's request does to a durable thread before its stream starts:
send a message (or answer the question the thread waits on), or answer approvals;
where in the thread the stream then picks the turn up; and the following of the turn
both protocols' thread streams do. The threads service's errors are mapped to the
adapters' own (404, 400)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from automata.ui._errors import InvalidRequestBodyError, UIProtocolError

if TYPE_CHECKING:
    from automata.threads import ThreadService, ThreadView, ViewItem
    from automata.ui._change_writer import ChangeWriter

__all__ = [
    "ThreadNotFound",
    "TurnStart",
    "answer_approvals",
    "followed",
    "send_or_answer",
]

Part = TypeVar("Part")


class ThreadNotFound(UIProtocolError):
    """The thread (or the interaction an approval answers) is not in the store."""

    status = 404


@dataclass(frozen=True, slots=True)
class TurnStart:
    """The stream follows turn `turn_id` from after ordinal `after` of `view`."""

    turn_id: str
    after: int
    view: ThreadView


async def send_or_answer(
    service: ThreadService, thread_id: str, text: str, *, request_key: str
) -> TurnStart:
    """Send `text` to the thread; while the thread waits on a question (`ask_user`),
    the text is its answer instead (`respond`), not a turn queued behind it."""
    async with _mapped_errors():
        if not text:
            raise InvalidRequestBodyError("the last user message holds no text")
        question = _pending_question(await service.view(thread_id))
        if question is not None and question.interaction_id and question.turn_id:
            view = await service.respond(
                thread_id, question.interaction_id, text, request_key=request_key
            )
            return TurnStart(question.turn_id, question.ordinal, view)
        view = await service.send(thread_id, text, request_key=request_key)
        turn = view.queue[-1].turn_id if view.queue else None
        users = [item for item in view.items if item.kind == "user"]
        if turn is None and users:
            turn = users[-1].turn_id
        if turn is None:
            raise ThreadNotFound("the sent message started no turn")
        after = max((item.ordinal for item in users if item.turn_id == turn), default=-1)
        return TurnStart(turn, after, view)


async def answer_approvals(
    service: ThreadService,
    thread_id: str,
    answers: Mapping[str, tuple[bool | str, str]],
    *,
    request_key: str,
) -> TurnStart:
    """Answer the thread's interactions (id -> approved and reason, or a question's
    answer text), each with a request key made from `request_key` and its id, which
    resumes the durable turn."""
    async with _mapped_errors():
        if not answers:
            raise InvalidRequestBodyError("the request answers no approval: send a message")
        view = await service.view(thread_id)
        for interaction, (answer, reason) in answers.items():
            view = await service.respond(
                thread_id,
                interaction,
                answer,
                request_key=f"{request_key}/{interaction}",
                reason=reason,
            )
        answered = [item for item in view.items if item.interaction_id in answers]
        if not answered or answered[-1].turn_id is None:
            raise ThreadNotFound("the approvals answer no interaction of this thread")
        return TurnStart(answered[-1].turn_id, answered[-1].ordinal, view)


async def followed(
    service: ThreadService,
    thread_id: str,
    writer: ChangeWriter[Part],
    frame: Callable[[Part], str],
) -> AsyncIterator[str]:
    """The frames of what `writer` writes of each view of the thread (`subscribe`)
    until its turn is done (`ThreadDiff.done`), then of its `finish`. The
    subscription is closed however the reading ends; the turn runs on."""
    last: ThreadView | None = None
    async with aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            last = view
            for part in writer.write(view):
                yield frame(part)
            if writer.diff.done(view):
                break
    if last is not None:
        for part in writer.finish(last):
            yield frame(part)


def _pending_question(view: ThreadView) -> ViewItem | None:
    for item in reversed(view.items):
        if item.kind == "interaction" and item.interaction_kind == "question":
            return item if item.status == "pending" else None
    return None


@asynccontextmanager
async def _mapped_errors() -> AsyncIterator[None]:
    from automata.core import InvalidArgumentError
    from automata.threads import ItemNotFoundError, RequestConflictError, ThreadNotFoundError

    try:
        yield
    except (ThreadNotFoundError, ItemNotFoundError) as missing:
        raise ThreadNotFound(str(missing)) from missing
    except (RequestConflictError, InvalidArgumentError) as refused:
        raise InvalidRequestBodyError(str(refused)) from refused
