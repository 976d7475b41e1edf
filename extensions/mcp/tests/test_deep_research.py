"""The deep-research researcher using `web_search` served over MCP (a stdio subprocess
wrapping the example's `DemoSearcher`) instead of the built-in tool."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from deep_research import DemoSearcher, ResearchAssignment, demo_providers
from deep_research.team import RESEARCHER, RESEARCHER_PROMPT, render_assignment

from automata.core import Agent, ToolLimits, ToolPolicy
from automata.mcp import MCPServer

SEARCH_SERVER = Path(__file__).resolve().parent / "servers" / "search.py"
QUESTION = "How fast are heat pumps being adopted in Europe?"


async def test_the_researcher_searches_over_mcp_and_cites_the_returned_urls(
    tmp_path: Path,
) -> None:
    """P14"""
    log = tmp_path / "queries.log"
    server = MCPServer.stdio(
        sys.executable, [str(SEARCH_SERVER)], env={"SEARCH_LOG": str(log)}, name="search"
    )
    async with server:
        tools = await server.tools()
        assert [t.name for t in tools] == ["web_search"]
        researcher = Agent(
            demo_providers().researcher,
            name=RESEARCHER,
            system_prompt=RESEARCHER_PROMPT,
            tools=tools,
            max_steps=8,
            tool_policy=ToolPolicy(timeout=45.0, per_tool={"web_search": ToolLimits(max_calls=4)}),
        )
        result = await researcher.run(render_assignment(ResearchAssignment(question=QUESTION)))

    assert log.read_text(encoding="utf-8").splitlines() == [QUESTION]  # the server searched
    expected = [r.url for r in await DemoSearcher().search(QUESTION, max_results=3)]
    notes = result.output
    assert re.findall(r"\((https://[^)]+)\)", notes) == expected
    assert all(line.startswith("- ") for line in notes.splitlines())
