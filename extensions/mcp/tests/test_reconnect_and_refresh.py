"""A streamable HTTP server that restarts is reconnected (the toolbox server as a real
process on one port, killed and started again), and refreshed tool lists reach an
attached agent's next run."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import pytest

from automata.core import Agent
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPConnectionError, MCPServer

from .conftest import TOOLBOX, toolbox_stdio


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def _toolbox_process(port: int) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, str(TOOLBOX), "--http", str(port)])
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(10)


async def _listening(port: int) -> None:
    async with asyncio.timeout(15):
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            writer.close()
            return


@asynccontextmanager
async def _started(port: int) -> AsyncIterator[subprocess.Popen[bytes]]:
    with _toolbox_process(port) as process:
        await _listening(port)
        yield process


async def test_a_restarted_http_server_fails_the_call_in_flight_and_serves_later_calls() -> None:
    """P7 P19"""
    port = _free_port()
    async with _started(port) as first, MCPServer.http(f"http://127.0.0.1:{port}/mcp") as server:
        assert int((await server.call("pid", {})).as_text()) == first.pid
        in_flight = asyncio.create_task(server.call("sleep", {"seconds": 30}))
        await asyncio.sleep(0.3)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        with pytest.raises(MCPConnectionError, match="gone \\(lost during 'sleep'"):
            async with asyncio.timeout(5):
                await in_flight
        # Down: a call fails at once, naming the cause.
        with pytest.raises(MCPConnectionError, match="could not connect"):
            await server.call("echo", {"text": "anyone?"})
        async with _started(port) as second:
            assert (await server.call("echo", {"text": "back"})).as_text() == "back"
            assert int((await server.call("pid", {})).as_text()) == second.pid
            assert server.reconnects == 2


async def test_a_server_restarted_while_idle_is_reconnected_on_the_next_call() -> None:
    """P19"""
    port = _free_port()
    async with _started(port) as first, MCPServer.http(f"http://127.0.0.1:{port}/mcp") as server:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        async with _started(port) as second:
            assert int((await server.call("pid", {})).as_text()) == second.pid
            assert next(t.name for t in await server.tools()) == "echo"
            assert server.reconnects == 1


async def test_without_reconnect_a_restarted_http_server_stays_gone() -> None:
    """P19"""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    async with _started(port) as first, MCPServer.http(url, reconnect=False) as server:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        async with _started(port):
            for _ in range(2):
                with pytest.raises(MCPConnectionError):
                    await server.call("echo", {"text": "x"})
            assert server.reconnects == 0


async def test_a_refreshed_tool_list_reaches_an_attached_agents_next_run() -> None:
    """P20"""
    async with toolbox_stdio() as server:
        model = ScriptedProvider(
            [
                tool_calls(tool_call("c1", "box_grow")),
                "grown",
                tool_calls(tool_call("c2", "box_extra")),
                "done",
            ]
        )
        agent = Agent(model)
        await server.attach(agent, prefix="box_")
        assert "box_extra" not in [t.name for t in agent.tools]
        await agent.run("grow")
        async with asyncio.timeout(5):
            await server.wait_for_tools_change()
        result = await agent.run("use it")
    assert [t.name for t in agent.tools][-1] == "box_extra"
    assert "box_extra" not in [spec.name for spec in model.requests[1].tools]
    assert "box_extra" in [spec.name for spec in model.requests[2].tools]
    assert tool_results(result.messages) == [("c2", "extra!", False)]
