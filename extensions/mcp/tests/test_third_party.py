"""A published MCP server installed from the package index, `mcp-server-time`, started
as a stdio subprocess and used by an agent with a scripted model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from automata.core import Agent
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.mcp import MCPServer

TIME_SERVER = shutil.which("mcp-server-time")


@pytest.mark.skipif(TIME_SERVER is None, reason="mcp-server-time is not installed")
async def test_an_agent_converts_a_time_with_the_published_time_server(tmp_path: Path) -> None:
    """P1 P3 P6"""
    assert TIME_SERVER is not None
    with (tmp_path / "stderr.log").open("w", encoding="utf-8") as errlog:
        server = MCPServer.stdio(TIME_SERVER, ["--local-timezone", "UTC"], errlog=errlog)
        async with server:
            tools = await server.tools(prefix="time_")
            assert server.name == "mcp-time"
            assert [t.name for t in tools] == ["time_get_current_time", "time_convert_time"]
            assert tools[1].input_schema["required"] == [
                "source_timezone",
                "time",
                "target_timezone",
            ]
            convert = tool_call(
                "c1",
                "time_convert_time",
                source_timezone="UTC",  # Tokyo has no daylight saving: always +9
                time="12:00",
                target_timezone="Asia/Tokyo",
            )
            wrong = tool_call("c2", "time_get_current_time", timezone="Nowhere/Else")
            agent = Agent(
                ScriptedProvider([tool_calls(convert, wrong), "It is 21:00 in Tokyo."]),
                tools=tools,
            )
            result = await agent.run("Noon UTC is what time in Tokyo?")
    (converted, failed) = tool_results(result.messages)
    assert converted[2] is False
    answer = json.loads(converted[1])
    assert answer["target"]["timezone"] == "Asia/Tokyo"
    assert answer["target"]["datetime"].endswith("T21:00:00+09:00")
    assert answer["time_difference"] == "+9.0h"
    assert failed[2] is True
    assert "Nowhere/Else" in failed[1]
    assert result.output == "It is 21:00 in Tokyo."
