"""Servers that break the rules a little, over stdio and streamable HTTP: one that lists
two tools under one name, and one whose tool answers after the client gave up on it."""

from __future__ import annotations

import time
import warnings

import pytest

from automata.core import Agent, ToolLimits, ToolPolicy
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPConnectionError, MCPDuplicateToolWarning

from .conftest import quirky_server
from .servers import quirky

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
            assert [t.name for t in tools] == ["echo", "big", "last"]
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


async def test_a_large_answer_given_up_or_not_never_holds_up_the_next_call() -> None:
    """P10 P11"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDuplicateToolWarning)
        async with quirky_server("stdio") as server:
            agent = Agent(
                ScriptedProvider(
                    [
                        tool_calls(tool_call("c1", "big")),
                        tool_calls(tool_call("c2", "echo", text="next")),
                        "done",
                    ]
                ),
                tools=await server.tools(),
                # Only `big` is given up at 0.6 s; the next call's bound is the 5 s below
                # (a 0.6 s budget for it too raced a busy machine's read of the rest).
                tool_policy=ToolPolicy(per_tool={"big": ToolLimits(timeout=0.6)}),
            )
            started = time.monotonic()
            result = await agent.run("go")
            elapsed = time.monotonic() - started
    (big, after) = tool_results(result.messages)
    assert big == ("c1", quirky.BIG, False) or (big[2] and "timed out" in big[1])
    assert after == ("c2", "next", False)
    # The server starts writing its 30 MB answer at 0.3 s. Read in linear time it is in
    # before the 0.6 s timeout, or just after (then the rest is read and dropped, and
    # the next call's answer comes right behind it). The SDK's own stdio reader,
    # quadratic in a line's length, took 8 to 20 s over it: the call was given up at
    # 0.6 s and the next one waited for the rest.
    assert elapsed < 5, f"the next call waited {elapsed:.1f}s behind the late answer"


async def test_a_large_answer_is_read_whole() -> None:
    """P11"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDuplicateToolWarning)
        async with quirky_server("stdio") as server:
            result = await server.call("big", {})
    assert result.as_text() == quirky.BIG
