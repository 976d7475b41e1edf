"""An MCP server's tools as automata tools, against the toolbox server (stdio and
streamable HTTP): names, schemas, result mapping, errors, refresh, policy, lifetime."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest
from automata_wire_testing import serving

from automata.core import (
    Agent,
    ImageBlock,
    Message,
    TextBlock,
    ToolLimits,
    ToolPolicy,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPConnectionError, MCPServer, MCPToolError

from .conftest import toolbox_stdio
from .servers import toolbox


async def test_tools_keep_the_servers_names_descriptions_and_schemas(
    toolbox_server: MCPServer,
) -> None:
    """P1 P2"""
    tools = await toolbox_server.tools()
    assert [t.name for t in tools] == [t.name for t in toolbox.BASE_TOOLS]
    echo = tools[0]
    assert echo.description == "Say the text back, `times` times."
    assert dict(echo.input_schema) == toolbox.ECHO_SCHEMA
    assert toolbox_server.name == "toolbox"


async def test_a_prefix_renames_the_tools_but_calls_the_servers_own_name(
    toolbox_server: MCPServer,
) -> None:
    """P3"""
    tools = {t.name: t for t in await toolbox_server.tools(prefix="box_")}
    assert "box_echo" in tools
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "box_echo", text="hi", times=2)), "done"]),
        tools=tools.values(),
    )
    result = await agent.run("go")
    assert tool_results(result.messages) == [("c1", "hi hi", False)]


async def test_text_and_image_results_become_text_and_image_blocks(
    toolbox_server: MCPServer,
) -> None:
    """P4"""
    result = await toolbox_server.call("picture", {})
    assert result.content == (
        TextBlock(text="a pixel"),
        ImageBlock(media_type="image/png", data=toolbox.PNG),
    )


async def test_resources_and_links_become_text_blocks_naming_them(
    toolbox_server: MCPServer,
) -> None:
    """P5"""
    result = await toolbox_server.call("document", {})
    assert [b.text for b in result.content if isinstance(b, TextBlock)] == [
        "[resource file:///notes.txt]\nline one",
        "[binary resource file:///paper.pdf (application/pdf, 13 bytes) not shown]",
        "[resource link file:///big.csv (big.csv, text/csv)]",
    ]


async def test_is_error_and_protocol_errors_are_recoverable_tool_errors(
    toolbox_server: MCPServer,
) -> None:
    """P6"""
    with pytest.raises(MCPToolError, match="broken on purpose"):
        await toolbox_server.call("broken", {})
    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(tool_call("c1", "fail"), tool_call("c2", "broken")),
                tool_calls(tool_call("c3", "echo", text="still here")),
                "done",
            ]
        ),
        tools=await toolbox_server.tools(),
    )
    result = await agent.run("go")
    (fail, broken, echo) = tool_results(result.messages)
    assert fail == ("c1", "the disk is full", True)
    assert broken[0] == "c2"
    assert broken[2] is True
    assert "broken on purpose" in broken[1]
    assert echo == ("c3", "still here", False)
    assert result.output == "done"


async def test_the_tool_list_is_listed_again_after_the_server_says_it_changed(
    toolbox_server: MCPServer,
) -> None:
    """P9"""
    assert "extra" not in [t.name for t in await toolbox_server.tools()]
    await toolbox_server.call("grow", {})
    async with asyncio.timeout(5):
        assert await toolbox_server.wait_for_tools_change() == 1
    names = [t.name for t in await toolbox_server.tools()]
    assert names[-1] == "extra"
    assert (await toolbox_server.call("extra", {})).as_text() == "extra!"


async def test_the_tool_policy_timeout_bounds_an_mcp_call_and_the_run_goes_on(
    toolbox_server: MCPServer,
) -> None:
    """P10"""
    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(tool_call("c1", "sleep", seconds=10)),
                tool_calls(tool_call("c2", "echo", text="after")),
                "done",
            ]
        ),
        tools=await toolbox_server.tools(),
        tool_policy=ToolPolicy(timeout=0.3),
    )
    started = time.monotonic()
    result = await agent.run("go")
    assert time.monotonic() - started < 5
    (slow, after) = tool_results(result.messages)
    assert slow[2] is True
    assert "timed out" in slow[1]
    assert after == ("c2", "after", False)


async def test_budgets_and_parallelism_apply_as_to_any_tool(toolbox_server: MCPServer) -> None:
    """P10"""
    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(*(tool_call(f"c{n}", "meet", parties=2) for n in range(3))),
                "done",
            ]
        ),
        tools=await toolbox_server.tools(),
        tool_policy=ToolPolicy(max_parallel=3, per_tool={"meet": ToolLimits(max_calls=2)}),
    )
    result = await agent.run("go")
    outcomes = tool_results(result.messages)
    # "met": the two allowed calls were inside the server at once (one at a time, each
    # would have waited alone); the third was refused by the budget.
    assert [text for _, text, error in outcomes if not error] == ["met", "met"]
    assert sum(1 for _, _, error in outcomes if error) == 1


async def test_a_killed_server_process_fails_calls_in_flight_and_later_at_once() -> None:
    """P7"""
    async with toolbox_stdio() as server:
        tools = await server.tools()
        pid = int((await server.call("pid", {})).as_text())
        in_flight = asyncio.create_task(server.call("sleep", {"seconds": 30}))
        await asyncio.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(MCPConnectionError, match="toolbox"):
            await in_flight
        with pytest.raises(MCPConnectionError, match="gone"):
            await server.call("echo", {"text": "anyone?"})
        assert time.monotonic() - started < 2
        agent = Agent(
            ScriptedProvider([tool_calls(tool_call("c1", "echo", text="x")), "done"]),
            tools=tools,
        )
        result = await agent.run("go")
        ((_, text, is_error),) = tool_results(result.messages)
        assert is_error
        assert "gone" in text


async def test_a_stopped_http_server_fails_calls_at_once() -> None:
    """P7"""
    async with serving(toolbox.app(), lifespan="on") as client:
        server = MCPServer.http(f"{client.base_url}/mcp")
        await server.__aenter__()
    try:
        started = time.monotonic()
        with pytest.raises(MCPConnectionError, match="gone"):
            await server.call("echo", {"text": "anyone?"})
        assert time.monotonic() - started < 2
    finally:
        await server.__aexit__(None, None, None)


async def test_an_unreachable_url_or_a_missing_command_fails_to_open_with_a_clear_error() -> None:
    """P8"""
    with pytest.raises(MCPConnectionError, match=r"could not connect .*ConnectError"):
        async with MCPServer.http("http://127.0.0.1:9/mcp", connect_timeout=5):
            pass
    with pytest.raises(MCPConnectionError, match="could not connect"):
        async with MCPServer.stdio("/nonexistent/mcp-server"):
            pass
    silent = MCPServer.stdio(
        sys.executable, ["-c", "import time; time.sleep(30)"], connect_timeout=0.5
    )
    started = time.monotonic()
    with pytest.raises(MCPConnectionError, match=r"did not finish the handshake within 0.5s"):
        async with silent:
            pass
    assert time.monotonic() - started < 5


async def test_the_connection_lives_exactly_as_long_as_async_with() -> None:
    """P11"""
    server = toolbox_stdio()
    with pytest.raises(MCPConnectionError, match="not open"):
        await server.tools()
    async with server:
        (echo,) = [t for t in await server.tools() if t.name == "echo"]
        pid = int((await server.call("pid", {})).as_text())
    with pytest.raises(MCPConnectionError, match="closed"):
        await server.call("echo", {"text": "late"})
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the subprocess is gone
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "echo", text="x")), "done"]), tools=[echo]
    )
    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("c1", "the connection to MCP server 'toolbox' is closed", True)
    ]


async def test_a_failing_transport_never_cancels_the_code_inside_async_with() -> None:
    """P11"""
    async with toolbox_stdio() as server:
        pid = int((await server.call("pid", {})).as_text())
        os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.3)
        assert Message.user("still running").text == "still running"
