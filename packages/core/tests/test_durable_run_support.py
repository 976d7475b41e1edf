"""What a durable runtime needs from the core besides the step API: a run named by the
caller (so a resumed run keeps its invocation id) and tools that declare themselves
idempotent."""

from __future__ import annotations

import pytest

from automata.core import (
    Agent,
    ArgumentTypeError,
    Handoff,
    Message,
    ModelStep,
    ToolContext,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


async def test_iter_runs_under_the_invocation_id_it_is_given() -> None:
    """L51: `run.invocation_id` names the run; `iter(invocation_id=...)` chooses it, and
    the tools of the run see the same id in their context."""
    seen: list[str] = []

    def probe(context: ToolContext) -> str:
        seen.append(context.invocation_id)
        return "ok"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "probe")), "done"])
    agent = Agent(provider, tools=[tool(probe)])
    async with agent.iter("go", invocation_id="thread-1/turn-3") as steps:
        ids = [step.run.invocation_id async for step in steps]
    assert ids == ["thread-1/turn-3"] * 3
    assert seen == ["thread-1/turn-3"]
    assert steps.result.invocation_id == "thread-1/turn-3"


async def test_a_session_resumed_under_the_same_invocation_id_keeps_it() -> None:
    """L53: continuing a transcript with `iter(None, invocation_id=...)` keeps the name."""
    provider = ScriptedProvider(["resumed"])
    session = Agent(provider).session([Message.user("hi")])
    async with session.iter(None, invocation_id="run-a") as steps:
        steps_seen = [step async for step in steps]
    assert isinstance(steps_seen[0], ModelStep)
    assert steps_seen[0].run.invocation_id == "run-a"


@pytest.mark.parametrize("bad", ["", 7])
async def test_an_invocation_id_that_is_not_a_non_empty_string_is_refused(bad: object) -> None:
    """L51: the id is checked when `iter` is called, before anything runs."""
    agent = Agent(ScriptedProvider([]))
    with pytest.raises(ArgumentTypeError, match="invocation_id"):
        agent.iter("go", invocation_id=bad)  # type: ignore[call-overload]


def test_tools_are_not_idempotent_unless_they_say_so() -> None:
    """L13: the loop never re-runs a call; `idempotent` only declares what a durable
    runtime may do with a call whose outcome was lost."""

    def charge(amount: int) -> str:
        return f"charged {amount}"

    def lookup(key: str) -> str:
        return key

    assert tool(charge).idempotent is False
    assert tool(lookup, idempotent=True).idempotent is True
    assert tool(idempotent=True, retries=2)(lookup).idempotent is True
    assert tool(idempotent=True, retries=2)(lookup).retries == 2


async def test_replace_gives_an_agent_with_other_parts_and_leaves_the_original() -> None:
    """L91: `replace` swaps the provider and the whole tool list (a `Handoff` in it is a
    handoff again); the prompt and the rest are the original's, which is unchanged."""

    @tool
    def real(x: int) -> str:
        """Real."""
        return f"real {x}"

    @tool(name="real")
    def stand_in(x: int) -> str:
        """Stand-in."""
        return f"stand-in {x}"

    helper = Agent(ScriptedProvider(["helped"]), name="helper")
    original = Agent(
        ScriptedProvider(["never"]), system_prompt="Be brief.", tools=[real], handoffs=[helper]
    )
    (handoff,) = [t for t in original.tools if isinstance(t, Handoff)]
    provider = ScriptedProvider([tool_calls(tool_call("c1", "real", x=2)), "done"])
    copy = original.replace(provider=provider, tools=[stand_in, handoff])
    result = await copy.run("go")
    assert tool_results(result.messages) == [("c1", "stand-in 2", False)]
    assert provider.requests[0].messages[0].text == "Be brief."
    assert [spec.name for spec in provider.requests[0].tools] == ["real", "transfer_to_helper"]
    assert original.tools[0] is real
    assert original.provider is not provider
    handed = ScriptedProvider([tool_calls(tool_call("h1", "transfer_to_helper")), "x"])
    assert (await original.replace(provider=handed).run("go")).output == "helped"
