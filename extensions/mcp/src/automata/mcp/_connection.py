"""`Connection`: one MCP session on a task of its own, from handshake to close.

An `MCPServer` holds one at a time; reconnecting to a streamable HTTP server that
restarted replaces it with a fresh one (the old session cannot be resumed: the server
forgot it)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from mcp import ClientSession
from mcp import types as mcp_types
from mcp.client._transport import TransportStreams
from mcp.client.session import ElicitationFnT, IncomingMessage, SamplingFnT

from automata.mcp._errors import MCPConnectionError

__all__ = ["Callbacks", "Connect", "Connection", "describe"]

Connect = Callable[[Callable[[], None]], AbstractAsyncContextManager[TransportStreams]]
"""Opens a transport; the argument is called when the server says it no longer knows
the session (HTTP 404 to a request carrying the session id)."""


@dataclass(frozen=True, slots=True)
class Callbacks:
    """What a session answers and reports: server requests it can answer (None for
    those the client does not offer, which the SDK then refuses and does not declare),
    and the notifications it receives."""

    on_message: Callable[[IncomingMessage], Awaitable[None]]
    sampling: SamplingFnT | None = None
    elicitation: ElicitationFnT | None = None


class Connection:
    """One session with a server: `open` runs the transport and the handshake on a task
    of its own (so a failing transport never cancels the caller), `close` ends it.
    `gone` is set once the session has ended for any reason; `expired` once the
    server said it no longer knows the session."""

    def __init__(self, connect: Connect, callbacks: Callbacks, label: Callable[[], str]) -> None:
        self._connect = connect
        self._callbacks = callbacks
        self._label = label
        self.session: ClientSession | None = None
        self.info: mcp_types.InitializeResult | None = None
        self.failure: BaseException | None = None
        self.expired = False
        self.closing = asyncio.Event()
        self.gone = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        """Whether calls may use the session: open, not ended and not expired."""
        return self.session is not None and not self.gone.is_set() and not self.expired

    async def open(self, within: float) -> ClientSession:
        """Start the transport and finish the handshake within `within` seconds, or
        raise `MCPConnectionError` (after stopping whatever was started)."""
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready), name=f"mcp:{self._label()}")
        try:
            return await asyncio.wait_for(asyncio.shield(ready), within)
        except TimeoutError:
            await self.close(at_once=True)
            raise MCPConnectionError(
                f"MCP server {self._label()!r} did not finish the handshake within {within:g}s"
            ) from None
        except BaseException:
            await self.close(at_once=True)
            raise

    async def close(self, *, at_once: bool = False) -> None:
        """End the session and wait (at most 5 s) for its task; `at_once` cancels the
        task instead, for a server that never finished its handshake."""
        self.closing.set()
        task = self._task
        if task is None:
            return
        if at_once:
            task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), 5.0)
        except TimeoutError:
            task.cancel()
            await asyncio.wait({task})

    def _expire(self) -> None:
        self.expired = True

    async def _run(self, ready: asyncio.Future[ClientSession]) -> None:
        callbacks = self._callbacks
        try:
            async with (
                self._connect(self._expire) as (read, write),
                ClientSession(
                    read,
                    write,
                    message_handler=self._on_message,
                    sampling_callback=callbacks.sampling,
                    elicitation_callback=callbacks.elicitation,
                ) as session,
            ):
                self.info = await session.initialize()
                self.session = session
                ready.set_result(session)
                await self.closing.wait()
        except BaseException as error:
            self.failure = error
            if isinstance(error, asyncio.CancelledError):
                ready.cancel()
            elif not ready.done():
                ready.set_exception(
                    MCPConnectionError(
                        f"could not connect to MCP server {self._label()!r}: {describe(error)}"
                    )
                )
        finally:
            self.session = None
            self.gone.set()

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            self.failure = message
        await self._callbacks.on_message(message)


def describe(error: BaseException | Any) -> str:
    """An error as one line: its type and message, the members of a group joined."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(e) for e in error.exceptions)
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if str(error) else text
