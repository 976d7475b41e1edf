"""The ACP agent side over a durable thread service: a session is a thread."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    StopReason,
    ToolCallUpdate,
)

from automata.acp._capabilities import initialize_response
from automata.acp._permissions import ALLOW_ALWAYS, ALLOW_ONCE, OPTIONS
from automata.acp._prompt import prompt_message
from automata.acp._sessions import DEFAULT_MAX_SESSIONS, SessionTable
from automata.acp._view_updates import ViewDiffer
from automata.core import AutomataError

if TYPE_CHECKING:
    from automata.threads import ThreadService, ThreadView, ViewItem

__all__ = ["ThreadsAcpAgent"]

_ACTIVE = ("running", "waiting")


def _key() -> str:
    return "acp-" + uuid.uuid4().hex


@dataclass(slots=True)
class _ThreadSession:
    always: set[str] = field(default_factory=set)
    task: asyncio.Task[StopReason] | None = None
    cancel_requested: bool = False
    sent: bool = False
    """Whether the running prompt's `send` has returned (a cancel before it ends the
    prompt before the message is sent; one after it is the thread's `cancel`)."""


class ThreadsAcpAgent:
    """One connection's agent side over `service`: `session/new` creates a thread,
    `session/load` replays one, a prompt is a `send` followed until its turn ends, and
    `session/cancel` is the service's `cancel`. Permission requests come from the
    threads' own approval gates (`require_approval`): each pending approval is put to
    the client, and the answer is the thread's `respond`. At most `max_sessions`
    sessions are live (see `SessionTable`); a dropped one is still a thread, loadable
    again with `session/load`."""

    def __init__(
        self, service: ThreadService, name: str, *, max_sessions: int = DEFAULT_MAX_SESSIONS
    ) -> None:
        self._service = service
        self._name = name
        self._client: Client | None = None
        self._sessions: SessionTable[_ThreadSession] = SessionTable(
            max_sessions, busy=lambda session: session.task is not None
        )

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    def _conn(self) -> Client:
        if self._client is None:  # pragma: no cover - the SDK connects before any call
            raise RequestError.internal_error({"reason": "not connected"})
        return self._client

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return initialize_response(self._name, protocol_version, load_session=True)

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        self._sessions.make_room()
        view = await self._service.create(request_key=_key())
        self._sessions.make_room()
        self._sessions.add(view.thread_id, _ThreadSession())
        return NewSessionResponse(session_id=view.thread_id)

    async def load_session(self, cwd: str, session_id: str, **_: Any) -> LoadSessionResponse:
        try:
            view = await self._service.view(session_id)
        except AutomataError as exc:
            raise RequestError.resource_not_found(session_id) from exc
        if session_id not in self._sessions:
            self._sessions.make_room()
        conn = self._conn()
        for update in ViewDiffer(users=True).updates(view):
            await conn.session_update(session_id=session_id, update=update)
        if session_id in self._sessions:
            self._sessions.touch(session_id)
        else:
            self._sessions.make_room()
            self._sessions.add(session_id, _ThreadSession())
        return LoadSessionResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._sessions.use(session_id)
        if session.task is not None:
            raise RequestError.invalid_request(
                {"reason": "this session is already answering a prompt"}
            )
        message = prompt_message(prompt)
        session.cancel_requested = False
        session.sent = False
        session.task = asyncio.get_running_loop().create_task(
            self._follow(session_id, session, message)
        )
        try:
            return PromptResponse(stop_reason=await session.task)
        finally:
            if not session.task.done():
                session.task.cancel()
                await asyncio.wait([session.task])
            session.task = None
            self._sessions.touch(session_id)

    async def _follow(self, thread_id: str, session: _ThreadSession, message: Any) -> StopReason:
        conn = self._conn()
        differ = ViewDiffer(users=False)
        asked: set[str] = set()
        async with aclosing(self._service.subscribe(thread_id)) as views:
            first = True
            turn: str | None = None
            async for view in views:
                if first:
                    if session.cancel_requested:
                        return "cancelled"
                    differ.prime(view)
                    sent = await self._service.send(thread_id, message, request_key=_key())
                    turn = sent.items[-1].turn_id if sent.items else None
                    first = False
                    view = sent
                    session.sent = True
                    if session.cancel_requested:
                        await self._service.cancel(thread_id, request_key=_key())
                for update in differ.updates(view):
                    await conn.session_update(session_id=thread_id, update=update)
                await self._answer_approvals(thread_id, session, view, asked)
                if view.status not in _ACTIVE and turn is not None and view.current_turn != turn:
                    return self._stop_reason(session, view)
        raise RequestError.internal_error({"reason": "the thread service shut down"})

    def _stop_reason(self, session: _ThreadSession, view: ThreadView) -> StopReason:
        if view.status == "cancelled" or session.cancel_requested:
            return "cancelled"
        if view.status == "done":
            return "end_turn"
        raise RequestError.internal_error(
            {"reason": f"the turn ended {view.status}: {view.error or ''}".strip()}
        )

    async def _answer_approvals(
        self, thread_id: str, session: _ThreadSession, view: ThreadView, asked: set[str]
    ) -> None:
        items = list(view.items)
        for index, item in enumerate(items):
            if item.kind != "interaction" or item.status != "pending" or item.id in asked:
                continue
            asked.add(item.id)
            call = items[index - 1] if index > 0 else None
            answer: bool | str
            if item.interaction_kind != "approval":
                answer = "(the editor cannot answer questions)"
            else:
                answer = await self._permission(thread_id, session, call)
            await self._service.respond(
                thread_id,
                item.interaction_id or item.id,
                answer,
                request_key=_key(),
                reason="" if answer is not False else "rejected by the user",
            )

    async def _permission(
        self, thread_id: str, session: _ThreadSession, call: ViewItem | None
    ) -> bool:
        name = call.tool_name if call is not None and call.tool_name else ""
        if name in session.always:
            return True
        call_id = (call.call_id or call.id) if call is not None else _key()
        response = await self._conn().request_permission(
            session_id=thread_id,
            tool_call=ToolCallUpdate(
                tool_call_id=call_id,
                title=name,
                kind="other",
                status="pending",
                raw_input=dict(call.tool_input or {}) if call is not None else None,
            ),
            options=list(OPTIONS),
        )
        option = getattr(response.outcome, "option_id", None)
        if option == ALLOW_ALWAYS:
            session.always.add(name)
        return option in (ALLOW_ONCE, ALLOW_ALWAYS)

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self._sessions.peek(session_id)
        if session is None or session.task is None:
            return
        session.cancel_requested = True
        if session.sent:
            await self._service.cancel(session_id, request_key=_key())
