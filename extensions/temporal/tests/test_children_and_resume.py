"""Sub-agents as child workflows, and a run that continues an earlier transcript."""

from __future__ import annotations

from collections.abc import Callable

from temporalio.client import Client

from automata.core import Agent, Message, ModelRequest, as_tool, load_messages
from automata.core.testing import (
    FunctionProvider,
    ScriptedProvider,
    tool_call,
    tool_calls,
    tool_results,
)
from automata.temporal import (
    AgentRegistry,
    AgentRunResult,
    TemporalAgent,
    agent_worker,
    start_agent_run,
)


def researcher() -> Agent:
    return Agent(FunctionProvider(lambda r: f"found: {r.messages[-1].text}"), name="researcher")


def lead() -> Agent:
    replies: list[Message | str] = [tool_calls(tool_call("c1", "research", task="tea")), "done"]
    return Agent(
        ScriptedProvider(replies),
        tools=[as_tool(researcher(), "research", "Research a question.")],
    )


async def test_a_sub_agent_tool_runs_as_a_child_workflow_of_the_registered_agent(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP11: a call of a tool in `child_agents` runs the agent it names as a child
    workflow, id `<run id>/<call id>`, on the call's `task`; the child's final text is
    the call's result."""
    registry = AgentRegistry(
        {
            "lead": TemporalAgent(lead, child_agents={"research": "researcher"}),
            "researcher": researcher,
        }
    )
    queue, run_id = fresh("q"), fresh("run")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "lead", "tea?", id=run_id, task_queue=queue)
        result = await handle.result()
        child = await client.get_workflow_handle(
            f"{run_id}/c1", result_type=AgentRunResult
        ).result()
    assert child.output == "found: tea"
    assert tool_results(load_messages(result.transcript)) == [("c1", "found: tea", False)]


async def test_a_run_continues_the_transcript_it_is_given(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP1: a run given an earlier run's transcript sends it, then the new task: the
    conversation goes on across workflows."""

    def echo_history(request: ModelRequest) -> str:
        return " / ".join(m.text for m in request.messages if m.role == "user")

    registry = AgentRegistry({"echo": lambda: Agent(FunctionProvider(echo_history))})
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        first = await (
            await start_agent_run(client, "echo", "one", id=fresh("run"), task_queue=queue)
        ).result()
        second = await (
            await start_agent_run(
                client,
                "echo",
                "two",
                id=fresh("run"),
                task_queue=queue,
                transcript=first.transcript,
            )
        ).result()
    assert second.output == "one / two"
    assert [m.role for m in load_messages(second.transcript)] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
