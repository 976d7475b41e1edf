"""`MCPServer`: one connection to an MCP server, opened and closed with `async with`."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TextIO

import httpx2
from mcp import ClientSession, MCPError
from mcp import types as mcp_types
from mcp.client._transport import TransportStreams
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED

from automata.core import Tool, ToolResult
from automata.mcp._errors import MCPConnectionError, MCPDuplicateToolWarning, MCPToolError
from automata.mcp._results import from_mcp_result
from automata.mcp._stdio import stdio_transport
from automata.mcp._tool import MCPTool

__all__ = ["MCPServer"]

Connect = Callable[[], AbstractAsyncContextManager[TransportStreams]]


class MCPServer:
    """A client connection to one MCP server, whose tools become automata tools.

    Build it with `MCPServer.stdio(...)` (a subprocess) or `MCPServer.http(...)` (a
    streamable HTTP endpoint); `async with server:` starts the server (or connects),
    runs the MCP handshake and lists the tools, and leaving the block closes the session
    (and stops the subprocess). Guarantees:

    - Entering fails with `MCPConnectionError` when the server cannot be started or
      reached, or does not finish the handshake within `connect_timeout` seconds.
    - `await server.tools(prefix=...)` returns the server's current tools, one per
      name (of tools listed under one name the first is kept, with an
      `MCPDuplicateToolWarning`); after the server sends
      `notifications/tools/list_changed`, the next call lists them again.
    - A tool call on a dead or closed connection raises `MCPConnectionError` at once
      (never waits for a reply that cannot come); a protocol error from the server
      raises `MCPToolError`. Both reach the model as error results.
    - The connection runs on a task of its own, so a failing transport never cancels
      the code inside `async with`.
    """

    def __init__(
        self, connect: Connect, *, name: str | None, fallback: str, connect_timeout: float = 30.0
    ) -> None:
        self._connect = connect
        self._named = name is not None
        self.name = name if name is not None else fallback
        """What this server is called in error messages: the `name` given, else the name
        the server gives in its handshake, else the command or URL."""
        self._connect_timeout = connect_timeout
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()
        self._gone = asyncio.Event()
        self._failure: BaseException | None = None
        self._listed: tuple[mcp_types.Tool, ...] = ()
        self._stale = False
        self._changes = 0
        self._changed = asyncio.Event()

    # -- construction ------------------------------------------------------------

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        name: str | None = None,
        connect_timeout: float = 30.0,
        errlog: TextIO | None = None,
    ) -> MCPServer:
        """A server run as a subprocess speaking MCP on its stdin and stdout. `env` is
        merged over the SDK's safe default environment; the server's stderr goes to
        `errlog` (default: this process's stderr). Its output is read in time linear
        in its size, however long a line (see `automata.mcp._stdio`)."""
        params = StdioServerParameters(
            command=command, args=list(args), env=dict(env) if env else None, cwd=cwd
        )

        def connect() -> AbstractAsyncContextManager[TransportStreams]:
            return stdio_transport(params, errlog if errlog is not None else sys.stderr)

        return cls(connect, name=name, fallback=Path(command).name, connect_timeout=connect_timeout)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        name: str | None = None,
        connect_timeout: float = 30.0,
    ) -> MCPServer:
        """A server at a streamable HTTP endpoint (`http://host:port/mcp`); `headers`
        go with every request (an `Authorization` header, for example)."""

        @contextlib.asynccontextmanager
        async def connect() -> Any:
            timeout = httpx2.Timeout(connect_timeout, read=300.0)
            async with (
                httpx2.AsyncClient(headers=dict(headers or {}), timeout=timeout) as client,
                streamable_http_client(url, http_client=client) as streams,
            ):
                yield streams

        return cls(connect, name=name, fallback=url, connect_timeout=connect_timeout)

    # -- lifetime ----------------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._task is not None:
            raise MCPConnectionError(f"MCP server {self.name!r} is already open")
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._run(ready), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self._connect_timeout)
        except TimeoutError:
            await self._stop(at_once=True)
            raise MCPConnectionError(
                f"MCP server {self.name!r} did not finish the handshake "
                f"within {self._connect_timeout:g}s"
            ) from None
        except BaseException:
            await self._stop(at_once=True)
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._stop()

    async def _stop(self, *, at_once: bool = False) -> None:
        """Close the session and wait for the connection's task (the SDK stops a stdio
        server by closing its stdin, then terminating it); `at_once` cancels the task
        instead, for a server that never finished its handshake."""
        self._closing.set()
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

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            async with (
                self._connect() as (read, write),
                ClientSession(read, write, message_handler=self._on_message) as session,
            ):
                info = await session.initialize()
                if not self._named and info.server_info.name:
                    self.name = info.server_info.name
                self._listed = self._unique(await _list_all(session))
                self._session = session
                ready.set_result(None)
                await self._closing.wait()
        except BaseException as error:
            self._failure = error
            if isinstance(error, asyncio.CancelledError):
                ready.cancel()
            elif not ready.done():
                ready.set_exception(
                    MCPConnectionError(
                        f"could not connect to MCP server {self.name!r}: {_describe(error)}"
                    )
                )
        finally:
            self._session = None
            self._gone.set()

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._stale = True
            self._changes += 1
            self._changed.set()
            self._changed = asyncio.Event()
        elif isinstance(message, Exception):
            self._failure = message

    # -- tools -------------------------------------------------------------------

    @property
    def tools_changes(self) -> int:
        """How many `notifications/tools/list_changed` the server has sent so far."""
        return self._changes

    async def wait_for_tools_change(self, seen: int = 0) -> int:
        """Wait until the server has sent more than `seen` tool-list changes; returns how
        many it has sent (`tools_changes`)."""
        while self._changes <= seen:
            await self._changed.wait()
        return self._changes

    async def tools(self, prefix: str | None = None) -> list[Tool]:
        """The server's tools as automata tools, in the server's order. Each keeps the
        server's description and input schema as given; its name is the server's, or
        `prefix + name` with a prefix. Lists the tools again first when the server has
        said they changed. Raises `MCPConnectionError` outside `async with`."""
        session = self._live_session()
        if self._stale:
            self._stale = False
            try:
                self._listed = self._unique(await _list_all(session))
            except MCPError as error:
                raise self._translate(error) from None
        return [MCPTool(self, definition, prefix or "") for definition in self._listed]

    def _unique(self, listed: tuple[mcp_types.Tool, ...]) -> tuple[mcp_types.Tool, ...]:
        """The first tool of each name, warning once per listing about the others."""
        kept: dict[str, mcp_types.Tool] = {}
        repeated: dict[str, int] = {}
        for definition in listed:
            if definition.name in kept:
                repeated[definition.name] = repeated.get(definition.name, 1) + 1
            else:
                kept[definition.name] = definition
        if repeated:
            names = ", ".join(f"{name!r} ({count} times)" for name, count in repeated.items())
            warnings.warn(
                f"MCP server {self.name!r} lists more than one tool named {names}; "
                "the first of each is kept",
                MCPDuplicateToolWarning,
                stacklevel=2,
            )
        return tuple(kept.values())

    async def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Call the server's tool `name` (its own name, without a prefix)."""
        session = self._live_session()
        call = asyncio.ensure_future(session.call_tool(name, dict(arguments)))
        gone = asyncio.ensure_future(self._gone.wait())
        try:
            await asyncio.wait({call, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not call.done():
                call.cancel()
                with contextlib.suppress(BaseException):
                    await call
        if not call.done() or call.cancelled():
            raise self._dead_error()
        error = call.exception()
        if isinstance(error, MCPError):
            raise self._translate(error) from None
        if error is not None:
            if self._gone.is_set():
                raise self._dead_error()
            raise MCPConnectionError(
                f"MCP server {self.name!r} failed during {name!r}: {_describe(error)}"
            ) from error
        result = call.result()
        if not isinstance(result, mcp_types.CallToolResult):
            raise MCPToolError(f"MCP server {self.name!r} gave {name!r} no tool result")
        return from_mcp_result(result)

    def _live_session(self) -> ClientSession:
        if self._session is None or self._gone.is_set():
            raise self._dead_error()
        return self._session

    def _dead_error(self) -> MCPConnectionError:
        if self._closing.is_set():
            return MCPConnectionError(f"the connection to MCP server {self.name!r} is closed")
        if self._task is None:
            return MCPConnectionError(
                f"MCP server {self.name!r} is not open; use `async with` around its use"
            )
        cause = f": {_describe(self._failure)}" if self._failure is not None else ""
        return MCPConnectionError(f"the connection to MCP server {self.name!r} is gone{cause}")

    def _translate(self, error: MCPError) -> MCPConnectionError | MCPToolError:
        if error.code == CONNECTION_CLOSED:
            return MCPConnectionError(
                f"the connection to MCP server {self.name!r} is gone (it closed)"
            )
        return MCPToolError(f"MCP server {self.name!r}: {error.message}")


async def _list_all(session: ClientSession) -> tuple[mcp_types.Tool, ...]:
    listed: list[mcp_types.Tool] = []
    cursor: str | None = None
    while True:
        params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listed.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tuple(listed)


def _describe(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in error.exceptions)
    text = str(error) or type(error).__name__
    return f"{type(error).__name__}: {text}" if str(error) else text
