"""A served tool set that changes while clients are connected, and served resources
and prompts, checked with the SDK's own client (stdio subprocess and streamable HTTP
under uvicorn), and with `MCPServer` for the round trip into an agent's next run."""

from __future__ import annotations

import asyncio
import base64
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from automata_wire_testing import serving
from mcp import ClientSession, MCPError
from mcp import types as mcp_types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from automata.core import Agent, ToolDefinitionError
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPServer, MCPToolServer

from .servers import changing

CHANGING = Path(__file__).resolve().parent / "servers" / "changing.py"


class Client:
    """The SDK's client session, initialized, counting the tool-list changes it is told."""

    def __init__(self) -> None:
        self.changes = 0
        self._changed = asyncio.Event()
        self.session: ClientSession
        self.initialized: mcp_types.InitializeResult

    async def on_message(self, message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            self.changes += 1
            self._changed.set()

    async def wait_for_change(self, seen: int) -> None:
        async with asyncio.timeout(10):
            while self.changes <= seen:
                self._changed.clear()
                await self._changed.wait()

    async def names(self) -> list[str]:
        return [t.name for t in (await self.session.list_tools()).tools]


@asynccontextmanager
async def stdio_session() -> AsyncIterator[Client]:
    client = Client()
    params = StdioServerParameters(command=sys.executable, args=[str(CHANGING)])
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=client.on_message) as session,
    ):
        client.session, client.initialized = session, await session.initialize()
        yield client


@asynccontextmanager
async def http_sessions(served: MCPToolServer, count: int = 1) -> AsyncIterator[list[Client]]:
    """`count` SDK clients connected over streamable HTTP to `served` under uvicorn."""
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(serving(served.streamable_http_app(), lifespan="on"))
        clients = []
        for _ in range(count):
            client = Client()
            read, write = await stack.enter_async_context(
                streamable_http_client(f"{http.base_url}/mcp")
            )
            client.session = await stack.enter_async_context(
                ClientSession(read, write, message_handler=client.on_message)
            )
            client.initialized = await client.session.initialize()
            clients.append(client)
        # The handshake's last message is a notification: wait until the server has it.
        async with asyncio.timeout(10):
            while served.clients < count:  # noqa: ASYNC110 - no event to wait on
                await asyncio.sleep(0.01)
        yield clients


@asynccontextmanager
async def sdk_session(transport: str) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with stdio_session() as client:
            yield client
        return
    async with http_sessions(changing.build()) as (client,):
        yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_tools_capability_declares_list_changed(transport: str) -> None:
    """P21"""
    async with sdk_session(transport) as client:
        tools = client.initialized.capabilities.tools
    assert tools is not None
    assert tools.list_changed is True


async def test_a_client_over_http_is_told_when_a_tool_is_added_or_removed_and_relists() -> None:
    """P21"""
    served = changing.build()
    async with http_sessions(served) as (client,):
        assert "extra" not in await client.names()
        await served.add_tool(changing.extra)
        await client.wait_for_change(0)
        assert await client.names() == ["add", "grow", "shrink", "extra"]
        called = await client.session.call_tool("extra", {})
        assert called.content == [mcp_types.TextContent(text="extra!")]

        removed = await served.remove_tool("extra")
        await client.wait_for_change(1)
        assert removed is changing.extra
        assert await client.names() == ["add", "grow", "shrink"]
        gone = await client.session.call_tool("extra", {})
    assert gone.is_error
    assert gone.content == [mcp_types.TextContent(text="unknown tool 'extra'")]


async def test_every_connected_client_is_told_of_a_change() -> None:
    """P21"""
    served = changing.build()
    async with http_sessions(served, count=2) as clients:
        await served.add_tool(changing.extra)
        for client in clients:
            await client.wait_for_change(0)
            assert "extra" in await client.names()


async def test_the_server_lets_go_of_each_client_whose_session_ended() -> None:
    """P24"""
    served = changing.build()
    async with serving(served.streamable_http_app(), lifespan="on") as http:
        for cycle in range(6):
            async with (
                streamable_http_client(f"{http.base_url}/mcp") as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                async with asyncio.timeout(10):
                    while served.clients < 1:  # noqa: ASYNC110 - no event to wait on
                        await asyncio.sleep(0.01)
                assert served.clients == 1, f"cycle {cycle}: only the client connected now"
            async with asyncio.timeout(10):
                while served.clients:  # noqa: ASYNC110 - no event to wait on
                    await asyncio.sleep(0.01)
        # A change after every client left is sent to no one, and fails nothing.
        await served.add_tool(changing.extra)
    assert served.clients == 0


async def test_a_tool_that_changes_the_set_from_inside_a_call_tells_a_stdio_client() -> None:
    """P21"""
    async with stdio_session() as client:
        grown = await client.session.call_tool("grow", {})
        await client.wait_for_change(0)
        after_grow = await client.names()
        await client.session.call_tool("shrink", {})
        await client.wait_for_change(1)
        after_shrink = await client.names()
    assert grown.content == [mcp_types.TextContent(text="grown")]
    assert after_grow == ["add", "grow", "shrink", "extra"]
    assert after_shrink == ["add", "grow", "shrink"]


async def test_an_attached_agent_offers_a_tool_added_on_the_server_in_its_next_run() -> None:
    """P21 P20"""
    served = changing.build()
    async with (
        serving(served.streamable_http_app(), lifespan="on") as http,
        MCPServer.http(f"{http.base_url}/mcp") as remote,
    ):
        provider = ScriptedProvider(
            [
                tool_calls(tool_call("c1", "box_add", a=1, b=2)),
                "three",
                tool_calls(tool_call("c2", "box_extra")),
                "extra",
            ]
        )
        agent = Agent(provider)
        await remote.attach(agent, prefix="box_")
        first = await agent.run("add")
        seen = remote.tools_changes
        await served.add_tool(changing.extra)
        async with asyncio.timeout(10):
            await remote.wait_for_tools_change(seen)
        second = await agent.run("extra")
    assert tool_results(first.messages) == [("c1", "3", False)]
    assert tool_results(second.messages) == [("c2", "extra!", False)]
    offered = [[spec.name for spec in request.tools] for request in provider.requests]
    assert "box_extra" not in offered[0]
    assert "box_extra" in offered[2]


async def test_changing_the_set_refuses_a_taken_name_and_an_unknown_one() -> None:
    """P21"""
    served = changing.build()
    with pytest.raises(ToolDefinitionError, match="'add'"):
        await served.add_tool(changing.add)
    with pytest.raises(ToolDefinitionError, match="'nope'"):
        await served.remove_tool("nope")
    assert [t.name for t in served.tools] == ["add", "grow", "shrink"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_resources_and_templates_are_listed_and_read(transport: str) -> None:
    """P22"""
    async with sdk_session(transport) as client:
        session = client.session
        listed = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        readme = (await session.read_resource("memo://readme")).contents
        logo = (await session.read_resource("memo://logo.png")).contents
        today = (await session.read_resource("memo://today")).contents
        note = (await session.read_resource("notes://mcp/41")).contents
    assert [(r.uri, r.name, r.mime_type, r.size) for r in listed] == [
        ("memo://readme", "memo://readme", "text/plain", 14),
        ("memo://logo.png", "logo", "image/png", len(changing.PIXEL)),
        ("memo://today", "today", "text/plain", None),
    ]
    assert listed[2].description == "Today's note."
    assert [(t.uri_template, t.name, t.description) for t in templates] == [
        ("notes://{topic}/{number}", "note", "A numbered note on a topic.")
    ]
    assert readme == [
        mcp_types.TextResourceContents(
            uri="memo://readme", mime_type="text/plain", text="Read me first."
        )
    ]
    (blob,) = logo
    assert isinstance(blob, mcp_types.BlobResourceContents)
    assert (blob.mime_type, base64.b64decode(blob.blob)) == ("image/png", changing.PIXEL)
    assert [(str(c.uri), getattr(c, "text", None)) for c in today] == [("memo://today", "sunny")]
    assert [(str(c.uri), getattr(c, "text", None)) for c in note] == [("notes://mcp/41", "mcp #42")]


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_an_unknown_uri_or_a_variable_of_the_wrong_type_is_an_error(transport: str) -> None:
    """P22"""
    async with sdk_session(transport) as client:
        with pytest.raises(MCPError) as unknown:
            await client.session.read_resource("memo://nothing")
        with pytest.raises(MCPError) as wrong:
            await client.session.read_resource("notes://mcp/forty")
    assert unknown.value.error.code == -32002
    assert "memo://nothing" in unknown.value.error.message
    assert wrong.value.error.code == mcp_types.INVALID_PARAMS
    assert "number" in wrong.value.error.message


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_prompts_are_listed_with_typed_arguments_and_got_filled(transport: str) -> None:
    """P23"""
    async with sdk_session(transport) as client:
        session = client.session
        listed = (await session.list_prompts()).prompts
        review = await session.get_prompt("review", {"code": "x = 1", "strictness": "3"})
        pixel = await session.get_prompt("show-pixel", {})
        with pytest.raises(MCPError) as missing:
            await session.get_prompt("review", {})
        with pytest.raises(MCPError) as mistyped:
            await session.get_prompt("review", {"code": "x", "strictness": "high"})
        with pytest.raises(MCPError) as unknown:
            await session.get_prompt("nope", {})
    assert [(p.name, p.description) for p in listed] == [
        ("review", "Ask for a code review."),
        ("show-pixel", "A picture and a question."),
    ]
    assert [(a.name, a.description, a.required) for a in listed[0].arguments or ()] == [
        ("code", "The code to review", True),
        ("strictness", None, False),
    ]
    assert listed[1].arguments == []
    assert review.messages == [
        mcp_types.PromptMessage(
            role="user", content=mcp_types.TextContent(text="Review this at strictness 3:\nx = 1")
        )
    ]
    assert [(m.role, m.content.type) for m in pixel.messages] == [
        ("user", "image"),
        ("assistant", "text"),
    ]
    for error in (missing, mistyped, unknown):
        assert error.value.error.code == mcp_types.INVALID_PARAMS
    assert "code" in missing.value.error.message
    assert "strictness" in mistyped.value.error.message


async def test_served_resources_and_prompts_reach_an_mcp_server_client() -> None:
    """P22 P23 P18"""
    async with MCPServer.stdio(sys.executable, [str(CHANGING)]) as remote:
        resources = await remote.resources()
        (part,) = await remote.read_resource("notes://tea/1")
        messages = await remote.get_prompt("review", {"code": "pass"})
    assert [r.uri for r in resources] == ["memo://readme", "memo://logo.png", "memo://today"]
    assert part.text == "tea #2"
    assert [(m.role, m.text) for m in messages] == [("user", "Review this at strictness 1:\npass")]


def test_a_template_whose_variables_are_not_its_parameters_is_refused() -> None:
    """P22"""
    served = MCPToolServer("bad")
    with pytest.raises(ToolDefinitionError, match=r"\['name'\]"):

        @served.resource("file://{name}")
        def read(path: str) -> str:
            """Read a file."""
            return path

    served.add_resource("memo://a", "a")
    with pytest.raises(ToolDefinitionError, match="memo://a"):
        served.add_resource("memo://a", "again")


def test_a_prompt_name_is_served_once() -> None:
    """P23"""
    served = changing.build()
    with pytest.raises(ToolDefinitionError, match="'review'"):

        @served.prompt(name="review")
        def again() -> str:
            """Again."""
            return "again"


def test_a_server_without_resources_or_prompts_declares_neither() -> None:
    """P22 P23"""
    capabilities = MCPToolServer("plain").sdk_server().create_initialization_options().capabilities
    assert capabilities.resources is None
    assert capabilities.prompts is None
    assert capabilities.tools is not None
    assert capabilities.tools.list_changed is True
