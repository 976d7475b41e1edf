"""Failures: what is retried (and how long it waits), what is raised at once, and what a
stream that breaks part-way does."""

from __future__ import annotations

import pytest
from automata_wire_testing import Reply, WireServer
from openai import AsyncOpenAI

from automata.core import Message, ModelRequest, ModelResponse, ProviderError, TextDelta
from automata.core.providers import RetryPolicy
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

REQUEST = ModelRequest(messages=(Message.user("hi"),))
OK = replies.completion("fine now")
LONG = replies.completion("one two three four")


async def drain(provider: OpenAIProvider) -> list[object]:
    return [item async for item in provider.stream(REQUEST)]


# --- retried before anything was streamed -------------------------------------------


async def test_rate_limit_is_retried_after_the_servers_retry_after(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        replies.error(
            429, "rate_limit_exceeded", "Rate limit reached", headers={"retry-after": "3"}
        ),
        replies.reply(OK),
    )
    response = await provider.complete(REQUEST)
    assert response.message.text == "fine now"
    assert sleeps == [3.0]
    assert len(server.received) == 2


async def test_overload_529_is_retried_with_backoff(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        replies.error(529, None, "overloaded", kind="server_error"),
        replies.error(529, None, "overloaded", kind="server_error"),
        replies.reply(OK),
    )
    assert (await provider.complete(REQUEST)).message.text == "fine now"
    assert sleeps == [0.5, 1.0]


async def test_unavailable_503_is_retried(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    server.enqueue(replies.error(503, None, "unavailable", kind="server_error"), replies.reply(OK))
    assert (await provider.complete(REQUEST)).message.text == "fine now"
    assert len(sleeps) == 1


async def test_retries_stop_at_the_policy_limit_with_the_last_error(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.always(replies.error(429, "rate_limit_exceeded", "Rate limit reached"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    assert (caught.value.status, caught.value.retryable) == (429, True)
    assert len(server.received) == 3


async def test_a_stream_that_cannot_start_is_retried(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    server.enqueue(replies.error(429, "rate_limit_exceeded", "slow down"), replies.reply(OK))
    items = await drain(provider)
    final = items[-1]
    assert isinstance(final, ModelResponse)
    assert final.message.text == "fine now"
    assert len(sleeps) == 1


async def test_an_error_chunk_before_any_content_is_retried_when_retryable(
    server: WireServer, provider: OpenAIProvider
) -> None:
    opening = replies.stream_events(OK)[:1]  # role chunk with empty content
    server.enqueue(
        Reply(events=[*opening, replies.error_chunk("rate_limit_exceeded", "slow down")]),
        replies.reply(OK),
    )
    items = await drain(provider)
    assert [i.text for i in items if isinstance(i, TextDelta)] == ["fine", " now"]
    assert len(server.received) == 2


async def test_a_connection_dropped_before_any_content_is_retried(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.enqueue(Reply(events=replies.stream_events(OK), drop_after=1), replies.reply(OK))
    items = await drain(provider)
    assert isinstance(items[-1], ModelResponse)
    assert len(server.received) == 2


# --- raised at once -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code", "text"),
    [
        (400, "invalid_value", "Invalid value for 'messages'."),
        (401, "invalid_api_key", "Incorrect API key provided."),
        (403, "unsupported_country_region_territory", "Country not supported."),
        (404, "model_not_found", "The model `nope` does not exist."),
    ],
)
async def test_client_errors_are_raised_at_once_with_status_and_vendor_message(
    server: WireServer, provider: OpenAIProvider, status: int, code: str, text: str
) -> None:
    server.always(replies.error(status, code, text))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    error = caught.value
    assert (error.status, error.retryable, error.provider) == (status, False, "openai")
    assert text in str(error)
    assert code in str(error)
    assert len(server.received) == 1


async def test_internal_server_error_500_is_raised_at_once(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.always(replies.error(500, None, "The server had an error", kind="server_error"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(REQUEST)
    assert (caught.value.status, caught.value.retryable) == (500, False)
    assert len(server.received) == 1


async def test_statuses_to_retry_can_be_chosen(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(retry_statuses={429, 500, 503})
    server.enqueue(replies.error(500, None, "oops", kind="server_error"), replies.reply(OK))
    assert (await provider.complete(REQUEST)).message.text == "fine now"


async def test_the_sdks_own_retries_are_off(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(retry_policy=RetryPolicy.never())
    assert provider.client.max_retries == 0
    server.always(replies.error(503, None, "unavailable", kind="server_error"))
    with pytest.raises(ProviderError):
        await provider.complete(REQUEST)
    assert len(server.received) == 1


async def test_a_passed_in_client_is_used_without_its_own_retries(server: WireServer) -> None:
    client = AsyncOpenAI(api_key="k", base_url=f"{server.base_url}/v1", max_retries=5)
    provider = OpenAIProvider("gpt-test", client=client, retry_policy=RetryPolicy.never())
    server.always(replies.error(503, None, "unavailable", kind="server_error"))
    try:
        with pytest.raises(ProviderError):
            await provider.complete(REQUEST)
        assert len(server.received) == 1
        assert client.max_retries == 5
    finally:
        await client.close()


def test_client_and_credentials_are_exclusive() -> None:
    with pytest.raises(ValueError, match="either client"):
        OpenAIProvider("m", client=AsyncOpenAI(api_key="k"), base_url="http://x")


# --- breaking after content was streamed ---------------------------------------------


async def read_texts(provider: OpenAIProvider, texts: list[str]) -> None:
    async for item in provider.stream(REQUEST):
        if isinstance(item, TextDelta):
            texts.append(item.text)


async def collect_until_error(provider: OpenAIProvider) -> tuple[list[str], ProviderError]:
    texts: list[str] = []
    with pytest.raises(ProviderError) as caught:
        await read_texts(provider, texts)
    return texts, caught.value


def through_first_delta() -> list[bytes]:
    return replies.stream_events(LONG)[:2]  # role chunk, first content chunk


async def test_an_error_chunk_after_content_raises_without_retrying(
    server: WireServer, provider: OpenAIProvider
) -> None:
    events = [*through_first_delta(), replies.error_chunk("server_overloaded", "try later")]
    server.enqueue(Reply(events=events), replies.reply(LONG))
    texts, error = await collect_until_error(provider)
    assert texts == ["one two t"]
    assert not error.retryable
    assert "try later" in str(error)
    assert len(server.received) == 1


async def test_a_connection_dropped_after_content_raises_without_retrying(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.enqueue(Reply(events=replies.stream_events(LONG), drop_after=2), replies.reply(LONG))
    texts, error = await collect_until_error(provider)
    assert texts == ["one two t"]
    assert not error.retryable
    assert len(server.received) == 1


async def test_a_stream_closed_before_a_finish_reason_is_an_error(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.enqueue(Reply(events=through_first_delta()), replies.reply(LONG))
    texts, error = await collect_until_error(provider)
    assert texts == ["one two t"]
    assert "before a finish reason" in str(error)
    assert not error.retryable
