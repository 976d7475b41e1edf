"""Real MCP servers for the tests: the toolbox server (written with the SDK) as a stdio
subprocess and as streamable HTTP on a free loopback port."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from automata_wire_testing import serving

from automata.mcp import MCPServer

from .servers import quirky, toolbox

SERVERS = Path(__file__).resolve().parent / "servers"
TOOLBOX = SERVERS / "toolbox.py"


def toolbox_stdio(**options: object) -> MCPServer:
    """The toolbox server as a subprocess of this Python."""
    return MCPServer.stdio(sys.executable, [str(TOOLBOX)], **options)  # type: ignore[arg-type]


@pytest.fixture(params=["stdio", "http"])
async def toolbox_server(request: pytest.FixtureRequest) -> AsyncIterator[MCPServer]:
    """The toolbox server, open, over each transport in turn."""
    if request.param == "stdio":
        async with toolbox_stdio() as server:
            yield server
        return
    async with (
        serving(toolbox.app(), lifespan="on") as client,
        MCPServer.http(f"{client.base_url}/mcp") as server,
    ):
        yield server


QUIRKY = SERVERS / "quirky.py"


@asynccontextmanager
async def quirky_server(transport: str) -> AsyncIterator[MCPServer]:
    """The quirky server (duplicate names, a tool that ignores cancellation), open."""
    if transport == "stdio":
        async with MCPServer.stdio(sys.executable, [str(QUIRKY)]) as server:
            yield server
        return
    async with (
        serving(quirky.app(), lifespan="on") as client,
        MCPServer.http(f"{client.base_url}/mcp") as server,
    ):
        yield server
