"""Fallback from Anthropic to OpenAI on the real providers: the Anthropic Messages wire
and the OpenAI Chat Completions wire served by one local server, each provider on its
official SDK. An overloaded, unreachable or stalled Anthropic call is answered by
OpenAI; a bad request, or a stream that broke after its first text, is not."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, halves, sse_data, unreachable_url

from automata.core import (
    Agent,
    FallbackProvider,
    IncompleteResponseError,
    Message,
    ModelRequest,
    ProviderError,
    StopReason,
    TextEvent,
    Usage,
)
from automata.core.providers import RetryPolicy
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

MESSAGES = "/v1/messages"
COMPLETIONS = "/v1/chat/completions"
OPENAI_USAGE = {"prompt_tokens": 21, "completion_tokens": 4, "total_tokens": 25}


def completion(text: str) -> dict[str, Any]:
    """A chat.completion body with one choice, ending at `length`."""
    return {
        "id": "chatcmpl-fallback",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test-0601",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "finish_reason": "length",
            }
        ],
        "usage": OPENAI_USAGE,
    }


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse_data(
        {
            "id": "chatcmpl-fallback",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-test-0601",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def openai_answers(text: str) -> Any:
    """The OpenAI route: `text` as JSON, or streamed with a usage chunk."""

    def respond(request: dict[str, Any]) -> Reply:
        if not request.get("stream"):
            return Reply(json_body=completion(text))
        events = [chunk({"role": "assistant", "content": ""})]
        events += [chunk({"content": part}) for part in halves(text)]
        events.append(chunk({}, "length"))
        usage = {"id": "chatcmpl-fallback", "object": "chat.completion.chunk", "created": 1}
        events.append(
            sse_data({**usage, "model": "gpt-test-0601", "choices": [], "usage": OPENAI_USAGE})
        )
        events.append(b"data: [DONE]\n\n")
        return Reply(events=events)

    return respond


def paths(server: WireServer) -> list[str]:
    return [request.path for request in server.received]


@pytest.fixture
async def openai(server: WireServer) -> AsyncIterator[OpenAIProvider]:
    provider = OpenAIProvider(
        "gpt-test",
        api_key="sk-test",
        base_url=f"{server.base_url}/v1",
        retry_policy=RetryPolicy.never(),
    )
    yield provider
    await provider.aclose()


async def test_an_overloaded_anthropic_hands_the_run_to_openai_through_model_strings(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.base_url}/v1")
    overloaded = replies.error(529, "overloaded_error", "Overloaded", headers={"retry-after": "0"})
    server.route(MESSAGES, overloaded)
    server.route(COMPLETIONS, openai_answers("Bonjour from OpenAI"))
    agent = Agent("anthropic:claude-test", fallback=["openai:gpt-test"])
    assert isinstance(agent.provider, FallbackProvider)
    result = await agent.run("hi")
    assert result.output == "Bonjour from OpenAI"
    # Anthropic's own retries first (three attempts), then one OpenAI call.
    assert paths(server) == [MESSAGES] * 3 + [COMPLETIONS]
    assert server.received[-1].body["model"] == "gpt-test"
    assert result.usage == Usage(input_tokens=21, output_tokens=4)
    assert result.stop_reason is StopReason.MAX_TOKENS
    assert result.raw_stop_reason == "length"
    await agent.provider.aclose()


async def test_an_unreachable_anthropic_stream_is_answered_by_the_openai_stream(
    server: WireServer, make_provider: ProviderMaker, openai: OpenAIProvider
) -> None:
    anthropic = make_provider(base_url=unreachable_url(), retry_policy=RetryPolicy.never())
    server.route(COMPLETIONS, openai_answers("Hello from OpenAI"))
    agent = Agent(anthropic, fallback=[openai])
    texts = [event.text async for event in agent.stream("hi") if isinstance(event, TextEvent)]
    assert "".join(texts) == "Hello from OpenAI"
    assert paths(server) == [COMPLETIONS]
    assert server.received[0].body["stream"] is True


async def test_an_anthropic_call_past_its_deadline_is_answered_by_openai(
    server: WireServer, make_provider: ProviderMaker, openai: OpenAIProvider
) -> None:
    anthropic = make_provider(call_timeout=0.2, retry_policy=RetryPolicy.never())
    server.route(MESSAGES, Reply(stall_before=True))
    server.route(COMPLETIONS, openai_answers("Late but here"))
    request = ModelRequest(messages=(Message.user("What now?"),))
    response = await FallbackProvider([anthropic, openai]).complete(request)
    assert response.message.text == "Late but here"
    assert response.model == "gpt-test-0601"
    assert paths(server) == [MESSAGES, COMPLETIONS]


async def test_a_bad_request_to_anthropic_is_not_sent_to_openai(
    server: WireServer, make_provider: ProviderMaker, openai: OpenAIProvider
) -> None:
    server.route(MESSAGES, replies.error(400, "invalid_request_error", "max_tokens: too large"))
    server.route(COMPLETIONS, openai_answers("never"))
    agent = Agent(make_provider(), fallback=[openai])
    with pytest.raises(ProviderError, match="400 invalid_request_error") as caught:
        await agent.run("hi")
    assert caught.value.status == 400
    assert paths(server) == [MESSAGES]


async def test_an_anthropic_stream_that_breaks_after_its_first_text_is_not_sent_to_openai(
    server: WireServer, make_provider: ProviderMaker, openai: OpenAIProvider
) -> None:
    body = replies.message([{"type": "text", "text": "Hello world"}])
    events = replies.stream_events(body)  # message_start, ping, block start, text, ...
    server.route(MESSAGES, Reply(events=events, drop_after=4))
    server.route(COMPLETIONS, openai_answers("never"))
    agent = Agent(make_provider(), fallback=[openai])
    texts: list[str] = []

    async def read() -> None:
        async for event in agent.stream("hi"):
            if isinstance(event, TextEvent):
                texts.append(event.text)

    with pytest.raises(IncompleteResponseError) as caught:
        await read()
    assert texts == ["Hello"]
    assert caught.value.result is not None
    assert caught.value.result.output == "Hello"
    assert paths(server) == [MESSAGES]
