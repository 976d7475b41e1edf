"""A reply that is whole once its finish reason arrived is kept when the connection then
breaks (a TCP reset) or stalls before the usage chunk and `[DONE]`: only the usage,
which comes after, is lost. Real sockets: a raw server resets or holds the connection."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Literal

import pytest
from automata_wire_testing import final_response
from automata_wire_testing.raw import RawSSEServer

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ProviderError,
    RetryPolicy,
    StopReason,
    TextBlock,
    ToolUseBlock,
)
from automata.openai import OpenAIProvider

from . import replies

REQUEST = ModelRequest(messages=(Message.user("hi"),))
TEXT = replies.completion("It snows in Oslo.")
CALL = replies.completion(
    tool_calls=[replies.tool_call("c1", "weather", {"city": "Oslo"})], finish_reason="tool_calls"
)


def through_finish(body: dict[str, object]) -> list[bytes]:
    """The stream of `body` up to and including its finish-reason chunk."""
    events = replies.stream_events(body)
    return events[:-2]  # without the usage chunk and [DONE]


@pytest.fixture
def serve() -> Iterator[list[RawSSEServer]]:
    started: list[RawSSEServer] = []
    yield started
    for server in started:
        server.stop()


def provider_on(
    started: list[RawSSEServer], events: list[bytes], then: Literal["reset", "stall"]
) -> OpenAIProvider:
    server = RawSSEServer(events, then=then).start()
    started.append(server)
    return OpenAIProvider(
        "gpt-test",
        api_key="test-key",
        base_url=f"{server.base_url}/v1",
        timeout=1.0,
        retry_policy=RetryPolicy.never(),
    )


@pytest.mark.parametrize("then", ["reset", "stall"])
async def test_text_whole_at_its_finish_reason_is_kept_without_usage(
    serve: list[RawSSEServer], then: Literal["reset", "stall"]
) -> None:
    provider = provider_on(serve, through_finish(TEXT), then)
    started = time.monotonic()
    reply = await final_response(provider, REQUEST, streamed=True)
    assert reply.message.content == (TextBlock(text="It snows in Oslo."),)
    assert (reply.stop_reason, reply.usage) == (StopReason.END_TURN, None)
    assert time.monotonic() - started < 30
    await provider.aclose()


@pytest.mark.parametrize("then", ["reset", "stall"])
async def test_tool_calls_whole_at_their_finish_reason_are_kept(
    serve: list[RawSSEServer], then: Literal["reset", "stall"]
) -> None:
    """Tool-call fragments hand on no delta: the finish reason and the break both come
    while the stream is still being opened."""
    provider = provider_on(serve, through_finish(CALL), then)
    reply = await final_response(provider, REQUEST, streamed=True)
    assert reply.message.content == (ToolUseBlock(id="c1", name="weather", input={"city": "Oslo"}),)
    assert reply.stop_reason is StopReason.TOOL_USE
    await provider.aclose()


async def test_a_streamed_agent_run_ends_normally_after_a_reset_past_the_finish_reason(
    serve: list[RawSSEServer],
) -> None:
    provider = provider_on(serve, through_finish(TEXT), "reset")
    stream = Agent(provider).stream("Weather in Oslo?")
    _ = [event async for event in stream]
    assert (stream.result.output, stream.result.stop_reason) == (
        "It snows in Oslo.",
        StopReason.END_TURN,
    )
    await provider.aclose()


@pytest.mark.parametrize("then", ["reset", "stall"])
async def test_a_break_before_the_finish_reason_still_fails(
    serve: list[RawSSEServer], then: Literal["reset", "stall"]
) -> None:
    provider = provider_on(serve, through_finish(TEXT)[:-1], then)
    with pytest.raises(ProviderError) as caught:
        await final_response(provider, REQUEST, streamed=True)
    cause = "ReadError" if then == "reset" else "ReadTimeout"
    assert str(caught.value).endswith(f"/v1/chat/completions failed: {cause}")
    assert not caught.value.retryable
    await provider.aclose()
