"""Serving a fixed list of automata tools as an MCP server, over stdio or streamable
HTTP (an `MCPToolServer` holding them; use one directly for a tool set that changes,
resources and prompts)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp.server import Server
from starlette.applications import Starlette

from automata.core import Tool
from automata.mcp._tool_server import MCPToolServer

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
    return MCPToolServer(name, version=version, tools=tools).sdk_server()


async def serve_stdio(tools: Iterable[Tool], *, name: str, version: str = "") -> None:
    """Serve `tools` over this process's stdin and stdout until the client closes them."""
    await MCPToolServer(name, version=version, tools=tools).serve_stdio()


def streamable_http_app(
    tools: Iterable[Tool], *, name: str, version: str = "", path: str = "/mcp"
) -> Starlette:
    """An ASGI app serving `tools` over streamable HTTP at `path` (run it with uvicorn
    or any ASGI server; its lifespan runs the SDK's session manager). Requests must
    come from local origins when served on a loopback host, as the SDK enforces."""
    return MCPToolServer(name, version=version, tools=tools).streamable_http_app(path=path)
