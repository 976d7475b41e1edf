"""A test MCP server written with the SDK's low-level `Server`: one tool per behaviour
the client must handle. Run as a script it serves stdio; `app()` serves streamable HTTP."""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from typing import Any

import anyio
import uvicorn
from mcp import MCPError
from mcp import types as mcp_types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp_types import INVALID_PARAMS
from starlette.applications import Starlette

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)

ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "What to say back", "maxLength": 200},
        "times": {"type": "integer", "minimum": 1, "default": 1},
    },
    "required": ["text"],
    "additionalProperties": False,
}
EMPTY: dict[str, Any] = {"type": "object", "properties": {}}


def _tool(name: str, description: str, schema: dict[str, Any] = EMPTY) -> mcp_types.Tool:
    return mcp_types.Tool(name=name, description=description, input_schema=schema)


BASE_TOOLS = [
    _tool("echo", "Say the text back, `times` times.", ECHO_SCHEMA),
    _tool("picture", "A tiny PNG with a caption."),
    _tool("document", "An embedded text resource, a binary one, and a link."),
    _tool("fail", "Always fails, as a tool result (isError)."),
    _tool("broken", "Always fails, as a protocol error."),
    _tool(
        "sleep",
        "Sleep for `seconds`.",
        {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]},
    ),
    _tool(
        "meet",
        "Wait (up to 5 s) until `parties` calls are inside at once: 'met', else 'alone'.",
        {"type": "object", "properties": {"parties": {"type": "integer"}}, "required": ["parties"]},
    ),
    _tool("pid", "The server process id."),
    _tool("grow", "Add the tool `extra` and tell the client the list changed."),
]
EXTRA = _tool("extra", "Appears after `grow`.")


def _text(text: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=text)])


def build() -> Server[Any]:
    tools = list(BASE_TOOLS)
    waiting: list[anyio.Event] = []  # the `meet` calls inside, not yet met

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=list(tools))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        args = params.arguments or {}
        if params.name == "echo":
            return _text(" ".join([str(args["text"])] * int(args.get("times", 1))))
        if params.name == "picture":
            data = base64.b64encode(PNG).decode("ascii")
            return mcp_types.CallToolResult(
                content=[
                    mcp_types.TextContent(text="a pixel"),
                    mcp_types.ImageContent(data=data, mime_type="image/png"),
                ]
            )
        if params.name == "document":
            blob = base64.b64encode(b"%PDF-1.4 four").decode("ascii")
            return mcp_types.CallToolResult(
                content=[
                    mcp_types.EmbeddedResource(
                        resource=mcp_types.TextResourceContents(
                            uri="file:///notes.txt", mime_type="text/plain", text="line one"
                        )
                    ),
                    mcp_types.EmbeddedResource(
                        resource=mcp_types.BlobResourceContents(
                            uri="file:///paper.pdf", mime_type="application/pdf", blob=blob
                        )
                    ),
                    mcp_types.ResourceLink(
                        uri="file:///big.csv", name="big.csv", mime_type="text/csv"
                    ),
                ]
            )
        if params.name == "fail":
            return mcp_types.CallToolResult(
                content=[mcp_types.TextContent(text="the disk is full")], is_error=True
            )
        if params.name == "broken":
            raise MCPError(code=INVALID_PARAMS, message="broken on purpose")
        if params.name == "sleep":
            await anyio.sleep(float(args["seconds"]))
            return _text("awake")
        if params.name == "meet":
            arrived = anyio.Event()
            waiting.append(arrived)
            if len(waiting) >= int(args["parties"]):
                for party in waiting:
                    party.set()
                waiting.clear()
            with anyio.move_on_after(5):
                await arrived.wait()
            if not arrived.is_set():
                waiting.remove(arrived)
            return _text("met" if arrived.is_set() else "alone")
        if params.name == "pid":
            return _text(str(os.getpid()))
        if params.name == "grow":
            if EXTRA not in tools:
                tools.append(EXTRA)
            await ctx.session.send_tool_list_changed()
            return _text("grown")
        if params.name == "extra":
            return _text("extra!")
        raise MCPError(code=INVALID_PARAMS, message=f"unknown tool {params.name}")

    return Server("toolbox", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)


def app() -> Starlette:
    return build().streamable_http_app()


async def main() -> None:
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:  # streamable HTTP on the loopback port given
        uvicorn.run(app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        asyncio.run(main())
