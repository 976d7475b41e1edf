"""Clients of the 2026-07-28 protocol (no handshake, no standing stream) are told of a
served set's tool changes on the `subscriptions/listen` streams they open, checked
with the SDK's own `Client` pinned to that version, over streamable HTTP under uvicorn
and over stdio against a subprocess."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from automata_wire_testing import serving
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import Subscription, ToolsListChanged

from .servers import changing

MODERN = "2026-07-28"
CHANGING = Path(__file__).resolve().parent / "servers" / "changing.py"


async def next_event(subscription: Subscription) -> object:
    async with asyncio.timeout(10):
        return await anext(aiter(subscription))


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


async def test_a_listening_client_over_http_is_told_when_a_tool_is_added_or_removed() -> None:
    """P25"""
    served = changing.build()
    async with (
        serving(served.streamable_http_app(), lifespan="on") as http,
        Client(f"{http.base_url}/mcp") as client,  # discovers the version to speak
    ):
        assert client.protocol_version == MODERN
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed is True
        async with client.listen(tools_list_changed=True) as subscription:
            await served.add_tool(changing.extra)
            assert await next_event(subscription) == ToolsListChanged()
            assert "extra" in await names(client)
            await served.remove_tool("extra")
            assert await next_event(subscription) == ToolsListChanged()
            assert "extra" not in await names(client)


async def test_a_listening_client_over_stdio_is_told_of_a_change_made_inside_a_call() -> None:
    """P25"""
    params = StdioServerParameters(command=sys.executable, args=[str(CHANGING)])
    async with Client(params, mode=MODERN) as client:
        async with client.listen(tools_list_changed=True) as subscription:
            await client.call_tool("grow", {})
            assert await next_event(subscription) == ToolsListChanged()
        assert await names(client) == ["add", "grow", "shrink", "extra"]
