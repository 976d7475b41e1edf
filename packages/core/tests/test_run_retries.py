"""A run's `RunResult.retries`: the failed attempts its providers repeated, summed
over its calls, a failed call's included (docs/loop.md L99). Scripted replies and
errors stand for what a provider's retry policy reports."""

from __future__ import annotations

import pytest

from automata.core import (
    Agent,
    IncompleteResponseError,
    Message,
    ModelResponse,
    ProviderError,
    StopReason,
    ToolUseBlock,
    tool,
)
from automata.core.testing import BrokenStream, ScriptedProvider


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow in {city}"


def _calling(retries: int) -> ModelResponse:
    call = ToolUseBlock(id="c1", name="weather", input={"city": "Oslo"})
    return ModelResponse(Message.assistant([call]), StopReason.TOOL_USE, retries=retries)


def _answer(retries: int) -> ModelResponse:
    return ModelResponse(Message.assistant("Snow."), StopReason.END_TURN, retries=retries)


def _failed(retries: int) -> ProviderError:
    error = ProviderError("acme: 529 overloaded", provider="acme", status=529, retryable=True)
    error.retries = retries
    return error


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_run_sums_the_retries_of_its_replies(streamed: bool) -> None:
    """L99: a run's retries are its replies' summed, streamed or not."""
    agent = Agent(ScriptedProvider([_calling(2), _answer(1)]), tools=[tool(weather)])
    if streamed:
        stream = agent.stream("Weather?")
        _ = [event async for event in stream]
        result = stream.result
    else:
        result = await agent.run("Weather?")
    assert (result.output, result.steps, result.retries) == ("Snow.", 2, 3)


async def test_a_run_without_retries_reports_none() -> None:
    """L99: replies at the first try add no retries."""
    assert (await Agent(ScriptedProvider(["Hi."])).run("Hello")).retries == 0


async def test_a_failed_calls_retries_count_in_the_errors_partial_result() -> None:
    """L99: a call that failed after retrying counts its retries on the partial result."""
    agent = Agent(ScriptedProvider([_calling(1), _failed(2)]), tools=[tool(weather)])
    with pytest.raises(ProviderError) as caught:
        await agent.run("Weather?")
    result = caught.value.result
    assert result is not None
    assert (result.steps, result.retries, result.stop_reason) == (2, 3, StopReason.ERROR)


async def test_a_stream_broken_after_text_keeps_the_retries_made_before_it() -> None:
    """L99: a stream broken after content keeps the retries made before it."""
    agent = Agent(ScriptedProvider([BrokenStream("Sn", _failed(1))]))
    stream = agent.stream("Weather?")
    with pytest.raises(IncompleteResponseError) as caught:
        _ = [event async for event in stream]
    result = caught.value.result
    assert result is not None
    assert (result.stop_reason, result.retries) == (StopReason.INCOMPLETE, 1)
