"""Sub-agents as tools: `as_tool` and `as_tool_func` (docs/streaming.md, "Sub-agents").

Each test pins one behaviour; tags like SA2 name the rule in docs/streaming.md.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel, Field

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    RunResult,
    StreamAccumulator,
    StreamEvent,
    TaskParams,
    ToolCallEvent,
    ToolDefinitionError,
    ToolPolicy,
    ToolResultEvent,
    Usage,
    UsageEvent,
    as_tool,
    as_tool_func,
)
from automata.core.testing import (
    FunctionProvider,
    ScriptedProvider,
    response_for,
    tool_call,
    tool_calls,
    tool_results,
)


class Research(BaseModel):
    """What to research."""

    topic: str = Field(description="the subject")
    questions: list[str] = []


def costing(message: Message, input_tokens: int, output_tokens: int) -> ModelResponse:
    """A scripted turn that reports usage."""
    return dataclasses.replace(
        response_for(message),
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
    )


async def collect(stream: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    return [event async for event in stream]


def tags(events: list[StreamEvent]) -> set[tuple[str, str, int]]:
    return {(e.agent, e.invocation_id, e.depth) for e in events}


def answering(text: str, *, name: str = "sub") -> Agent:
    return Agent(ScriptedProvider([Message.assistant(text)]), name=name)


def calling(*calls: tuple[str, str, dict[str, object]], final: str = "done") -> ScriptedProvider:
    """A parent that makes the given calls in one batch, then answers `final`."""
    return ScriptedProvider(
        [
            tool_calls(*(tool_call(call_id, name, **args) for call_id, name, args in calls)),
            Message.assistant(final),
        ]
    )


# -- building the tool ---------------------------------------------------------------------


def test_as_tool_takes_its_schema_from_the_params_model() -> None:
    researcher = as_tool(answering("x"), "researcher", "Delegate research.", params=Research)
    assert (researcher.name, researcher.description) == ("researcher", "Delegate research.")
    assert researcher.input_schema["properties"]["topic"] == {
        "type": "string",
        "description": "the subject",
    }
    assert researcher.input_schema["required"] == ["topic"]


def test_without_params_the_tool_takes_one_task_argument() -> None:
    researcher = as_tool(answering("x"), "researcher", "Delegate research.")
    assert researcher.params is TaskParams
    assert list(researcher.input_schema["properties"]) == ["task"]
    assert researcher.input_schema["required"] == ["task"]


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "dots.not.allowed"])
def test_a_sub_agent_tool_name_must_be_a_valid_tool_name(name: str) -> None:
    with pytest.raises(ToolDefinitionError, match="invalid tool name"):
        as_tool(answering("x"), name, "Delegate.")


def test_params_must_be_a_pydantic_model() -> None:
    with pytest.raises(ToolDefinitionError, match="pydantic model"):
        as_tool_func(answering("x"), "sub", "Delegate.", params=dict)  # type: ignore[type-var]


async def test_the_parent_model_is_offered_the_sub_agent_as_a_tool() -> None:
    parent_provider = ScriptedProvider([Message.assistant("ok")])
    sub = as_tool(answering("x"), "researcher", "Delegate research.", params=Research)
    await Agent(parent_provider, tools=[sub]).run("go")
    [spec] = parent_provider.requests[0].tools
    assert (spec.name, spec.description, spec.input_schema) == (
        "researcher",
        "Delegate research.",
        sub.input_schema,
    )


# -- running it ----------------------------------------------------------------------------


async def test_as_tool_gives_the_sub_agent_its_validated_arguments_as_json() -> None:
    sub = answering("researched")
    parent = Agent(
        calling(("c1", "researcher", {"topic": "tides"})),
        tools=[as_tool(sub, "researcher", "Delegate research.", params=Research)],
    )
    await parent.run("go")
    assert isinstance(sub.provider, ScriptedProvider)
    task = sub.provider.requests[0].messages[-1]
    assert Research.model_validate_json(task.text) == Research(topic="tides", questions=[])


async def test_as_tool_func_renders_the_arguments_into_natural_language() -> None:
    sub = answering("researched")

    def render(params: Research) -> str:
        return f"Research: {params.topic}\nQuestions:\n- " + "\n- ".join(params.questions)

    parent = Agent(
        calling(("c1", "researcher", {"topic": "tides", "questions": ["why", "when"]})),
        tools=[as_tool_func(sub, "researcher", "Delegate.", params=Research, render=render)],
    )
    await parent.run("go")
    assert isinstance(sub.provider, ScriptedProvider)
    assert sub.provider.requests[0].messages[-1] == Message.user(
        "Research: tides\nQuestions:\n- why\n- when"
    )


async def test_as_tool_func_without_render_passes_a_task_as_it_is() -> None:
    sub = answering("ok")
    parent = Agent(
        calling(("c1", "helper", {"task": "Summarise the tides."})),
        tools=[as_tool_func(sub, "helper", "Delegate.")],
    )
    await parent.run("go")
    assert isinstance(sub.provider, ScriptedProvider)
    assert sub.provider.requests[0].messages[-1] == Message.user("Summarise the tides.")


async def test_the_sub_agents_answer_is_the_tools_result() -> None:
    parent = Agent(
        calling(("c1", "helper", {"task": "t"})),
        tools=[as_tool(answering("the answer"), "helper", "Delegate.")],
    )
    result = await parent.run("go")
    assert tool_results(result.messages) == [("c1", "the answer", False)]


async def test_a_sub_agent_keeps_its_own_system_prompt_and_a_fresh_transcript() -> None:
    sub = Agent(
        ScriptedProvider([Message.assistant("a"), Message.assistant("b")]), system_prompt="S"
    )
    parent = Agent(
        calling(("c1", "helper", {"task": "one"}), ("c2", "helper", {"task": "two"})),
        tools=[as_tool_func(sub, "helper", "Delegate.")],
    )
    await parent.run("go")
    assert isinstance(sub.provider, ScriptedProvider)
    sent = sorted((r.messages for r in sub.provider.requests), key=lambda m: m[-1].text)
    assert sent == [
        (Message.system("S"), Message.user("one")),
        (Message.system("S"), Message.user("two")),
    ]


async def test_invalid_args_are_a_recoverable_result_and_never_start_the_sub_agent() -> None:
    """SA5: the model sees `invalid args: ...`; the sub-agent never runs or streams."""
    sub = answering("never")
    parent = Agent(
        calling(("c1", "researcher", {"questions": "not a list"}), final="recovered"),
        tools=[as_tool(sub, "researcher", "Delegate research.", params=Research)],
    )
    stream = parent.stream("go")
    events = await collect(stream)
    [result] = [e for e in events if isinstance(e, ToolResultEvent)]
    assert result.is_error
    assert result.result.startswith("invalid args: ")
    assert "topic" in result.result
    assert "questions" in result.result
    assert isinstance(sub.provider, ScriptedProvider)
    assert sub.provider.requests == []
    assert {e.agent for e in events} == {"agent"}
    assert stream.result.output == "recovered"


async def test_a_failing_sub_agent_is_an_error_result_and_the_parent_goes_on() -> None:
    """SA6: a sub-agent's failure is reported to the parent model as an error result."""
    broken = Agent(ScriptedProvider([RuntimeError("model down")]))
    parent = Agent(
        calling(("c1", "helper", {"task": "t"}), final="carried on"),
        tools=[as_tool(broken, "helper", "Delegate.")],
    )
    result = await parent.run("go")
    [(call_id, text, is_error)] = tool_results(result.messages)
    assert (call_id, is_error) == ("c1", True)
    assert "model down" in text
    assert result.output == "carried on"


async def test_a_sub_agent_draws_on_the_parents_total_tool_call_budget() -> None:
    """L25: the parent's `max_calls` counts the calls of its sub-agents too."""
    sub = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("n1", "note"), tool_call("n2", "note")), Message.assistant("ok")]
        )
    )

    @sub.tool
    async def note() -> str:
        return "noted"

    parent = Agent(
        calling(("c1", "helper", {"task": "t"})),
        tools=[as_tool(sub, "helper", "Delegate.")],
        tool_policy=ToolPolicy(max_calls=2),
    )
    stream = parent.stream("go")
    events = await collect(stream)
    sub_results = {
        e.call.id: e.result
        for e in events
        if isinstance(e, ToolResultEvent) and e.agent == "helper"
    }
    assert sub_results == {
        "n1": "noted",
        "n2": "denied: tool budget exhausted: max calls 2",
    }


# -- streaming -----------------------------------------------------------------------------


async def test_a_sub_agent_streams_live_inside_its_parents_tool_call() -> None:
    """SA1: the sub-agent's events arrive between the parent's call and its result."""
    parent = Agent(
        calling(("c1", "helper", {"task": "t"})),
        tools=[as_tool(answering("sub text"), "helper", "Delegate.")],
        name="parent",
    )
    events = await collect(parent.stream("go"))
    sequence = [(e.agent, type(e).__name__) for e in events]
    assert sequence == [
        ("parent", "ToolCallEvent"),
        ("helper", "TextEvent"),
        ("parent", "ToolResultEvent"),
        ("parent", "TextEvent"),
    ]


async def test_sub_agent_events_are_tagged_with_the_tool_name_and_the_parents_call_id() -> None:
    """SA2: agent = the tool's name (not the sub-agent's own name), invocation id = the
    parent's tool-call id, depth = the parent's depth + 1."""
    sub = answering("sub text", name="research-bot")
    parent = Agent(
        calling(("call_7", "researcher", {"task": "t"})),
        tools=[as_tool(sub, "researcher", "Delegate.")],
        name="parent",
    )
    stream = parent.stream("go")
    events = await collect(stream)
    assert tags(events) == {("parent", stream.result.invocation_id, 0), ("researcher", "call_7", 1)}


def three_levels() -> Agent:
    """orchestrator -> researcher -> searcher -> lookup, every turn reporting usage."""
    searcher = Agent(
        ScriptedProvider(
            [
                costing(tool_calls(tool_call("s1", "lookup"), text="looking"), 1, 1),
                costing(Message.assistant("found"), 2, 2),
            ]
        ),
        name="searcher-agent",
    )

    @searcher.tool
    async def lookup() -> str:
        return "a fact"

    researcher = Agent(
        ScriptedProvider(
            [
                costing(tool_calls(tool_call("r1", "searcher", task="find")), 10, 10),
                costing(Message.assistant("researched"), 20, 20),
            ]
        ),
        tools=[as_tool(searcher, "searcher", "Search.")],
    )
    return Agent(
        ScriptedProvider(
            [
                costing(tool_calls(tool_call("o1", "researcher", task="study")), 100, 100),
                costing(Message.assistant("report"), 200, 200),
            ]
        ),
        tools=[as_tool(researcher, "researcher", "Research.")],
        name="orchestrator",
    )


async def test_tags_nest_three_levels_deep_and_the_innermost_tags_win() -> None:
    """SA2: a sub-sub-agent's events carry its own tool name and its parent's call id."""
    stream = three_levels().stream("go")
    events = await collect(stream)
    run_id = stream.result.invocation_id
    assert tags(events) == {
        ("orchestrator", run_id, 0),
        ("researcher", "o1", 1),
        ("searcher", "r1", 2),
    }
    [lookup_call] = [e for e in events if isinstance(e, ToolCallEvent) and e.call.id == "s1"]
    assert (lookup_call.agent, lookup_call.invocation_id, lookup_call.depth) == (
        "searcher",
        "r1",
        2,
    )


async def test_each_lanes_usage_events_report_only_that_runs_own_turns() -> None:
    """SA4: usage events belong to the run whose turn used the tokens."""
    events = await collect(three_levels().stream("go"))
    usage_by_agent: dict[str, list[int]] = {}
    for event in events:
        if isinstance(event, UsageEvent):
            usage_by_agent.setdefault(event.agent, []).append(event.usage.output_tokens)
    assert usage_by_agent == {
        "orchestrator": [100, 200],
        "researcher": [10, 20],
        "searcher": [1, 2],
    }


async def test_a_runs_usage_excludes_its_sub_agents() -> None:
    """SA4: `RunResult.usage` counts the run's own provider calls only."""
    result: RunResult[str] = await three_levels().run("go")
    assert result.usage == Usage(input_tokens=300, output_tokens=300)


async def test_the_accumulator_attributes_usage_to_each_lane_three_levels_deep() -> None:
    """SA4 and M4: every lane holds its own usage; `totals()` is the whole tree's."""
    accumulator = StreamAccumulator()
    stream = three_levels().stream("go")
    async for event in stream:
        accumulator.add(event)
    lanes = [
        (v.agent, v.invocation_id, v.depth, v.usage.output_tokens) for v in accumulator.views()
    ]
    assert lanes == [
        ("orchestrator", stream.result.invocation_id, 0, 300),
        ("researcher", "o1", 1, 30),
        ("searcher", "r1", 2, 3),
    ]
    assert accumulator.totals() == Usage(input_tokens=333, output_tokens=333)


async def test_parallel_calls_to_the_same_sub_agent_stream_in_separate_lanes() -> None:
    """SA3: two concurrent calls of one sub-agent are two invocations, two lanes."""
    both_asked = asyncio.Event()
    asked: list[str] = []

    async def reply(request: ModelRequest) -> Message:
        topic = request.messages[-1].text
        asked.append(topic)
        if len(asked) == 2:
            both_asked.set()
        await both_asked.wait()  # neither answers until both runs are going
        return Message.assistant(f"about {topic}")

    sub = Agent(FunctionProvider(reply))
    parent = Agent(
        calling(("c1", "researcher", {"task": "cats"}), ("c2", "researcher", {"task": "dogs"})),
        tools=[as_tool_func(sub, "researcher", "Delegate.")],
    )
    accumulator = StreamAccumulator()
    async for event in parent.stream("go"):
        accumulator.add(event)
    lanes = sorted((v.invocation_id, v.text) for v in accumulator.views_for("researcher"))
    assert lanes == [("c1", "about cats"), ("c2", "about dogs")]


async def test_closing_the_parents_stream_cancels_the_tools_a_sub_agent_is_running() -> None:
    """C1 through a sub-agent: closing the stream reaches the innermost running tool,
    and the parent's transcript is still valid."""
    started, cancelled = asyncio.Event(), asyncio.Event()
    sub = Agent(ScriptedProvider([tool_calls(tool_call("w1", "wait"))]))

    @sub.tool
    async def wait() -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    session = Agent(
        calling(("c1", "helper", {"task": "t"})), tools=[as_tool(sub, "helper", "Delegate.")]
    ).session()
    async with session.stream("go") as stream:
        async for event in stream:
            if isinstance(event, ToolCallEvent) and event.agent == "helper":
                await started.wait()
                break
    assert cancelled.is_set()
    assert tool_results(session.messages) == [
        ("c1", "canceled: tool batch aborted: run cancelled", True)
    ]
