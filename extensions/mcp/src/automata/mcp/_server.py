"""`MCPServer`: one connection to an MCP server, opened and closed with `async with`."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import sys
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TextIO, TypeVar

import httpx2
from mcp import ClientSession, MCPError
from mcp import types as mcp_types
from mcp.client._transport import TransportStreams
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp_types import CONNECTION_CLOSED

from automata.core import Agent, Message, Provider, Tool, ToolContext, ToolResult
from automata.mcp import _catalog
from automata.mcp._catalog import MCPPrompt, MCPResource, MCPResourceContents
from automata.mcp._connection import Callbacks, Connect, Connection, describe
from automata.mcp._elicitation import ElicitationHandler, elicitation_callback
from automata.mcp._errors import MCPConnectionError, MCPDuplicateToolWarning, MCPToolError
from automata.mcp._progress import MCPProgress, ProgressHandler, show_progress
from automata.mcp._results import from_mcp_result
from automata.mcp._sampling import sampling_callback
from automata.mcp._stdio import stdio_transport
from automata.mcp._tool import MCPTool

__all__ = ["MCPServer"]

_T = TypeVar("_T")


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
    - Over streamable HTTP, a lost connection is reconnected: the call in flight when
      it was lost fails with `MCPConnectionError` (it may have run: it is never sent
      again), and the next request opens a new session first. A request the server
      refused because it no longer knows the session (it restarted while idle) never
      ran, and is sent once more on the new session.
    - `sampling=provider` answers the server's sampling requests with that automata
      provider, `elicitation=handler` its elicitations, and `on_progress=handler`
      receives the progress it reports for tool calls; without them the client does
      not declare sampling or elicitation, and the SDK refuses those requests.
    - The connection runs on a task of its own, so a failing transport never cancels
      the code inside `async with`.
    """

    def __init__(
        self,
        connect: Connect,
        *,
        name: str | None,
        fallback: str,
        connect_timeout: float = 30.0,
        reconnect: bool = False,
        sampling: Provider | None = None,
        elicitation: ElicitationHandler | None = None,
        on_progress: ProgressHandler | None = None,
    ) -> None:
        self._connect = connect
        self._named = name is not None
        self.name = name if name is not None else fallback
        """What this server is called in error messages: the `name` given, else the name
        the server gives in its handshake, else the command or URL."""
        self._connect_timeout = connect_timeout
        self._reconnect = reconnect
        self._on_progress = on_progress
        self._callbacks = Callbacks(
            on_message=self._on_message,
            sampling=sampling_callback(sampling, self._label) if sampling is not None else None,
            elicitation=(
                elicitation_callback(elicitation, self._label, self._call_in_flight)
                if elicitation is not None
                else None
            ),
        )
        self._link: Connection | None = None
        self._entered = False
        self._closed = False
        self._reconnecting = asyncio.Lock()
        self.reconnects = 0
        """How many times the connection has been opened again after it was lost."""
        self._listed: tuple[mcp_types.Tool, ...] = ()
        self._stale = False
        self._changes = 0
        self._changed = asyncio.Event()
        self._attached: list[_Attachment] = []
        self._in_flight: list[ToolContext[Any]] = []

    def _label(self) -> str:
        return self.name

    def _call_in_flight(self) -> ToolContext[Any] | None:
        """The agent's one call to this server in flight (None: none, or several)."""
        return self._in_flight[0] if len(self._in_flight) == 1 else None

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
        sampling: Provider | None = None,
        elicitation: ElicitationHandler | None = None,
        on_progress: ProgressHandler | None = None,
    ) -> MCPServer:
        """A server run as a subprocess speaking MCP on its stdin and stdout. `env` is
        merged over the SDK's safe default environment; the server's stderr goes to
        `errlog` (default: this process's stderr). Its output is read in time linear
        in its size, however long a line (see `automata.mcp._stdio`). A server whose
        process exits stays gone (it is not started again)."""
        params = StdioServerParameters(
            command=command, args=list(args), env=dict(env) if env else None, cwd=cwd
        )

        def connect(expired: Callable[[], None]) -> AbstractAsyncContextManager[TransportStreams]:
            return stdio_transport(params, errlog if errlog is not None else sys.stderr)

        return cls(
            connect,
            name=name,
            fallback=Path(command).name,
            connect_timeout=connect_timeout,
            sampling=sampling,
            elicitation=elicitation,
            on_progress=on_progress,
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        name: str | None = None,
        connect_timeout: float = 30.0,
        reconnect: bool = True,
        sampling: Provider | None = None,
        elicitation: ElicitationHandler | None = None,
        on_progress: ProgressHandler | None = None,
    ) -> MCPServer:
        """A server at a streamable HTTP endpoint (`http://host:port/mcp`); `headers`
        go with every request (an `Authorization` header, for example). With
        `reconnect` (the default) a lost connection is opened again on the next
        request; without it the server stays gone, as a stdio server does."""

        @contextlib.asynccontextmanager
        async def connect(expired: Callable[[], None]) -> AsyncIterator[TransportStreams]:
            async def watch(response: httpx2.Response) -> None:
                # The spec's signal that the server no longer knows this session.
                if response.status_code == 404 and "mcp-session-id" in response.request.headers:
                    expired()

            timeout = httpx2.Timeout(connect_timeout, read=300.0)
            async with (
                httpx2.AsyncClient(
                    headers=dict(headers or {}),
                    timeout=timeout,
                    event_hooks={"response": [watch]},
                ) as client,
                streamable_http_client(url, http_client=client) as streams,
            ):
                yield streams

        return cls(
            connect,
            name=name,
            fallback=url,
            connect_timeout=connect_timeout,
            reconnect=reconnect,
            sampling=sampling,
            elicitation=elicitation,
            on_progress=on_progress,
        )

    # -- lifetime ----------------------------------------------------------------

    async def __aenter__(self) -> Self:
        if self._entered:
            raise MCPConnectionError(f"MCP server {self.name!r} is already open")
        self._entered = True
        await self._open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closed = True
        if self._link is not None:
            await self._link.close()

    async def _open(self) -> ClientSession:
        """A new connection, handshake done and tools listed; raises
        `MCPConnectionError` when the server cannot be reached (the old connection,
        if any, is closed first)."""
        if self._link is not None:
            await self._link.close()
        link = Connection(self._connect, self._callbacks, lambda: self.name)
        self._link = link
        session = await link.open(self._connect_timeout)
        info = link.info
        if not self._named and info is not None and info.server_info.name:
            self.name = info.server_info.name
        try:
            self._listed = self._unique(await _list_all(session))
        except BaseException as error:
            await link.close(at_once=True)
            if isinstance(error, Exception):
                raise MCPConnectionError(
                    f"could not connect to MCP server {self.name!r}: {describe(error)}"
                ) from error
            raise
        self._stale = False
        return session

    async def _session(self) -> ClientSession:
        """The live session; a streamable HTTP server whose connection was lost (or
        which forgot the session, having restarted) is connected to again first."""
        link = self._link
        if link is not None and link.alive and link.session is not None:
            return link.session
        if self._closed or link is None or not self._reconnect:
            raise self._dead_error()
        async with self._reconnecting:
            link = self._link
            if link is not None and link.alive and link.session is not None:
                return link.session
            self.reconnects += 1
            return await self._open()

    # -- tools -------------------------------------------------------------------

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self._stale = True
            if self._attached:
                asyncio.get_running_loop().create_task(self._refresh_attached())
            else:
                self._count_change()

    def _count_change(self) -> None:
        self._changes += 1
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def tools_changes(self) -> int:
        """How many `notifications/tools/list_changed` the server has sent so far (with
        agents attached, counted once they hold the new tools)."""
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
        if self._stale:
            self._stale = False
            listed = await self._request(_list_all)
            self._listed = self._unique(listed)
        else:
            await self._session()
        return [MCPTool(self, definition, prefix or "") for definition in self._listed]

    async def attach(self, agent: Agent[Any], *, prefix: str | None = None) -> list[Tool]:
        """Register this server's tools on `agent` and keep them current: after each
        `notifications/tools/list_changed` the agent's tools from this server are
        replaced by the new listing (same order, the agent's other tools untouched), so
        the agent's next run offers them; a run already going keeps the tools it
        started with. Returns the tools registered. Raises `ToolDefinitionError` when a
        name is taken by another of the agent's tools."""
        attachment = _Attachment(agent, prefix or "")
        tools = await self.tools(prefix)
        for item in tools:
            agent.add_tool(item)
        attachment.names = tuple(item.name for item in tools)
        self._attached.append(attachment)
        return tools

    async def _refresh_attached(self) -> None:
        try:
            for attachment in self._attached:
                tools = await self.tools(attachment.prefix or None)
                for name in attachment.names:
                    attachment.agent.remove_tool(name)
                for item in tools:
                    attachment.agent.add_tool(item)
                attachment.names = tuple(item.name for item in tools)
        except Exception as error:  # the server went away: the agent keeps its tools
            warnings.warn(
                f"the tools of MCP server {self.name!r} could not be listed again: "
                f"{describe(error)}",
                RuntimeWarning,
                stacklevel=1,
            )
        finally:
            self._count_change()

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

    async def call(
        self, name: str, arguments: Mapping[str, Any], *, context: ToolContext[Any] | None = None
    ) -> ToolResult:
        """Call the server's tool `name` (its own name, without a prefix); `context` is
        the agent's tool call, which progress reports name and show on: each report
        the server sends for an agent's call is a row of the call's activity (and its
        status, `progress/total`), whether or not an `on_progress` handler is given,
        and an elicitation the server sends while it is the one call in flight names
        it (`Elicitation.call`)."""
        progress = None
        if self._on_progress is not None or context is not None:
            progress = self._progress_callback(name, context)
        if context is not None:
            self._in_flight.append(context)
        try:
            raw = await self._request(
                lambda session: session.call_tool(
                    name, dict(arguments), progress_callback=progress
                ),
                what=repr(name),
            )
        finally:
            if context is not None:
                self._in_flight.remove(context)
        if not isinstance(raw, mcp_types.CallToolResult):
            raise MCPToolError(f"MCP server {self.name!r} gave {name!r} no tool result")
        return from_mcp_result(raw)

    def _progress_callback(self, name: str, context: ToolContext[Any] | None) -> ProgressFnT:
        handler = self._on_progress
        tool = context.call.name if context is not None else name
        call_id = context.call.id if context is not None else ""

        async def report(progress: float, total: float | None, message: str | None) -> None:
            if context is not None:
                show_progress(context, progress, total, message)
            if handler is None:
                return
            done = handler(MCPProgress(self.name, tool, call_id, progress, total, message))
            if inspect.isawaitable(done):
                await done

        return report

    # -- resources and prompts ---------------------------------------------------

    async def resources(self) -> list[MCPResource]:
        """The resources the server lists, in its order, across all pages. Raises
        `MCPToolError` for a server without resources."""
        return await self._request(_catalog.list_resources)

    async def read_resource(self, uri: str) -> tuple[MCPResourceContents, ...]:
        """The contents of the resource at `uri` (`MCPResourceContents.as_block()` shows
        a part to a model); an unknown URI raises `MCPToolError` with the server's
        message."""
        return await self._request(lambda session: _catalog.read_resource(session, uri))

    async def prompts(self) -> list[MCPPrompt]:
        """The prompts the server lists, in its order, across all pages."""
        return await self._request(_catalog.list_prompts)

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> tuple[Message, ...]:
        """The prompt `name` filled with `arguments`, as messages to start or extend a
        transcript; an unknown prompt or a missing argument raises `MCPToolError`."""
        return await self._request(
            lambda session: _catalog.get_prompt(session, name, arguments or {})
        )

    # -- requests ----------------------------------------------------------------

    async def _request(
        self, send: Callable[[ClientSession], Awaitable[_T]], *, what: str = "a request"
    ) -> _T:
        """Send one request on the live session (reconnecting first when allowed),
        never waiting past the connection's end; a request the server refused for a
        session it forgot is sent once more on a new one."""
        for attempt in (1, 2):
            session = await self._session()
            link = self._link
            assert link is not None
            try:
                return await self._until_gone(link, send(session))
            except MCPError as error:
                if link.expired and self._reconnect and attempt == 1 and not self._closed:
                    continue  # refused unrun: the server restarted and forgot the session
                if link.expired:
                    raise MCPConnectionError(
                        f"the connection to MCP server {self.name!r} is gone: the server "
                        "no longer knows the session (it restarted)"
                    ) from None
                if error.code == CONNECTION_CLOSED:
                    link.expired = True  # the next request reconnects (when allowed)
                    raise self._lost_error(what) from None
                raise MCPToolError(f"MCP server {self.name!r}: {error.message}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _until_gone(self, link: Connection, request: Awaitable[_T]) -> _T:
        call = asyncio.ensure_future(request)
        gone = asyncio.ensure_future(link.gone.wait())
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
        if error is None:
            return call.result()
        if isinstance(error, MCPError):
            raise error
        if link.gone.is_set():
            raise self._dead_error()
        raise MCPConnectionError(
            f"MCP server {self.name!r} failed during a request: {describe(error)}"
        ) from error

    def _lost_error(self, what: str) -> MCPConnectionError:
        again = "; the next request connects again" if self._reconnect else ""
        return MCPConnectionError(
            f"the connection to MCP server {self.name!r} is gone (lost during {what}, "
            f"which may have run on the server){again}"
        )

    def _dead_error(self) -> MCPConnectionError:
        if self._closed:
            return MCPConnectionError(f"the connection to MCP server {self.name!r} is closed")
        if self._link is None:
            return MCPConnectionError(
                f"MCP server {self.name!r} is not open; use `async with` around its use"
            )
        failure = self._link.failure
        cause = f": {describe(failure)}" if failure is not None else ""
        return MCPConnectionError(f"the connection to MCP server {self.name!r} is gone{cause}")


class _Attachment:
    """An agent holding this server's tools under `prefix`; `names` are the tools it
    holds now."""

    __slots__ = ("agent", "names", "prefix")

    def __init__(self, agent: Agent[Any], prefix: str) -> None:
        self.agent = agent
        self.prefix = prefix
        self.names: tuple[str, ...] = ()


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
