"""A test MCP server (the SDK's low-level `Server`, stdio) that uses what servers ask of
clients: sampling, elicitation and progress in its tools, and resources and prompts.
With `ASKING_CALLS` set, each tool call's name is appended to that file."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import warnings
from typing import Any

from mcp import MCPError
from mcp import types as mcp_types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp_types import INVALID_PARAMS

PIXEL = b"\x89PNG\r\n\x1a\npixel"
EMPTY: dict[str, Any] = {"type": "object", "properties": {}}
TOOLS = [
    mcp_types.Tool(name="summarize", description="Ask the client's model.", input_schema=EMPTY),
    mcp_types.Tool(name="confirm", description="Ask the user to confirm.", input_schema=EMPTY),
    mcp_types.Tool(name="form", description="Ask the user a form.", input_schema=EMPTY),
    mcp_types.Tool(name="count", description="Report progress 1..3.", input_schema=EMPTY),
    mcp_types.Tool(name="login", description="Ask the user a password.", input_schema=EMPTY),
]
RESOURCES = [
    mcp_types.Resource(uri="file:///notes.txt", name="notes", mime_type="text/plain"),
    mcp_types.Resource(uri="file:///pixel.png", name="pixel", mime_type="image/png", size=13),
]
PROMPT = mcp_types.Prompt(
    name="review",
    description="Review a file.",
    arguments=[mcp_types.PromptArgument(name="path", description="Which file", required=True)],
)


def _text(text: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=text)])


def _count(name: str) -> None:
    """Append a call's name to the file `ASKING_CALLS` names (a crash test counts the
    calls the server was sent)."""
    calls = os.environ.get("ASKING_CALLS")
    if calls:
        with open(calls, "a", encoding="utf-8") as file:
            file.write(name + "\n")


def build() -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=TOOLS)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        session = ctx.session
        _count(params.name)
        if params.name == "summarize":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated from 2026-07-28 on
                try:
                    sampled = await session.create_message(
                        [
                            mcp_types.SamplingMessage(
                                role="user", content=mcp_types.TextContent(text="Summarize: a b c")
                            )
                        ],
                        max_tokens=64,
                        system_prompt="Be brief.",
                        temperature=0.5,
                        stop_sequences=["END"],
                    )
                except MCPError as error:
                    return _text(f"refused {error.code}: {error.message}")
            assert isinstance(sampled.content, mcp_types.TextContent)
            return _text(
                json.dumps(
                    {
                        "text": sampled.content.text,
                        "model": sampled.model,
                        "stop": sampled.stop_reason,
                        "role": sampled.role,
                    }
                )
            )
        if params.name in ("confirm", "form", "login"):
            schema: dict[str, Any] = {"type": "object", "properties": {}}
            if params.name == "form":
                schema = {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                }
            if params.name == "login":
                schema = {
                    "type": "object",
                    "properties": {"password": {"type": "string", "writeOnly": True}},
                    "required": ["password"],
                }
            try:
                answer = await session.elicit_form(f"{params.name}?", schema)
            except MCPError as error:
                return _text(f"refused {error.code}: {error.message}")
            return _text(json.dumps({"action": answer.action, "content": answer.content}))
        if params.name == "count":
            for step in (1, 2, 3):
                await session.report_progress(step, 3, f"step {step}")
            return _text("counted")
        raise MCPError(code=INVALID_PARAMS, message=f"unknown tool {params.name}")

    async def list_resources(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        # Two pages, to show the client follows the cursor.
        if params is None or params.cursor is None:
            return mcp_types.ListResourcesResult(resources=RESOURCES[:1], next_cursor="2")
        return mcp_types.ListResourcesResult(resources=RESOURCES[1:])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        if str(params.uri) == "file:///notes.txt":
            text = mcp_types.TextResourceContents(
                uri="file:///notes.txt", mime_type="text/plain", text="line one"
            )
            return mcp_types.ReadResourceResult(contents=[text])
        if str(params.uri) == "file:///pixel.png":
            blob = base64.b64encode(PIXEL).decode("ascii")
            image = mcp_types.BlobResourceContents(
                uri="file:///pixel.png", mime_type="image/png", blob=blob
            )
            return mcp_types.ReadResourceResult(contents=[image])
        raise MCPError(code=INVALID_PARAMS, message=f"no resource {params.uri}")

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListPromptsResult:
        return mcp_types.ListPromptsResult(prompts=[PROMPT])

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: mcp_types.GetPromptRequestParams
    ) -> mcp_types.GetPromptResult:
        if params.name != "review" or not (params.arguments or {}).get("path"):
            raise MCPError(code=INVALID_PARAMS, message="review needs a path")
        path = (params.arguments or {})["path"]
        return mcp_types.GetPromptResult(
            messages=[
                mcp_types.PromptMessage(
                    role="user", content=mcp_types.TextContent(text=f"Review {path}.")
                ),
                mcp_types.PromptMessage(
                    role="assistant", content=mcp_types.TextContent(text="Reading it now.")
                ),
            ]
        )

    return Server(
        "asking",
        version="1.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def main() -> None:
    server = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
