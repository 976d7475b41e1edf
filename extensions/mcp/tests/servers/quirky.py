"""A test MCP server written with the SDK's low-level `Server` that does what careless
(or just busy) servers do: it lists two tools under one name, and its `big` tool
answers with 30 MB of text. Run as a script it serves stdio; `app()` serves
streamable HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from mcp import types as mcp_types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette

EMPTY: dict[str, Any] = {"type": "object", "properties": {}}
TEXT: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}

TOOLS = [
    mcp_types.Tool(name="echo", description="Say the text back.", input_schema=TEXT),
    mcp_types.Tool(name="big", description="30 MB of text, after 0.3 s.", input_schema=EMPTY),
    mcp_types.Tool(name="echo", description="A second tool named echo.", input_schema=EMPTY),
    mcp_types.Tool(name="last", description="Listed after the duplicate.", input_schema=EMPTY),
]
BIG = "x" * 30_000_000
"""What `big` answers, 0.3 s after it is called."""


def build() -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=TOOLS)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        args = params.arguments or {}
        if params.name == "big":
            await anyio.sleep(0.3)
            return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=BIG)])
        text = str(args.get("text", params.name))
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=text)])

    return Server("quirky", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def app() -> Starlette:
    return build().streamable_http_app()


async def main() -> None:
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
