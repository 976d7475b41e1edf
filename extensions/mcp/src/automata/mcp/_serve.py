"""Serving automata tools as an MCP server, over stdio or streamable HTTP."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from mcp import types as mcp_types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
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

__all__ = ["serve_stdio", "serve_tools", "streamable_http_app"]


def serve_tools(tools: Iterable[Tool], *, name: str, version: str = "") -> Server[Any]:
    """An MCP server (the SDK's low-level `Server`) offering `tools`.

    Each tool is listed with its own name, description and input schema, unchanged. A
    call runs the tool's `execute` with a `ToolContext` naming the server as the agent;
    its result maps onto MCP content (text as text, inline images as images). A tool
    that raises is answered with an `isError` result carrying the message
    (`invalid args: ...` for `InvalidToolArguments`), as the agent loop would show it;
    an unknown tool name is an `isError` result too. Raises `ToolDefinitionError` for
    two tools with one name."""
    by_name: dict[str, Tool] = {}
    for item in tools:
        if item.name in by_name:
            raise ToolDefinitionError(f"two tools are named {item.name!r}")
        by_name[item.name] = item
    listing = [
        mcp_types.Tool(
            name=item.name, description=item.description, input_schema=dict(item.input_schema)
        )
        for item in by_name.values()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=listing)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        found = by_name.get(params.name)
        if found is None:
            return to_mcp_result(ToolResult.error(f"unknown tool {params.name!r}"))
        return to_mcp_result(await _run(found, params.arguments or {}, server=name))

    return Server(name, version=version, on_list_tools=list_tools, on_call_tool=call_tool)


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


async def serve_stdio(tools: Iterable[Tool], *, name: str, version: str = "") -> None:
    """Serve `tools` over this process's stdin and stdout until the client closes them."""
    server = serve_tools(tools, name=name, version=version)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def streamable_http_app(
    tools: Iterable[Tool], *, name: str, version: str = "", path: str = "/mcp"
) -> Starlette:
    """An ASGI app serving `tools` over streamable HTTP at `path` (run it with uvicorn
    or any ASGI server; its lifespan runs the SDK's session manager). Requests must
    come from local origins when served on a loopback host, as the SDK enforces."""
    server = serve_tools(tools, name=name, version=version)
    return server.streamable_http_app(streamable_http_path=path)
