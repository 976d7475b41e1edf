"""An agent run as a Temporal workflow, through a real dev server, worker and client."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    RetryableError,
    StreamAccumulator,
    load_messages,
    tool,
)
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls
from automata.core.testing import tool_results as results_of
from automata.temporal import (
    AgentRegistry,
    TemporalAgent,
    agent_worker,
    query_events,
    start_agent_run,
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode() -> str:
    """Always fails."""
    raise ValueError("boom")


def answer_after_tools(request: ModelRequest) -> Message | str:
    """Calls three tools on the first turn, then answers with the results it saw."""
    last = request.messages[-1]
    if last.role == "user":
        return tool_calls(
            tool_call("c1", "add", a=2, b=3),
            tool_call("c2", "missing"),
            tool_call("c3", "add", a="x", b=1),
            tool_call("c4", "explode"),
        )
    return "saw: " + " | ".join(b.text or "" for b in last.content if hasattr(b, "text"))


def registry_of(**agents: Callable[[], Agent] | TemporalAgent) -> AgentRegistry:
    return AgentRegistry(agents)


async def test_a_run_calls_the_model_and_tools_as_activities_and_returns_the_transcript(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP1: each provider call and each tool call is an activity; the result carries the
    final text, the transcript (system message first) and the number of provider calls.
    Tool failures are results the model sees, in the model's order."""
    registry = registry_of(
        calc=lambda: Agent(
            FunctionProvider(answer_after_tools, streaming=False),
            system_prompt="You add.",
            tools=[add, explode],
        )
    )
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "calc", "2+3?", id=fresh("run"), task_queue=queue)
        result = await handle.result()
    messages = load_messages(result.transcript)
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert messages[0].text == "You add."
    assert result.steps == 2
    assert results_of(messages) == [
        ("c1", "5", False),
        ("c2", 'tool not found: "missing" (available tools: add, explode)', True),
        (
            "c3",
            "invalid args: a: Input should be a valid integer, unable to parse string "
            "as an integer",
            True,
        ),
        ("c4", "boom", True),
    ]
    assert result.output == messages[-1].text
    assert result.output.startswith("saw: 5 | tool not found")


async def test_the_transcript_and_events_can_be_queried_after_the_run(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP7: the `transcript` query is the run's `dump_messages` document; `events` lists
    each reply's text and each call and result, in order, named for the agent as in
    process, which `query_events` gives as stream events a `StreamAccumulator` folds."""
    registry = registry_of(
        calc=lambda: Agent(
            ScriptedProvider([tool_calls(tool_call("c1", "add", a=1, b=1)), "two"]),
            tools=[add],
            name="calc",
        )
    )
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "calc", "1+1", id=fresh("run"), task_queue=queue)
        result = await handle.result()
        transcript = await handle.query("transcript", result_type=str)
        events = await query_events(handle)
    assert transcript == result.transcript
    assert [type(e).__name__ for e in events] == ["ToolCallEvent", "ToolResultEvent", "TextEvent"]
    folded = StreamAccumulator()
    for event in events:
        folded.add(event)
    (view,) = folded.views()
    assert (view.agent, view.invocation_id, view.text) == ("calc", handle.id, "two")
    assert [(c.id, c.done, c.result) for c in view.tool_calls] == [("c1", True, "2")]


async def test_more_provider_calls_than_max_steps_fail_the_workflow(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP8: a model still calling tools after `max_steps` calls fails the run."""
    registry = registry_of(
        loop=lambda: Agent(
            FunctionProvider(lambda _: tool_calls(tool_call("c", "add", a=1, b=1))),
            tools=[add],
            max_steps=2,
        )
    )
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "loop", "go", id=fresh("run"), task_queue=queue)
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
    assert "max_steps=2" in str(failure.value.cause)


async def test_an_unknown_agent_fails_the_run_without_retrying(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP8: a name the worker's registry does not hold fails the run, naming the known."""
    queue = fresh("q")
    async with agent_worker(
        client, registry_of(known=lambda: Agent(ScriptedProvider([]))), task_queue=queue
    ):
        handle = await start_agent_run(client, "nope", "go", id=fresh("run"), task_queue=queue)
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.message == "no agent registered as 'nope' (registered: known)"
    assert cause.non_retryable


async def test_a_transient_provider_error_is_retried_by_temporal(
    client: Client, fresh: Callable[[str], str]
) -> None:
    """TP4: a `RetryableError` from the provider is retried with the agent's model retry
    policy; the run then completes."""
    calls: list[int] = []

    def flaky(_: ModelRequest) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise RetryableError("overloaded")
        return "fine"

    from automata.core import RetryPolicy

    registry = registry_of(
        flaky=TemporalAgent(
            lambda: Agent(FunctionProvider(flaky, streaming=False)),
            model_retry=RetryPolicy(max_attempts=3, base_delay=0.05),
        )
    )
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "flaky", "go", id=fresh("run"), task_queue=queue)
        result = await handle.result()
    assert (result.output, len(calls)) == ("fine", 2)
