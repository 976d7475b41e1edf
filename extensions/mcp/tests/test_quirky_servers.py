"""Servers that break the rules a little, over stdio and streamable HTTP: one that lists
two tools under one name, and one whose tool answers after the client gave up on it."""

from __future__ import annotations

import asyncio
import time
import warnings

import pytest

from automata.core import Agent, ToolPolicy
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPConnectionError, MCPDuplicateToolWarning

from .conftest import quirky_server

TRANSPORTS = ["stdio", "http"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_of_two_tools_with_one_name_the_first_is_kept_with_a_warning(
    transport: str,
) -> None:
    """P1"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with quirky_server(transport) as server:
            tools = await server.tools()
            assert [t.name for t in tools] == ["echo", "stubborn", "last"]
            assert tools[0].description == "Say the text back."
            agent = Agent(
                ScriptedProvider([tool_calls(tool_call("c1", "echo", text="once")), "done"]),
                tools=tools,
            )
            result = await agent.run("go")
    assert tool_results(result.messages) == [("c1", "once", False)]
    [warning] = [w for w in caught if issubclass(w.category, MCPDuplicateToolWarning)]
    assert str(warning.message) == (
        "MCP server 'quirky' lists more than one tool named 'echo' (2 times); "
        "the first of each is kept"
    )


async def test_the_duplicate_warning_can_refuse_such_a_server() -> None:
    """P1"""
    with warnings.catch_warnings():
        warnings.simplefilter("error", MCPDuplicateToolWarning)
        with pytest.raises(MCPConnectionError, match="more than one tool named 'echo'"):
            async with quirky_server("stdio"):
                pass


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_cancelled_calls_late_answer_never_holds_up_the_next_call(
    transport: str,
) -> None:
    """P10"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDuplicateToolWarning)
        async with quirky_server(transport) as server:
            agent = Agent(
                ScriptedProvider(
                    [
                        tool_calls(tool_call("c1", "stubborn")),
                        tool_calls(tool_call("c2", "echo", text="next")),
                        "done",
                    ]
                ),
                tools=await server.tools(),
                tool_policy=ToolPolicy(timeout=0.2),
            )
            started = time.monotonic()
            result = await agent.run("go")
            (late, after) = tool_results(result.messages)
            assert late[2] is True
            assert "timed out" in late[1]
            assert after == ("c2", "next", False)
            assert time.monotonic() - started < 0.9, "the next call waited for the late answer"
            await asyncio.sleep(1.0)  # the late answer arrives now, and is dropped
            started = time.monotonic()
            assert (await server.call("echo", {"text": "again"})).as_text() == "again"
            assert time.monotonic() - started < 1
