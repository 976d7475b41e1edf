"""Per-run dependencies: `run(..., deps=obj)` reaches tools, sub-agents and prompts
(docs/loop.md, L62-L63)."""

from __future__ import annotations

from dataclasses import dataclass

from automata.core import Agent, Message, ToolContext, as_tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


@dataclass(frozen=True)
class Database:
    rows: dict[str, str]


def lookup_agent(provider: ScriptedProvider) -> Agent[Database]:
    agent = Agent(provider, deps_type=Database)

    @agent.tool
    def lookup(ctx: ToolContext[Database], key: str) -> str:
        """Look a key up."""
        return ctx.deps.rows[key]

    return agent


def lookup_script() -> list[Message]:
    return [tool_calls(tool_call("c1", "lookup", key="a")), Message.assistant("done")]


async def test_a_tool_sees_the_deps_its_run_was_given() -> None:
    """L62."""
    agent = lookup_agent(ScriptedProvider(lookup_script()))
    result = await agent.run("find a", deps=Database({"a": "alpha"}))
    assert tool_results(result.messages) == [("c1", "alpha", False)]


async def test_each_run_sees_its_own_deps() -> None:
    """L62: deps belong to the run, never to the agent."""
    agent = lookup_agent(ScriptedProvider([*lookup_script(), *lookup_script()]))
    first = await agent.run("find a", deps=Database({"a": "one"}))
    second = await agent.run("find a", deps=Database({"a": "two"}))
    assert tool_results(first.messages) == [("c1", "one", False)]
    assert tool_results(second.messages) == [("c1", "two", False)]


async def test_the_deps_parameter_is_left_out_of_the_tools_schema() -> None:
    """L62."""
    agent = lookup_agent(ScriptedProvider([]))
    (spec,) = agent.tools
    assert list(spec.input_schema["properties"]) == ["key"]


async def test_a_run_without_deps_gives_its_tools_none() -> None:
    """L62."""
    seen: list[object] = []
    agent = Agent(ScriptedProvider([tool_calls(tool_call("c1", "probe")), Message.assistant("ok")]))

    @agent.tool
    def probe(ctx: ToolContext) -> str:
        seen.append(ctx.deps)
        return "ok"

    await agent.run("go")
    assert seen == [None]


async def test_sessions_streams_iter_and_run_sync_pass_deps_too() -> None:
    """L62."""
    db = Database({"a": "alpha"})
    session = lookup_agent(ScriptedProvider(lookup_script())).session()
    assert tool_results((await session.run("find a", deps=db)).messages) == [("c1", "alpha", False)]
    stream = lookup_agent(ScriptedProvider(lookup_script())).stream("find a", deps=db)
    async for _ in stream:
        pass
    assert tool_results(stream.result.messages) == [("c1", "alpha", False)]
    async with lookup_agent(ScriptedProvider(lookup_script())).iter("find a", deps=db) as steps:
        async for _ in steps:
            pass
    assert tool_results(steps.result.messages) == [("c1", "alpha", False)]


def test_run_sync_passes_deps() -> None:
    """L62."""
    agent = lookup_agent(ScriptedProvider(lookup_script()))
    result = agent.run_sync("find a", deps=Database({"a": "alpha"}))
    assert tool_results(result.messages) == [("c1", "alpha", False)]


async def test_a_sub_agent_runs_with_its_parents_deps() -> None:
    """L63."""
    child_provider = ScriptedProvider(lookup_script())
    child = lookup_agent(child_provider)
    parent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("p1", "child", task="find a")), Message.assistant("ok")]
        ),
        deps_type=Database,
        tools=[as_tool(child, "child", "Finds things.")],
    )
    await parent.run("go", deps=Database({"a": "alpha"}))
    (request,) = child_provider.requests[1:]
    assert tool_results(request.messages) == [("c1", "alpha", False)]
