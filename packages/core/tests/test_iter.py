"""Step by step: `agent.iter` and `session.iter` (docs/loop.md, L50-L56)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from automata.core import (
    Agent,
    ArgumentTypeError,
    InvalidArgumentError,
    MaxStepsError,
    Message,
    ModelResponse,
    ModelStep,
    RunResult,
    SessionBusyError,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolStep,
    Usage,
    dump_messages,
    load_messages,
    post_run,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


def weather_script() -> list[Message]:
    return [
        tool_calls(tool_call("c1", "weather", city="Paris")),
        tool_calls(tool_call("c2", "weather", city="Rome")),
        Message.assistant("Paris 21C, Rome 25C."),
    ]


def weather_agent(provider: ScriptedProvider) -> Agent:
    agent = Agent(provider, system_prompt="You report weather.")

    @agent.tool
    def weather(city: str) -> str:
        return {"Paris": "21C", "Rome": "25C"}[city]

    return agent


async def test_iter_yields_each_model_turn_and_each_tool_batch_in_order() -> None:
    """L50: a turn with calls, its batch, the next turn, its batch, the answer."""
    agent = weather_agent(ScriptedProvider(weather_script()))
    async with agent.iter("Weather in Paris and Rome?") as steps:
        kinds = [(type(step).__name__, step.step) async for step in steps]
    assert kinds == [
        ("ModelStep", 1),
        ("ToolStep", 1),
        ("ModelStep", 2),
        ("ToolStep", 2),
        ("ModelStep", 3),
    ]


async def test_after_the_last_step_result_is_what_run_returns() -> None:
    """L50: `run` is `iter` driven to the end: same result, same requests."""
    iterated = ScriptedProvider(weather_script())
    async with weather_agent(iterated).iter("Weather?") as steps:
        async for _ in steps:
            pass
    ran = ScriptedProvider(weather_script())
    result = await weather_agent(ran).run("Weather?")
    assert steps.result.output == result.output == "Paris 21C, Rome 25C."
    assert steps.result.messages == result.messages
    assert steps.result.steps == result.steps == 3
    assert iterated.requests == ran.requests


async def test_a_model_step_ends_its_messages_with_its_turn() -> None:
    """L51: the step's message is committed, as the last of `messages`."""
    agent = weather_agent(ScriptedProvider(weather_script()))
    async with agent.iter("Weather?") as steps:
        first = await anext(steps)
    assert isinstance(first, ModelStep)
    assert first.messages[-1] == first.message
    assert [m.role for m in first.messages] == ["system", "user", "assistant"]
    assert first.tool_calls == (tool_call("c1", "weather", city="Paris"),)
    assert first.stop_reason is StopReason.TOOL_USE


async def test_a_tool_step_ends_its_messages_with_every_result_of_its_batch() -> None:
    """L51: a tool step's `results` is the committed tool message, one result per call."""
    agent = weather_agent(ScriptedProvider(weather_script()))
    async with agent.iter("Weather?") as steps:
        await anext(steps)
        batch = await anext(steps)
    assert isinstance(batch, ToolStep)
    assert batch.calls == (tool_call("c1", "weather", city="Paris"),)
    assert batch.messages[-1] == batch.results
    assert tool_results([batch.results]) == [("c1", "21C", False)]


async def test_a_steps_messages_do_not_change_as_the_run_goes_on() -> None:
    """L51: `messages` is the transcript as it stood when the step was committed."""
    agent = weather_agent(ScriptedProvider(weather_script()))
    async with agent.iter("Weather?") as steps:
        collected = [step async for step in steps]
    assert [len(step.messages) for step in collected] == [3, 4, 5, 6, 7]


async def test_a_model_step_carries_the_usage_the_provider_reported_for_that_turn() -> None:
    """L51."""
    turn = ModelResponse(
        message=Message.assistant("hi"),
        stop_reason=StopReason.END_TURN,
        usage=Usage(input_tokens=7, output_tokens=2),
    )
    async with Agent(ScriptedProvider([turn])).iter("hello") as steps:
        (step,) = [s async for s in steps]
    assert isinstance(step, ModelStep)
    assert step.usage == Usage(input_tokens=7, output_tokens=2)


async def test_nothing_runs_between_two_steps() -> None:
    """L55: the next provider call waits until the next step is asked for."""
    provider = ScriptedProvider(weather_script())
    async with weather_agent(provider).iter("Weather?") as steps:
        await anext(steps)
        await anext(steps)
        assert len(provider.requests) == 1
        await anext(steps)
        assert len(provider.requests) == 2


async def test_stopping_at_a_turn_with_calls_answers_them_as_canceled() -> None:
    """L52: the calls never run; each gets a `canceled` result; the transcript resumes."""
    ran: list[str] = []
    agent = Agent(ScriptedProvider([tool_calls(tool_call("c1", "t"), tool_call("c2", "t"))]))

    @agent.tool
    def t() -> str:
        ran.append("t")
        return "ok"

    session = agent.session()
    async with session.iter("go") as steps:
        async for step in steps:
            assert isinstance(step, ModelStep)
            break
    assert ran == []
    assert tool_results(session.messages) == [
        ("c1", "canceled: the run was stopped before this call ran", True),
        ("c2", "canceled: the run was stopped before this call ran", True),
    ]
    agent.session(messages=session.messages)  # a valid transcript: no TranscriptError


async def test_post_run_hooks_see_a_stopped_run_as_cancelled_without_an_error() -> None:
    """L52."""
    seen: list[tuple[StopReason, BaseException | None, int]] = []

    async def record(result: RunResult[Any], error: BaseException | None) -> None:
        seen.append((result.stop_reason, error, len(result.messages)))

    agent = weather_agent(ScriptedProvider(weather_script()))
    steps = agent.iter("Weather?", hooks=[post_run(record)])
    await anext(steps)
    await anext(steps)
    assert seen == []
    await steps.aclose()
    assert seen == [(StopReason.CANCELLED, None, 4)]


async def test_result_before_the_end_or_after_stopping_raises() -> None:
    """L50."""
    steps = weather_agent(ScriptedProvider(weather_script())).iter("Weather?")
    with pytest.raises(RuntimeError) as early:
        _ = steps.result
    assert str(early.value) == "the run has not finished; iterate its steps to the end first"
    await anext(steps)
    await steps.aclose()
    with pytest.raises(RuntimeError) as stopped:
        _ = steps.result
    assert str(stopped.value) == "the run was stopped before it finished; it has no result"
    assert [s async for s in steps] == []


async def test_a_failed_run_raises_from_the_loop_with_its_partial_result() -> None:
    """L54: the steps before the failure were delivered; the error carries the rest."""
    agent = Agent(ScriptedProvider([tool_calls(tool_call("c1", "t"))]), max_steps=1)
    agent.tool(lambda: "ok", name="t")
    delivered: list[str] = []

    async def consume() -> None:
        async with agent.iter("go") as steps:
            async for step in steps:
                delivered.append(type(step).__name__)

    with pytest.raises(MaxStepsError) as caught:
        await consume()
    assert delivered == ["ModelStep", "ToolStep"]
    assert caught.value.result is not None
    assert caught.value.result.stop_reason is StopReason.MAX_STEPS


async def test_stopping_after_a_tool_batch_and_resuming_elsewhere_ends_the_same() -> None:
    """L53: stop after a batch, persist, load in a new session, continue without a new
    task: the same final result and the same requests as a run never interrupted."""
    whole = ScriptedProvider(weather_script())
    uninterrupted = await weather_agent(whole).run("Weather in Paris and Rome?")

    first = ScriptedProvider(weather_script()[:1])
    async with weather_agent(first).iter("Weather in Paris and Rome?") as steps:
        async for step in steps:
            if isinstance(step, ToolStep):
                saved = dump_messages(step.messages)
                break

    second = ScriptedProvider(weather_script()[1:])
    session = weather_agent(second).session(messages=load_messages(saved))
    resumed = await session.run(None)

    assert resumed.output == uninterrupted.output
    assert resumed.messages == uninterrupted.messages
    assert [*first.requests, *second.requests] == whole.requests


async def test_a_resumed_run_can_itself_be_iterated() -> None:
    """L53: `session.iter(None)` continues step by step."""
    provider = ScriptedProvider(weather_script()[1:])
    transcript = [
        Message.user("Weather?"),
        tool_calls(tool_call("c1", "weather", city="Paris")),
        Message(
            role="tool",
            content=(ToolResultBlock(tool_use_id="c1", content=(TextBlock(text="21C"),)),),
        ),
    ]
    session = weather_agent(provider).session(messages=transcript)
    async with session.iter(None) as steps:
        kinds = [type(step).__name__ async for step in steps]
    assert kinds == ["ModelStep", "ToolStep", "ModelStep"]
    assert steps.result.output == "Paris 21C, Rome 25C."


async def test_a_session_with_nothing_to_continue_needs_a_task() -> None:
    """L53."""
    session = Agent(ScriptedProvider([Message.assistant("hi")])).session()
    with pytest.raises(InvalidArgumentError) as caught:
        session.iter(None)
    assert str(caught.value) == (
        "Session.iter() got no task, and the conversation is empty: there is no "
        "interrupted run to continue; pass a task"
    )
    await session.run("hello")
    with pytest.raises(InvalidArgumentError, match="the conversation ends with an answer"):
        await session.run(None)


async def test_an_agent_always_needs_a_task() -> None:
    agent = Agent(ScriptedProvider([]))
    with pytest.raises(ArgumentTypeError, match=r"^Agent\.iter\(\) needs a task"):
        agent.iter(None)


async def test_a_session_is_busy_while_its_steps_are_being_iterated() -> None:
    """L56: one run at a time, from the first step until the run ends or stops."""
    session = weather_agent(ScriptedProvider(weather_script())).session()
    async with session.iter("Weather?") as steps:
        await anext(steps)
        with pytest.raises(SessionBusyError):
            await session.run("again")
    assert session.messages[-1].role == "tool"  # stopped at the first turn's calls


class City(BaseModel):
    name: str


async def test_typed_output_arrives_as_the_result_after_the_last_step() -> None:
    """L50."""
    provider = ScriptedProvider(
        [tool_calls(tool_call("s1", "automata_structured_output", name="Oslo"))]
    )
    async with Agent(provider).iter("Capital of Norway?", output_type=City) as steps:
        kinds = [type(step).__name__ async for step in steps]
    assert kinds == ["ModelStep", "ToolStep"]
    assert steps.result.output == City(name="Oslo")


async def test_every_step_names_the_run_it_belongs_to() -> None:
    """L51."""
    agent = weather_agent(ScriptedProvider(weather_script()))
    async with agent.iter("Weather?") as steps:
        runs = {(step.run.agent, step.run.invocation_id) async for step in steps}
    assert runs == {("agent", steps.result.invocation_id)}


async def test_cancelling_the_caller_while_it_waits_for_a_step_cancels_the_run() -> None:
    """L55: as a cancelled run (L21): the running call gets its `canceled` result."""
    started = asyncio.Event()
    agent = Agent(ScriptedProvider([tool_calls(tool_call("c1", "slow"))]))

    @agent.tool
    async def slow() -> str:
        started.set()
        await asyncio.sleep(60)
        return "late"

    session = agent.session()
    steps = session.iter("go")

    async def consume() -> None:
        async for _ in steps:
            pass

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert tool_results(session.messages) == [
        ("c1", "canceled: tool batch aborted: run cancelled", True)
    ]


def test_iter_checks_its_arguments_before_anything_runs() -> None:
    """L50: as `run` does, naming `iter`."""
    provider = ScriptedProvider([])
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(provider).iter("go", max_step=3)  # type: ignore[call-overload]
    assert str(caught.value) == (
        "Agent.iter() got an unexpected keyword argument 'max_step'; did you mean 'max_steps'?"
    )
    assert provider.requests == []
