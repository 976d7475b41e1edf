"""`MCPToolServer`: automata tools, resources and prompts served over MCP, with a tool
set that may change while clients are connected (they are told it did)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import anyio
from mcp import types as mcp_types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from starlette.applications import Starlette

from automata.core import (
    InvalidToolArguments,
    Tool,
    ToolContext,
    ToolDefinitionError,
    ToolResult,
    ToolUseBlock,
)
from automata.mcp._results import to_mcp_result
from automata.mcp._served_prompts import ServedPrompts, prompt_of
from automata.mcp._served_resources import ServedResource, ServedResources, resource_of

__all__ = ["MCPToolServer"]

_Function = TypeVar("_Function", bound=Callable[..., Any])


class MCPToolServer:
    """Tools, resources and prompts to serve over MCP, to any number of clients at once.

    The tool set may change while clients are connected: `await add_tool(...)` and
    `await remove_tool(...)` send every connected client
    `notifications/tools/list_changed` (the tools capability declares
    `listChanged: true`), and the next `tools/list` gives the new set. Clients of
    the 2026-07-28 protocol, which has no standing stream, are told on the
    `subscriptions/listen` streams they open (asking for tool-list changes). Resources
    (`add_resource`, `@resource(uri)`) and prompts (`@prompt`) are declared before
    serving. Serve it with `serve_stdio()`, `streamable_http_app()`, or the SDK's
    low-level server from `sdk_server()`."""

    def __init__(self, name: str, *, version: str = "", tools: Iterable[Tool] = ()) -> None:
        """Raises `ToolDefinitionError` for two tools with one name."""
        self.name = name
        self.version = version
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self._add(item)
        self._resources = ServedResources()
        self._prompts = ServedPrompts()
        self._clients: set[ServerSession] = set()
        self._listeners = InMemorySubscriptionBus()

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The tools served now, in the order they were added."""
        return tuple(self._tools.values())

    @property
    def clients(self) -> int:
        """How many clients are connected now, having finished their handshake (those
        told of tool changes): a client's session is let go when its connection closes,
        so the count, and what the server holds, never grow with clients gone."""
        return len(self._clients)

    def _add(self, item: Tool) -> None:
        if item.name in self._tools:
            raise ToolDefinitionError(f"two tools are named {item.name!r}")
        self._tools = {**self._tools, item.name: item}

    async def add_tool(self, item: Tool) -> None:
        """Serve `item` too, and tell every connected client the tool list changed.
        Raises `ToolDefinitionError` when a tool of that name is served already."""
        self._add(item)
        await self._tools_changed()

    async def remove_tool(self, name: str) -> Tool:
        """Stop serving the tool `name` (calls to it from then on are `isError`
        results), tell every connected client, and return the tool. Raises
        `ToolDefinitionError` when no tool of that name is served."""
        if name not in self._tools:
            raise ToolDefinitionError(f"no tool named {name!r} is served")
        remaining = dict(self._tools)
        removed = remaining.pop(name)
        self._tools = remaining
        await self._tools_changed()
        return removed

    async def _tools_changed(self) -> None:
        for client in tuple(self._clients):
            await client.send_tool_list_changed()
        await self._listeners.publish(ToolsListChanged())

    def add_resource(
        self,
        uri: str,
        content: str | bytes,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
    ) -> None:
        """Serve fixed `content` at `uri`: `str` as text, `bytes` as a blob (MIME type
        `application/octet-stream` unless given). Raises `ToolDefinitionError` for a
        URI served already."""
        self._resources.add(
            ServedResource(
                uri=uri,
                name=name or uri,
                description=description,
                mime_type=mime_type,
                content=content,
            )
        )

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
    ) -> Callable[[_Function], _Function]:
        """Decorate a function that gives a resource's contents (`str` or `bytes`, sync
        or async) when it is read. A `uri` with `{variables}` is a template, listed by
        `resources/templates/list`: each variable matches one path segment and is
        passed as the function's parameter of that name, converted to its annotated
        type. Raises `ToolDefinitionError` when the variables are not exactly the
        parameters. The function is returned unchanged."""

        def register(function: _Function) -> _Function:
            self._resources.add(
                resource_of(uri, function, name=name, description=description, mime_type=mime_type)
            )
            return function

        return register

    def prompt(
        self, *, name: str | None = None, description: str | None = None
    ) -> Callable[[_Function], _Function]:
        """Decorate a function that fills a prompt: its parameters are the prompt's
        arguments (described as `@tool` describes a tool's; one without a default is
        required; values arrive as strings and are converted to the annotated types).
        It returns a `str` (one user message), a `Message`, or a list of them. The
        name defaults to the function's, the description to its docstring's summary.
        The function is returned unchanged."""

        def register(function: _Function) -> _Function:
            self._prompts.add(prompt_of(function, name=name, description=description))
            return function

        return register

    def sdk_server(self) -> Server[Any]:
        """The SDK's low-level `Server` serving this set: each client that finishes its
        handshake on it is told of later tool changes."""
        return _build(
            self.name,
            self.version,
            tools=lambda: self._tools,
            resources=self._resources,
            prompts=self._prompts,
            clients=self._clients,
            listen=ListenHandler(self._listeners),
        )

    async def serve_stdio(self) -> None:
        """Serve over this process's stdin and stdout until the client closes them."""
        server = self.sdk_server()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    def streamable_http_app(self, *, path: str = "/mcp") -> Starlette:
        """An ASGI app serving over streamable HTTP at `path` (run it with uvicorn or
        any ASGI server; its lifespan runs the SDK's session manager). Requests must
        come from local origins when served on a loopback host, as the SDK enforces."""
        return self.sdk_server().streamable_http_app(streamable_http_path=path)


class _ListChangedServer(Server[Any]):
    """The SDK's server, declaring `listChanged` for tools however it is run (the
    streamable HTTP manager builds its options with no arguments)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


def _build(
    name: str,
    version: str,
    *,
    tools: Callable[[], dict[str, Tool]],
    resources: ServedResources,
    prompts: ServedPrompts,
    clients: set[ServerSession],
    listen: ListenHandler,
) -> Server[Any]:
    """The SDK server answering from the registries as they are at each request."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(
            tools=[
                mcp_types.Tool(
                    name=item.name,
                    description=item.description,
                    input_schema=dict(item.input_schema),
                )
                for item in tools().values()
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        found = tools().get(params.name)
        if found is None:
            return to_mcp_result(ToolResult.error(f"unknown tool {params.name!r}"))
        return to_mcp_result(await _run(found, params.arguments or {}, server=name))

    async def list_resources(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        return resources.listing()

    async def list_templates(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourceTemplatesResult:
        return resources.templates()

    async def read_resource(
        ctx: ServerRequestContext[Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        return await resources.read(str(params.uri))

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListPromptsResult:
        return prompts.listing()

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: mcp_types.GetPromptRequestParams
    ) -> mcp_types.GetPromptResult:
        return await prompts.get(params.name, params.arguments or {})

    async def initialized(
        ctx: ServerRequestContext[Any], params: mcp_types.NotificationParams
    ) -> None:
        # Held while the connection lasts: the SDK cancels a connection's handlers
        # when it closes, which lets go of the session, so a long-lived server holds
        # only the clients connected now.
        session = ctx.session
        clients.add(session)
        try:
            await anyio.sleep_forever()
        finally:
            clients.discard(session)

    has_resources, has_prompts = bool(resources), bool(prompts)
    server = _ListChangedServer(
        name,
        version=version,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources if has_resources else None,
        on_list_resource_templates=list_templates if has_resources else None,
        on_read_resource=read_resource if has_resources else None,
        on_list_prompts=list_prompts if has_prompts else None,
        on_get_prompt=get_prompt if has_prompts else None,
        on_subscriptions_listen=listen,
    )
    server.add_notification_handler(
        "notifications/initialized", mcp_types.NotificationParams, initialized
    )
    return server


async def _run(found: Tool, arguments: dict[str, Any], *, server: str) -> ToolResult:
    call = ToolUseBlock(id=f"mcp_{uuid.uuid4().hex}", name=found.name, input=arguments)
    context: ToolContext[None] = ToolContext(
        call=call, agent=server, invocation_id=uuid.uuid4().hex
    )
    try:
        value = await found.execute(arguments, context)
    except InvalidToolArguments as error:
        return ToolResult.error(f"invalid args: {error}")
    except Exception as error:
        return ToolResult.error(str(error) or type(error).__name__)
    return ToolResult.text(value) if isinstance(value, str) else value
