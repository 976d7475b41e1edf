"""`ThreadTaskExecutor`: a durable thread service behind the SDK's `AgentExecutor`,
each A2A context a thread and each task one turn of it."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, aclosing, asynccontextmanager
from typing import TYPE_CHECKING, Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, TaskState
from google.protobuf.json_format import MessageToDict

from automata.a2a._task_events import (
    METADATA_KEY,
    AnswerArtifact,
    approval_question,
    input_message,
    open_task,
    read_approval,
)
from automata.core import AutomataError

if TYPE_CHECKING:
    from automata.threads import ThreadService, ThreadView, ViewItem

__all__ = ["ThreadTaskExecutor", "ThreadsOpener"]

ThreadsOpener = Callable[[], "AbstractAsyncContextManager[ThreadService]"]
"""Opens the thread service when the server starts and closes it when it stops (e.g.
an `asynccontextmanager` that opens a `Host` and shuts it down)."""

_ENDED = {"done": "completed", "cancelled": "canceled"}


def _key(kind: str, value: str) -> str:
    return f"a2a-{kind}-" + hashlib.sha256(value.encode()).hexdigest()[:40]


class ThreadTaskExecutor(AgentExecutor):
    """Serves the threads of a durable thread service over A2A: a context is a thread
    (made on its first task), a task is one turn (its message `send`), streamed as
    the `answer` artifact while the turn runs, and ending `completed`, `failed` (the
    turn's error as the status message) or `canceled`.

    A turn that parks on an approval gate (`require_approval`) or an `ask_user`
    question puts the task in `input-required`: its status message asks (metadata
    under `"automata"`: `kind`, `interaction_id`, `thread_id`, `turn_id`, and for an
    approval the `tool` and its `input`). The next message on the task is the answer,
    given to the thread's `respond` (an approval is approved by a yes, see
    `read_approval`); the turn goes on in the service. Since the question and the
    answer are the thread's and the task's own records, a task waits durably: with a
    durable `task_store` (such as the SDK's `DatabaseTaskStore`) it is answered after
    the server restarts. `tasks/cancel` is the service's `cancel`. Every write to the
    service carries a request key made from the A2A ids, so a repeated request
    changes nothing twice.

    `threads` opens the service; serve with `a2a_app(executor, ...,
    lifespan=executor.opened)`."""

    def __init__(self, threads: ThreadsOpener) -> None:
        self._threads = threads
        self._service: ThreadService | None = None

    @asynccontextmanager
    async def opened(self) -> AsyncIterator[None]:
        """Open the thread service for as long as the block runs."""
        async with self._threads() as service:
            self._service = service
            try:
                yield
            finally:
                self._service = None

    def _require(self) -> ThreadService:
        if self._service is None:
            raise AutomataError("the thread service is not open; serve with lifespan=opened")
        return self._service

    async def _thread(self, context_id: str) -> str:
        view = await self._require().create(request_key=_key("context", context_id))
        return view.thread_id

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        service = self._require()
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        current = context.current_task
        text = context.get_user_input()
        if current is None:
            await open_task(context, event_queue)
            thread_id = await self._thread(context_id)
            before = await service.view(thread_id)
            known = _turns(before)
            sent = await service.send(thread_id, text, request_key=_key("task", task_id))
            turn = next(iter(_turns(sent) - known), sent.current_turn or "")
        else:
            asked = MessageToDict(current.status.message.metadata).get(METADATA_KEY, {})
            waiting = current.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
            if not waiting or "interaction_id" not in asked:
                await updater.failed(_says(updater, "this task takes no further input"))
                return
            thread_id, turn = asked["thread_id"], asked["turn_id"]
            answer: bool | str = text
            reason = ""
            if asked.get("kind") == "approval":
                answer, reason = read_approval(text)
            message_id = context.message.message_id if context.message is not None else text
            await service.respond(
                thread_id,
                asked["interaction_id"],
                answer,
                request_key=_key("answer", f"{task_id}/{message_id}"),
                reason=reason,
            )
        await updater.start_work()
        await self._follow(thread_id, turn, updater, AnswerArtifact(f"answer-{task_id}"))

    async def _follow(
        self, thread_id: str, turn: str, updater: TaskUpdater, answer: AnswerArtifact
    ) -> None:
        sent: dict[str, int] = {}
        async with aclosing(self._require().subscribe(thread_id)) as views:
            async for view in views:
                items = [item for item in view.items if item.turn_id == turn]
                for item in items:
                    if item.kind == "assistant" and len(item.text) > sent.get(item.id, 0):
                        await answer.delta(updater, item.text[sent.get(item.id, 0) :])
                        sent[item.id] = len(item.text)
                pending = [i for i in items if i.kind == "interaction" and i.status == "pending"]
                if pending:
                    await self._ask(view, items, pending[0], updater)
                    return
                if _ended(view, turn, items):
                    await self._end(view, items, updater, answer)
                    return
        await updater.failed(_says(updater, "the thread service shut down"))

    async def _ask(
        self, view: ThreadView, items: list[ViewItem], item: ViewItem, updater: TaskUpdater
    ) -> None:
        details: dict[str, Any] = {
            "kind": item.interaction_kind or "question",
            "interaction_id": item.interaction_id or item.id,
            "thread_id": view.thread_id,
            "turn_id": item.turn_id,
        }
        question = item.text
        if item.interaction_kind == "approval":
            index = items.index(item)
            call = items[index - 1] if index > 0 else None
            tool = call.tool_name if call is not None and call.tool_name else ""
            arguments = dict(call.tool_input or {}) if call is not None else {}
            details.update(tool=tool, input=arguments)
            question = approval_question(tool, arguments)
        await updater.requires_input(input_message(updater, question, details))

    async def _end(
        self, view: ThreadView, items: list[ViewItem], updater: TaskUpdater, answer: AnswerArtifact
    ) -> None:
        state = _ENDED.get(view.status, "failed") if view.current_turn is None else "completed"
        if state == "canceled":
            await updater.cancel()
        elif state == "failed":
            await updater.failed(_says(updater, view.error or f"the turn ended {view.status}"))
        else:
            await answer.final(updater, _last_reply(items))
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        service = self._require()
        task_id, context_id = context.task_id or "", context.context_id or ""
        thread_id = await self._thread(context_id)
        await service.cancel(thread_id, request_key=_key("cancel", task_id))
        await TaskUpdater(event_queue, task_id, context_id).cancel()


def _turns(view: ThreadView) -> set[str]:
    turns = {item.turn_id for item in view.items if item.turn_id}
    return turns | {queued.turn_id for queued in view.queue}


def _ended(view: ThreadView, turn: str, items: list[ViewItem]) -> bool:
    queued = any(q.turn_id == turn for q in view.queue)
    return bool(items) and not queued and view.current_turn != turn


def _last_reply(items: list[ViewItem]) -> str:
    """The text of the turn's last model reply (items `<turn>.<n>.<block>`)."""
    replies: dict[int, list[str]] = {}
    for item in items:
        if item.kind == "assistant":
            parts = item.id.split(".")
            reply = int(parts[-2]) if len(parts) >= 3 and parts[-2].isdigit() else 0
            replies.setdefault(reply, []).append(item.text)
    return "".join(replies[max(replies)]) if replies else ""


def _says(updater: TaskUpdater, text: str) -> Message:
    return updater.new_agent_message([Part(text=text)])
