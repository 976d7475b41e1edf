"""Continuing a transcript that ends with tool calls that never ran (docs/loop.md, L88):
the calls run first, as an ordinary batch, then the model carries on."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from automata.core import (
    Agent,
    Approval,
    Approver,
    InvalidArgumentError,
    Message,
    ModelStep,
    ToolContext,
    ToolPolicy,
    ToolStep,
    ToolUseBlock,
    TranscriptError,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


def cut_after_the_model_turn() -> list[Message]:
    """A persisted transcript whose last model turn asked for a call that never ran."""
    return [
        Message.system("You report weather."),
        Message.user("Weather in Paris?"),
        tool_calls(tool_call("c1", "weather", city="Paris")),
    ]


def weather_agent(
    provider: ScriptedProvider, ran: list[str], approver: Approver | None = None
) -> Agent:
    agent = Agent(provider, system_prompt="You report weather.", approver=approver)

    @agent.tool
    def weather(city: str) -> str:
        ran.append(city)
        return "21C"

    return agent


async def test_the_pending_calls_run_first_then_the_model_answers() -> None:
    """L88: the model sees the call's result in its first request; nothing is asked
    twice."""
    ran: list[str] = []
    provider = ScriptedProvider(["Paris is at 21C."])
    session = weather_agent(provider, ran).session(cut_after_the_model_turn())
    result = await session.run(None)
    assert result.output == "Paris is at 21C."
    assert ran == ["Paris"]
    assert len(provider.requests) == 1
    assert tool_results(provider.requests[0].messages) == [("c1", "21C", False)]
    roles = [message.role for message in session.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]


async def test_iter_yields_the_pending_batch_as_step_zero() -> None:
    """L88: a `ToolStep` numbered 0 (its turn came from an earlier run), then the turn."""
    ran: list[str] = []
    session = weather_agent(ScriptedProvider(["done"]), ran).session(cut_after_the_model_turn())
    async with session.iter(None) as steps:
        seen = [step async for step in steps]
    assert [type(step) for step in seen] == [ToolStep, ModelStep]
    first = seen[0]
    assert isinstance(first, ToolStep)
    assert first.step == 0
    assert [call.id for call in first.calls] == ["c1"]
    assert seen[1].step == 1


async def test_the_approver_still_decides_on_pending_calls() -> None:
    """L88: the batch is an ordinary one: a denied call is not run."""

    def deny(call: ToolUseBlock, context: ToolContext) -> Approval:
        return Approval.deny("needs a human")

    ran: list[str] = []
    provider = ScriptedProvider(["I could not check."])
    session = weather_agent(provider, ran, approver=deny).session(cut_after_the_model_turn())
    await session.run(None)
    assert ran == []
    assert tool_results(provider.requests[0].messages) == [("c1", "denied: needs a human", True)]


@pytest.mark.looptime
async def test_the_tool_policy_still_bounds_pending_calls() -> None:
    """L88: a pending call that outlives the policy's timeout gets a timeout result."""
    provider = ScriptedProvider(["Too slow."])
    agent = Agent(provider, tool_policy=ToolPolicy(timeout=0.05))

    @agent.tool
    async def weather(city: str) -> str:
        await asyncio.sleep(5)
        return "21C"

    session = agent.session(cut_after_the_model_turn())
    await asyncio.wait_for(session.run(None), timeout=5)
    ((call_id, text, is_error),) = tool_results(provider.requests[0].messages)
    assert (call_id, is_error) == ("c1", True)
    assert "timed out" in text


class City(BaseModel):
    name: str


async def test_a_pending_typed_answer_is_taken_without_calling_the_model() -> None:
    """L88: the hidden output tool's call was the answer; it is validated as usual."""
    provider = ScriptedProvider([])
    transcript = [
        Message.user("Capital of Norway?"),
        tool_calls(tool_call("s1", "automata_structured_output", name="Oslo")),
    ]
    result = await Agent(provider).session(transcript).run(None, output_type=City)
    assert result.output == City(name="Oslo")
    assert provider.requests == []


async def test_a_new_task_on_pending_calls_is_refused_and_changes_nothing() -> None:
    """L88: continue first; the transcript is left as it was."""
    ran: list[str] = []
    session = weather_agent(ScriptedProvider([]), ran).session(cut_after_the_model_turn())
    before = session.messages
    with pytest.raises(InvalidArgumentError, match=r"run\(None\)"):
        await session.run("And in Rome?")
    assert session.messages == before
    assert ran == []


def test_calls_without_results_before_the_last_message_are_still_refused() -> None:
    """L88."""
    cut = [*cut_after_the_model_turn(), Message.user("hello?")]
    with pytest.raises(TranscriptError, match="'c1'"):
        Agent(ScriptedProvider([])).session(cut)


async def test_an_approver_given_to_one_run_decides_for_that_run_only() -> None:
    """L90: the run's approver replaces the agent's for that run; the next run is the
    agent's again."""

    def deny(call: ToolUseBlock, context: ToolContext) -> Approval:
        return Approval.deny("needs a human")

    def allow(call: ToolUseBlock, context: ToolContext) -> Approval:
        return Approval.allow()

    ran: list[str] = []
    rome = tool_calls(tool_call("c2", "weather", city="Rome"))
    provider = ScriptedProvider(["Paris is at 21C.", rome, "No."])
    session = weather_agent(provider, ran, approver=deny).session(cut_after_the_model_turn())
    await session.run(None, approver=allow)
    assert ran == ["Paris"]
    await session.run("And Rome?")
    assert ran == ["Paris"]
    denied = ("c2", "denied: needs a human", True)
    assert tool_results(provider.requests[-1].messages)[-1] == denied
