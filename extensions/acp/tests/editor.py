"""An editor for the tests: the ACP SDK's own client side, driving `automata-acp` in a
subprocess and recording what the agent sends."""

from __future__ import annotations

import asyncio
import os
import sys
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

HERE = Path(__file__).resolve().parent
CLI = Path(sys.executable).with_name("automata-acp")
HOLD = "hold"


@dataclass
class PermissionAsked:
    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]


@dataclass
class Editor:
    """Records every `session/update` and answers permission requests with the option
    ids queued in `answers` (an empty queue answers `cancelled`). The answer `HOLD`
    leaves the request open until `release()` answers it `cancelled`, as an editor does
    for the requests of a prompt it cancels. `received` holds every JSON-RPC message
    the agent sent, as the SDK read it (answers to requests the SDK did not make
    included); `write_raw` puts bytes on the agent's stdin, beside the SDK's own."""

    updates: list[tuple[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    asked: list[PermissionAsked] = field(default_factory=list)
    answers: deque[str] = field(default_factory=deque)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _held: asyncio.Event = field(default_factory=asyncio.Event)
    _stdin: asyncio.StreamWriter | None = None

    def release(self) -> None:
        self._held.set()

    def observe(self, event: StreamEvent) -> None:
        if event.direction is StreamDirection.INCOMING:
            self.received.append(event.message)
            self._changed.set()

    async def write_raw(self, data: bytes) -> None:
        """Write `data` to the agent's stdin in one write."""
        assert self._stdin is not None, "not serving"
        self._stdin.write(data)
        await self._stdin.drain()

    async def answer_to(self, request_id: object) -> dict[str, Any]:
        """The agent's answer (result or error) to the request with this id."""
        answers: list[dict[str, Any]] = []

        def answered() -> bool:
            answers[:] = [
                m for m in self.received if m.get("id") == request_id and "method" not in m
            ]
            return bool(answers)

        await self.wait_until(answered)
        return answers[0]

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))
        self._changed.set()

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **_: Any,
    ) -> RequestPermissionResponse:
        self.asked.append(PermissionAsked(session_id, tool_call, options))
        self._changed.set()
        if not self.answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        choice = self.answers.popleft()
        if choice == HOLD:
            await self._held.wait()
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice)
        )

    async def wait_until(self, condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(10):
            while not condition():
                self._changed.clear()
                await self._changed.wait()

    def kinds(self, since: int = 0) -> list[str]:
        """The `sessionUpdate` discriminators received, in order."""
        return [update.session_update for _, update in self.updates[since:]]

    def started_calls(self) -> list[str]:
        """The ids of the tool calls announced so far, in order."""
        return [
            update.tool_call_id for _, update in self.updates if isinstance(update, ToolCallStart)
        ]

    def tool_statuses(self, call_id: str) -> list[str | None]:
        return [
            update.status
            for _, update in self.updates
            if isinstance(update, ToolCallStart | ToolCallProgress)
            and update.tool_call_id == call_id
        ]

    def text(self, kind: str = "agent_message_chunk", since: int = 0) -> str:
        return "".join(
            update.content.text
            for _, update in self.updates[since:]
            if update.session_update == kind
        )


@asynccontextmanager
async def serving(
    *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[tuple[ClientSideConnection, Editor]]:
    """`automata-acp *args` in a subprocess (cwd: this folder, `env` added to this
    process's environment), connected to an `Editor`, initialized."""
    editor = Editor()
    # The SDK's Client protocol lists every client method; the editor implements the two
    # this server calls, and the SDK answers the rest with method-not-found.
    client = cast(Client, editor)
    spawned = spawn_agent_process(
        client,
        str(CLI),
        *args,
        cwd=HERE,
        env={**os.environ, **(env or {})},
        observers=[editor.observe],
    )
    async with spawned as (conn, process):
        editor._stdin = process.stdin
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        yield conn, editor
