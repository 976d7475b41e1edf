"""Failures: what is retried (and how long it waits), what is raised at once, and what a
stream that breaks part-way does."""

from __future__ import annotations

import pytest
from automata_wire_testing import Reply, WireServer

from automata.anthropic import AnthropicProvider
from automata.core import (
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    TextDelta,
)
from automata.core.providers import RetryPolicy

from . import replies
from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))
OK = replies.message([{"type": "text", "text": "fine now"}])
LONG = replies.message([{"type": "text", "text": "one two three four"}])


async def drain(provider: AnthropicProvider) -> list[object]:
    return [item async for item in provider.stream(REQUEST)]


# --- retried before anything was streamed -------------------------------------------


async def test_rate_limit_is_retried_after_the_servers_retry_after(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        replies.error(429, "rate_limit_error", "slow down", headers={"retry-after": "2"}),
        replies.reply(OK),
    )
    response = await provider.complete(REQUEST)
    assert response.message.text == "fine now"
    assert sleeps == [2.0]
    assert len(server.received) == 2


async def test_retry_after_ms_is_preferred_for_precision(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    headers = {"retry-after": "1", "retry-after-ms": "250"}
    server.enqueue(
        replies.error(429, "rate_limit_error", "slow down", headers=headers), replies.reply(OK)
    )
    await provider.complete(REQUEST)
    assert sleeps == [0.25]


async def test_overload_529_is_retried_with_backoff(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        replies.error(529, "overloaded_error", "Overloaded"),
        replies.error(529, "overloaded_error", "Overloaded"),
        replies.reply(OK),
    )
    response = await provider.complete(REQUEST)
    assert response.message.text == "fine now"
    assert sleeps == [0.5, 1.0]


async def test_unavailable_503_is_retried(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(replies.error(503, "api_error", "unavailable"), replies.reply(OK))
    assert (await provider.complete(REQUEST)).message.text == "fine now"
    assert len(sleeps) == 1


async def test_retries_stop_at_the_policy_limit_with_the_last_error(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.always(replies.error(529, "overloaded_error", "Overloaded"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    assert (caught.value.status, caught.value.retryable) == (529, True)
    assert len(server.received) == 3


async def test_a_stream_that_cannot_start_is_retried(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(replies.error(429, "rate_limit_error", "slow down"), replies.reply(OK))
    items = await drain(provider)
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert final.message.text == "fine now"
    assert len(sleeps) == 1


async def test_an_error_event_before_any_content_is_retried(
    server: WireServer, provider: AnthropicProvider
) -> None:
    opening = replies.stream_events(OK)[:1]  # message_start only
    server.enqueue(
        Reply(events=[*opening, replies.error_event("overloaded_error", "Overloaded")]),
        replies.reply(OK),
    )
    items = await drain(provider)
    assert [i.text for i in items if isinstance(i, TextDelta)] == ["fine", " now"]
    assert len(server.received) == 2


async def test_a_connection_dropped_before_any_content_is_retried(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(Reply(events=replies.stream_events(OK), drop_after=2), replies.reply(OK))
    items = await drain(provider)
    assert isinstance(items[-1], ModelResponse)
    assert len(server.received) == 2


# --- raised at once -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [
        (400, "invalid_request_error", "messages: field required"),
        (401, "authentication_error", "invalid x-api-key"),
        (403, "permission_error", "no access to this model"),
        (404, "not_found_error", "model: claude-nope"),
    ],
)
async def test_client_errors_are_raised_at_once_with_status_and_vendor_message(
    server: WireServer, provider: AnthropicProvider, status: int, kind: str, text: str
) -> None:
    server.always(replies.error(status, kind, text))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    error = caught.value
    assert (error.status, error.retryable, error.provider) == (status, False, "anthropic")
    assert text in str(error)
    assert kind in str(error)
    assert len(server.received) == 1


async def test_internal_server_error_500_is_raised_at_once(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.always(replies.error(500, "api_error", "Internal server error"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    assert (caught.value.status, caught.value.retryable) == (500, False)
    assert len(server.received) == 1


async def test_statuses_to_retry_can_be_chosen(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(retry_statuses={429, 500, 503, 529})
    server.enqueue(replies.error(500, "api_error", "Internal server error"), replies.reply(OK))
    assert (await provider.complete(REQUEST)).message.text == "fine now"


async def test_a_single_attempt_policy_never_retries(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(retry_policy=RetryPolicy.never())
    server.always(replies.error(429, "rate_limit_error", "slow down"))
    with pytest.raises(ProviderError):
        await provider.complete(REQUEST)
    assert len(server.received) == 1


async def test_the_sdks_own_retries_are_off(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(retry_policy=RetryPolicy.never())
    assert provider.client.max_retries == 0
    server.always(replies.error(529, "overloaded_error", "Overloaded"))
    with pytest.raises(ProviderError):
        await provider.complete(REQUEST)
    assert len(server.received) == 1


async def test_a_passed_in_client_is_used_without_its_own_retries(server: WireServer) -> None:
    from anthropic import AsyncAnthropic

    client = AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=5)
    provider = AnthropicProvider("claude-test", client=client, retry_policy=RetryPolicy.never())
    server.always(replies.error(529, "overloaded_error", "Overloaded"))
    try:
        with pytest.raises(ProviderError):
            await provider.complete(REQUEST)
        assert len(server.received) == 1
        assert client.max_retries == 5
    finally:
        await client.close()


def test_client_and_credentials_are_exclusive() -> None:
    from anthropic import AsyncAnthropic

    with pytest.raises(ValueError, match="either client"):
        AnthropicProvider("m", client=AsyncAnthropic(api_key="k"), api_key="other")


# --- breaking after content was streamed ---------------------------------------------


async def read_texts(provider: AnthropicProvider, texts: list[str]) -> None:
    async for item in provider.stream(REQUEST):
        if isinstance(item, TextDelta):
            texts.append(item.text)


async def collect_until_error(provider: AnthropicProvider) -> tuple[list[str], ProviderError]:
    texts: list[str] = []
    with pytest.raises(ProviderError) as caught:
        await read_texts(provider, texts)
    return texts, caught.value


def through_first_delta() -> list[bytes]:
    # message_start, ping, content_block_start, first text_delta
    return replies.stream_events(LONG)[:4]


async def test_an_error_event_after_content_raises_without_retrying(
    server: WireServer, provider: AnthropicProvider
) -> None:
    events = [*through_first_delta(), replies.error_event("overloaded_error", "Overloaded")]
    server.enqueue(Reply(events=events), replies.reply(LONG))
    texts, error = await collect_until_error(provider)
    assert texts == ["one two t"]
    assert (error.status, error.retryable) == (529, False)
    assert "Overloaded" in str(error)
    assert len(server.received) == 1


async def test_a_connection_dropped_after_content_raises_without_retrying(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(Reply(events=replies.stream_events(LONG), drop_after=4), replies.reply(LONG))
    texts, error = await collect_until_error(provider)
    assert texts == ["one two t"]
    assert not error.retryable
    assert len(server.received) == 1


async def test_a_stream_closed_before_message_stop_is_an_error(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(Reply(events=through_first_delta()), replies.reply(LONG))
    texts, error = await collect_until_error(provider)
    assert texts == ["one two t"]
    assert "before message_stop" in str(error)
    assert not error.retryable
