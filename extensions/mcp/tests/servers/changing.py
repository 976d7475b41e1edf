"""An `MCPToolServer` whose tool set changes, with resources and prompts: run as a
script it serves stdio (its `grow` and `shrink` tools change the set from inside a
call); `build()` is a fresh one to serve over streamable HTTP and change from outside."""

from __future__ import annotations

import asyncio
from typing import Annotated

from automata.core import ImageBlock, Message, TextBlock, tool
from automata.mcp import MCPToolServer

PIXEL = b"\x89PNG\r\n\x1a\nnot really"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def extra() -> str:
    """Appears after `grow`."""
    return "extra!"


def build() -> MCPToolServer:
    @tool
    async def grow() -> str:
        """Serve `extra` too."""
        await served.add_tool(extra)
        return "grown"

    @tool
    async def shrink() -> str:
        """Stop serving `extra`."""
        await served.remove_tool("extra")
        return "shrunk"

    served = MCPToolServer("changing", version="1.0", tools=[add, grow, shrink])
    served.add_resource("memo://readme", "Read me first.", mime_type="text/plain")
    served.add_resource("memo://logo.png", PIXEL, name="logo", mime_type="image/png")

    @served.resource("memo://today", mime_type="text/plain")
    def today() -> str:
        """Today's note."""
        return "sunny"

    @served.resource("notes://{topic}/{number}", mime_type="text/plain")
    async def note(topic: str, number: int) -> str:
        """A numbered note on a topic."""
        return f"{topic} #{number + 1}"

    @served.prompt()
    def review(code: Annotated[str, "The code to review"], strictness: int = 1) -> str:
        """Ask for a code review."""
        return f"Review this at strictness {strictness}:\n{code}"

    @served.prompt(name="show-pixel", description="A picture and a question.")
    def show_pixel() -> list[Message]:
        return [
            Message.user([ImageBlock(media_type="image/png", data=PIXEL)]),
            Message.assistant([TextBlock(text="What should I look for?")]),
        ]

    return served


if __name__ == "__main__":
    asyncio.run(build().serve_stdio())
