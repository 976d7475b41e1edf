"""Automata tools, written once, served over MCP by `automata.mcp`: run as a script it
serves stdio; `app()` serves streamable HTTP."""

from __future__ import annotations

import asyncio
from typing import Annotated

from starlette.applications import Starlette

from automata.core import Tool, ToolResult, tool
from automata.mcp import serve_stdio, streamable_http_app

PIXEL = b"\x89PNG\r\n\x1a\nnot really"


@tool
def add(a: Annotated[int, "first"], b: Annotated[int, "second"]) -> int:
    """Add two integers."""
    return a + b


@tool
async def snapshot() -> ToolResult:
    """A captioned image."""
    return ToolResult.image(PIXEL, media_type="image/png", caption="a snapshot")


@tool
def explode() -> str:
    """Always raises."""
    raise RuntimeError("it blew up")


TOOLS: list[Tool] = [add, snapshot, explode]


def app() -> Starlette:
    return streamable_http_app(TOOLS, name="served")


if __name__ == "__main__":
    asyncio.run(serve_stdio(TOOLS, name="served"))
