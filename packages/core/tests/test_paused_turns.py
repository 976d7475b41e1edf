"""A paused turn (Anthropic's `pause_turn`) is sent back as it is until the model
finishes it, within `max_steps` (docs/loop.md, L92)."""

from __future__ import annotations

import pytest

from automata.core import (
    Agent,
    IncompleteResponseError,
    MaxStepsError,
    Message,
    ModelResponse,
    RawBlock,
    StopReason,
    TextBlock,
    Usage,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

SEARCHING = Message.assistant(
    [
        TextBlock(text="Searching. "),
        RawBlock(provider="anthropic", data={"type": "server_tool_use", "id": "srvtoolu_1"}),
    ]
)
ANSWER = Message.assistant("Oslo has snow.")


def paused(message: Message = SEARCHING) -> ModelResponse:
    return ModelResponse(
        message=message,
        stop_reason=StopReason.PAUSED,
        raw_stop_reason="pause_turn",
        usage=Usage(input_tokens=3, output_tokens=2),
    )


def answered() -> ModelResponse:
    return ModelResponse(
        message=ANSWER, stop_reason=StopReason.END_TURN, usage=Usage(input_tokens=5)
    )


@pytest.mark.parametrize("streaming", [True, False], ids=["stream", "complete"])
async def test_a_paused_turn_goes_back_as_it_is_with_no_new_user_message(streaming: bool) -> None:
    """L92."""
    provider = ScriptedProvider([paused(), answered()], streaming=streaming)
    agent = Agent(provider)
    if streaming:
        async with agent.stream("Weather in Oslo?") as run:
            async for _ in run:
                pass
        result = run.result
    else:
        result = await agent.run("Weather in Oslo?")
    first, second = provider.requests
    assert second.messages == (*first.messages, SEARCHING)
    assert result.messages == (Message.user("Weather in Oslo?"), SEARCHING, ANSWER)
    assert (result.output, result.stop_reason, result.steps) == (
        "Oslo has snow.",
        StopReason.END_TURN,
        2,
    )
    assert result.usage == Usage(input_tokens=8, output_tokens=2)


async def test_a_turn_still_paused_at_max_steps_stops_the_run_keeping_its_parts() -> None:
    """L92 and L8."""
    provider = ScriptedProvider([paused(), paused(), paused()])
    agent = Agent(provider, max_steps=2)
    with pytest.raises(MaxStepsError, match="with its turn still paused") as caught:
        await agent.run("Weather in Oslo?")
    assert provider.remaining == 1
    assert caught.value.result is not None
    assert caught.value.result.messages == (
        Message.user("Weather in Oslo?"),
        SEARCHING,
        SEARCHING,
    )
    assert caught.value.result.stop_reason is StopReason.MAX_STEPS


async def test_a_paused_turn_that_calls_tools_is_incomplete() -> None:
    """L92."""
    provider = ScriptedProvider([paused(tool_calls(tool_call("1", "t")))])
    with pytest.raises(IncompleteResponseError, match="paused turn that calls tools"):
        await Agent(provider).run("go")
