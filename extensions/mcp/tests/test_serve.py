"""Automata tools served over MCP, checked with the SDK's own client (stdio subprocess
and streamable HTTP on a local port), and with `MCPServer` for the round trip."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from automata_wire_testing import serving
from mcp import ClientSession
from mcp import types as mcp_types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from automata.core import Agent, ImageBlock, Message, TextBlock, ToolDefinitionError
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPServer, serve_tools

from .servers import served

SERVED = Path(__file__).resolve().parent / "servers" / "served.py"


@asynccontextmanager
async def sdk_session(transport: str) -> AsyncIterator[ClientSession]:
    """The SDK's own client session on the served tools, initialized."""
    if transport == "stdio":
        params = StdioServerParameters(command=sys.executable, args=[str(SERVED)])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
        return
    async with (
        serving(served.app(), lifespan="on") as client,
        streamable_http_client(f"{client.base_url}/mcp") as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_served_tools_are_listed_with_their_own_names_descriptions_and_schemas(
    transport: str,
) -> None:
    """P12"""
    async with sdk_session(transport) as session:
        listed = (await session.list_tools()).tools
    assert [t.name for t in listed] == ["add", "snapshot", "explode"]
    assert listed[0].description == served.add.description
    assert listed[0].input_schema == dict(served.add.input_schema)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_served_results_map_text_images_and_errors(transport: str) -> None:
    """P13"""
    async with sdk_session(transport) as session:
        added = await session.call_tool("add", {"a": 2, "b": 3})
        picture = await session.call_tool("snapshot", {})
        exploded = await session.call_tool("explode", {})
        invalid = await session.call_tool("add", {"a": "two"})
        unknown = await session.call_tool("nope", {})
    assert isinstance(added, mcp_types.CallToolResult)
    assert added.content == [mcp_types.TextContent(text="5")]
    assert not added.is_error
    assert isinstance(picture, mcp_types.CallToolResult)
    assert [c.type for c in picture.content] == ["text", "image"]
    assert isinstance(exploded, mcp_types.CallToolResult)
    assert exploded.is_error
    assert exploded.content == [mcp_types.TextContent(text="it blew up")]
    assert isinstance(invalid, mcp_types.CallToolResult)
    assert invalid.is_error
    assert isinstance(invalid.content[0], mcp_types.TextContent)
    assert invalid.content[0].text.startswith("invalid args: ")
    assert isinstance(unknown, mcp_types.CallToolResult)
    assert unknown.is_error


async def test_a_tool_written_once_serves_an_agent_directly_and_over_mcp() -> None:
    """P12 P13"""
    script: list[Message | str] = [
        tool_calls(tool_call("c1", "add", a=20, b=22), tool_call("c2", "snapshot")),
        "ok",
    ]
    direct = await Agent(ScriptedProvider(list(script)), tools=served.TOOLS).run("go")
    async with MCPServer.stdio(sys.executable, [str(SERVED)]) as server:
        remote = await Agent(ScriptedProvider(list(script)), tools=await server.tools()).run("go")
    assert (
        tool_results(remote.messages)
        == tool_results(direct.messages)
        == [
            ("c1", "42", False),
            ("c2", "a snapshot", False),
        ]
    )
    (image,) = [
        b
        for m in remote.messages
        for r in m.content
        if r.type == "tool_result"
        for b in r.content
        if isinstance(b, ImageBlock)
    ]
    assert image == ImageBlock(media_type="image/png", data=served.PIXEL)
    assert TextBlock(text="a snapshot") in [
        b for m in remote.messages for r in m.content if r.type == "tool_result" for b in r.content
    ]


def test_two_tools_with_one_name_cannot_be_served() -> None:
    """P12"""
    with pytest.raises(ToolDefinitionError, match="'add'"):
        serve_tools([served.add, served.add], name="twice")
