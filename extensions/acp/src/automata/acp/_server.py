"""The ACP agent side: automata sessions behind the SDK's `AgentSideConnection`."""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Awaitable, Callable, Collection
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from acp import Agent as AcpAgentProtocol
from acp import RequestError, run_agent, stdio_streams
from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES
from acp.interfaces import Client
from acp.schema import (
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    StopReason,
)

from automata.acp._capabilities import initialize_response
from automata.acp._outbox import Outbox
from automata.acp._permissions import ClientApprover, permission_rule
from automata.acp._prompt import prompt_message
from automata.acp._sessions import DEFAULT_MAX_SESSIONS, SessionTable
from automata.acp._updates import Update, UpdateMapper
from automata.acp._wire import ScreenedWire
from automata.core import (
    Agent,
    MaxStepsError,
    Message,
    Session,
    StreamEvent,
    UsageLimitExceeded,
)
from automata.core import (
    StopReason as RunStopReason,
)

if TYPE_CHECKING:
    from automata.threads import ThreadService

__all__ = ["AcpServer", "AgentFactory", "AgentTarget", "ThreadsOpener"]

AgentFactory: TypeAlias = Callable[[], "Agent[Any] | Awaitable[Agent[Any]]"]
"""Makes the agent of one new session (sync or async, no arguments)."""

AgentTarget: TypeAlias = "Agent[Any] | AgentFactory"


def _stop_reason(reason: RunStopReason) -> StopReason:
    if reason is RunStopReason.MAX_TOKENS:
        return "max_tokens"
    if reason is RunStopReason.CONTENT_FILTER:
        return "refusal"
    return "end_turn"


def _protocol(agent: _AcpAgent) -> AcpAgentProtocol:
    # The SDK's protocol lists every optional method; the router answers the ones an
    # agent leaves out with method-not-found, which is what the capabilities promise.
    return cast(AcpAgentProtocol, agent)


ThreadsOpener: TypeAlias = "Callable[[], AbstractAsyncContextManager[ThreadService]]"
"""Opens the thread service for a connection and closes it when the connection ends
(e.g. an `asynccontextmanager` that opens a `Host` and shuts it down)."""


@dataclass(frozen=True, slots=True)
class AcpServer:
    """What to serve over ACP.

    Either `target`: an agent (shared by every session, each session a conversation of
    its own) or a factory called once per new session, with `ask_permission` choosing
    the tool calls that need the client's permission (`True`: all; a collection: those
    tools' calls; the default: none). Or `threads`: a durable thread service (opened
    for the connection) whose threads are the sessions, loadable with `session/load`;
    its own agent factory and approval gates apply, so `ask_permission` must stay
    empty. `name` is the `agentInfo` name sent on `initialize`. `max_sessions` bounds
    the sessions a connection keeps live: a new (or loaded) session past it drops the
    least recently used one without a prompt in flight, and is refused with an
    invalid-request error when every session has one. Raises `ValueError` unless
    exactly one of `target` and `threads` is given, or for `max_sessions` below 1.

    Serving reads the client's lines itself before the SDK sees them: a line that is
    not a JSON-RPC object is answered with an error and serving goes on."""

    target: AgentTarget | None = None
    ask_permission: bool | Collection[str] = ()
    name: str = "automata"
    threads: ThreadsOpener | None = None
    max_sessions: int = DEFAULT_MAX_SESSIONS

    def __post_init__(self) -> None:
        if (self.target is None) == (self.threads is None):
            raise ValueError("give AcpServer an agent (or factory) or a thread service, not both")
        if self.max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {self.max_sessions}")
        if self.threads is not None and self.ask_permission:
            raise ValueError(
                "a thread-backed server asks permission through its agents' approval gates "
                "(require_approval); leave ask_permission empty"
            )

    async def serve_stdio(self) -> None:
        """Serve on this process's stdin and stdout until the client closes them."""
        await self._serve(None, None)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve on the given streams (`writer` goes to the client) until they close."""
        await self._serve(reader, writer)

    async def _serve(
        self, reader: asyncio.StreamReader | None, writer: asyncio.StreamWriter | None
    ) -> None:
        if reader is None or writer is None:
            reader, writer = await stdio_streams(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
        wire = ScreenedWire(reader, writer)
        if self.threads is None:
            await run_agent(_protocol(_AcpAgent(self)), wire)
            return
        from automata.acp._thread_agent import ThreadsAcpAgent

        async with self.threads() as service:
            agent = ThreadsAcpAgent(service, self.name, max_sessions=self.max_sessions)
            await run_agent(cast(AcpAgentProtocol, agent), wire)


@dataclass(slots=True)
class _Prompt:
    outbox: Outbox
    mapper: UpdateMapper = field(default_factory=UpdateMapper)
    cancel_requested: bool = False
    running: bool = True
    task: asyncio.Task[StopReason] | None = None

    def on_event(self, event: StreamEvent) -> None:
        self.outbox.put(self.mapper.updates(event))

    async def on_allowed(self, call_id: str) -> None:
        self.outbox.put(self.mapper.started(call_id))


@dataclass(slots=True)
class _SessionState:
    session: Session[Any]
    approver: ClientApprover | None = None
    prompt: _Prompt | None = None

    async def flush(self) -> None:
        if self.prompt is not None:
            await self.prompt.outbox.flush()

    async def on_allowed(self, call_id: str) -> None:
        if self.prompt is not None:
            await self.prompt.on_allowed(call_id)


class _AcpAgent:
    """One connection's agent side (the SDK's `acp.Agent` protocol). Methods it does not
    define (`session/load`, `authenticate`, modes, ...) are answered by the SDK with
    method-not-found, matching the capabilities `initialize` reports."""

    def __init__(self, server: AcpServer) -> None:
        self._server = server
        self._rule = permission_rule(server.ask_permission)
        self._client: Client | None = None
        self._sessions: SessionTable[_SessionState] = SessionTable(
            server.max_sessions, busy=lambda state: state.prompt is not None
        )

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    def _conn(self) -> Client:
        if self._client is None:  # pragma: no cover - the SDK connects before any call
            raise RequestError.internal_error({"reason": "not connected"})
        return self._client

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return initialize_response(self._server.name, protocol_version, load_session=False)

    async def _agent(self) -> Agent[Any]:
        target = self._server.target
        if target is None:  # pragma: no cover - AcpServer refuses this
            raise RequestError.internal_error({"reason": "no agent to serve"})
        if isinstance(target, Agent):
            return target
        made = target()
        agent = await made if inspect.isawaitable(made) else made
        if not isinstance(agent, Agent):
            raise RequestError.internal_error(
                {"reason": f"the agent factory returned {type(agent).__name__}, not an Agent"}
            )
        return agent

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        self._sessions.make_room()
        agent = await self._agent()
        session_id = "sess_" + uuid.uuid4().hex
        state = _SessionState(session=agent.session())
        state.approver = ClientApprover(
            self._conn(),
            session_id,
            self._rule,
            inner=agent.approver,
            before_request=state.flush,
            on_allowed=state.on_allowed,
        )
        self._sessions.make_room()  # the factory may have let another session in
        self._sessions.add(session_id, state)
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        state = self._sessions.use(session_id)
        if state.prompt is not None:
            raise RequestError.invalid_request(
                {"reason": "this session is already answering a prompt"}
            )
        message = prompt_message(prompt)
        conn = self._conn()

        async def send(update: Update) -> None:
            await conn.session_update(session_id=session_id, update=update)

        current = _Prompt(outbox=Outbox(send))
        state.prompt = current
        current.task = asyncio.get_running_loop().create_task(self._run(state, current, message))
        try:
            return PromptResponse(stop_reason=await self._outcome(current))
        finally:
            if not current.task.done():  # this handler was cancelled (connection closed)
                current.task.cancel()
                await asyncio.wait([current.task])
            state.prompt = None
            self._sessions.touch(session_id)

    @staticmethod
    async def _outcome(current: _Prompt) -> StopReason:
        """The run's stop reason. A cancel that reaches the run before its first step
        cancels it before `_steps` can answer for it: that is a cancelled prompt too
        (nothing ran, the conversation is unchanged), unless this handler itself is
        being cancelled."""
        assert current.task is not None
        try:
            return await current.task
        except asyncio.CancelledError:
            handler = asyncio.current_task()
            if not current.cancel_requested or (handler is not None and handler.cancelling()):
                raise
            current.running = False
            await current.outbox.close()
            return "cancelled"

    async def _run(self, state: _SessionState, current: _Prompt, message: Message) -> StopReason:
        try:
            reason = await self._steps(state, current, message)
        finally:
            current.running = False  # a cancel from now on changes nothing
            await current.outbox.close()
        return reason

    async def _steps(self, state: _SessionState, current: _Prompt, message: Message) -> StopReason:
        try:
            async with state.session.iter(
                message, on_event=current.on_event, approver=state.approver
            ) as steps:
                async for _ in steps:
                    pass
        except asyncio.CancelledError:
            if not current.cancel_requested:
                raise
            current.outbox.put(current.mapper.unfinished())
            return "cancelled"
        except (MaxStepsError, UsageLimitExceeded):
            return "max_turn_requests"
        except Exception as exc:
            raise RequestError.internal_error({"reason": f"{type(exc).__name__}: {exc}"}) from exc
        return _stop_reason(steps.result.stop_reason)

    async def cancel(self, session_id: str, **_: Any) -> None:
        state = self._sessions.peek(session_id)
        if state is None or state.prompt is None or state.prompt.task is None:
            return
        if not state.prompt.running:
            return
        state.prompt.cancel_requested = True
        state.prompt.task.cancel()
