"""The SDK internals the provider's raw posts rely on, pinned so that an SDK upgrade
that changes them fails here, and the fallback to `messages.create` when they change.

The provider posts the body it builds through `AsyncAnthropic.post` (with
`cast_to=httpx.Response` and the body as JSON data, `body`) and reads the reply's JSON
itself; through `messages.create` the SDK's models are dumped into the same reader. The
rest of the provider tests run on both paths (see conftest.py)."""

from __future__ import annotations

import anthropic
import httpx2
import pytest
from anthropic import AsyncAnthropic
from automata_wire_testing import WireServer, final_response
from automata_wire_testing.older_clients import PostCall, posts_of, recording_posts

from automata.anthropic import AnthropicProvider
from automata.anthropic._provider import raw_request_problem
from automata.core import CallOptions, Message, ModelRequest, ModelResponse, ToolSpec
from automata.core.providers import post_raw

from . import replies
from .conftest import OlderAnthropic, through_create

WEATHER = ToolSpec("weather", "The weather.", {"type": "object", "properties": {}})
REQUEST = ModelRequest(
    messages=(Message.system("Be brief."), Message.user("Weather in Oslo?")),
    tools=(WEATHER,),
    options=CallOptions(temperature=0.5, thinking_budget=1024, stop_sequences=("END",)),
)
ANSWER = replies.message([{"type": "text", "text": "Snow."}])


def client_on(server: WireServer) -> AsyncAnthropic:
    return AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=0)


def test_the_sdk_client_takes_the_raw_requests() -> None:
    assert raw_request_problem(AsyncAnthropic(api_key="k")) is None


@pytest.mark.parametrize(
    ("status", "kind", "error_type"),
    [
        (400, "invalid_request_error", anthropic.BadRequestError),
        (429, "rate_limit_error", anthropic.RateLimitError),
        (529, "overloaded_error", anthropic.OverloadedError),
    ],
)
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_an_error_status_of_a_raw_post_raises_the_sdks_error_for_it(
    server: WireServer,
    status: int,
    kind: str,
    error_type: type[anthropic.APIStatusError],
    stream: bool,
) -> None:
    server.enqueue(replies.error(status, kind, "no"))
    client = client_on(server)
    with pytest.raises(anthropic.APIStatusError) as caught:
        await post_raw(client, "/v1/messages", {}, response_class=httpx2.Response, stream=stream)
    await client.close()
    assert type(caught.value) is error_type
    assert (caught.value.status_code, caught.value.type, caught.value.api_message) == (
        status,
        kind,
        "no",
    )


async def test_the_sdk_builds_its_status_error_for_a_stream_error_event() -> None:
    client = AsyncAnthropic(api_key="k")
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    response = httpx2.Response(200, request=httpx2.Request("POST", "http://test/v1/messages"))
    error = client._make_status_error(f"{body}", body=body, response=response)
    assert isinstance(error, anthropic.APIStatusError)
    assert (error.type, error.api_message) == ("overloaded_error", "busy")


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_raw_post_sends_what_messages_create_sends(
    server: WireServer, streamed: bool
) -> None:
    for provider_class in (AnthropicProvider, through_create):
        server.enqueue(replies.reply(ANSWER))
        async with provider_class(
            "claude-test", api_key="k", base_url=server.base_url, sampling_params=True
        ) as provider:
            await final_response(provider, REQUEST, streamed=streamed)
    raw, sdk = server.received

    def same(headers: dict[str, str]) -> dict[str, str]:
        # The user agent names the client's class (`OlderAnthropic` through create).
        return {k: v for k, v in headers.items() if k not in ("idempotency-key", "user-agent")}

    assert (raw.path, raw.body, same(raw.headers)) == (sdk.path, sdk.body, same(sdk.headers))
    assert raw.body["temperature"] == 0.5


@pytest.mark.filterwarnings("ignore:AnthropicProvider does not send temperature")
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_call_posts_through_the_clients_post_and_reads_the_http_response(
    server: WireServer, stream: bool
) -> None:
    server.enqueue(replies.reply(ANSWER))
    client = recording_posts(AsyncAnthropic)(api_key="k", base_url=server.base_url)
    provider = AnthropicProvider("claude-test", client=client)
    assert provider.posts_raw
    response = await final_response(provider, REQUEST, streamed=stream)
    assert response.message.text == "Snow."
    assert posts_of(client) == [PostCall("/v1/messages", httpx2.Response, stream)]
    await client.close()


@pytest.mark.parametrize("fast_path", [True, False])
async def test_fast_path_is_deprecated_and_changes_nothing(
    server: WireServer, fast_path: bool
) -> None:
    with pytest.warns(DeprecationWarning, match=r"fast_path=\.\.\.\) is deprecated"):
        provider = AnthropicProvider(
            "claude-test", api_key="k", base_url=server.base_url, fast_path=fast_path
        )
    assert provider.posts_raw
    server.enqueue(replies.reply(ANSWER))
    request = ModelRequest(messages=REQUEST.messages)
    response = await final_response(provider, request, streamed=False)
    assert isinstance(response, ModelResponse)
    assert response.message.text == "Snow."
    await provider.aclose()


async def test_a_client_that_no_longer_takes_raw_posts_warns_and_goes_through_create(
    server: WireServer,
) -> None:
    client = OlderAnthropic(api_key="k", base_url=server.base_url)
    with pytest.warns(UserWarning, match="calls go through") as warned:
        provider = AnthropicProvider("claude-test", client=client)
    assert str(warned[0].message) == (
        "AnthropicProvider: calls go through messages.create: "
        "OlderAnthropic.post takes no body, options, stream"
    )
    assert not provider.posts_raw
    server.enqueue(replies.reply(ANSWER))
    response = await final_response(
        provider, ModelRequest(messages=REQUEST.messages), streamed=False
    )
    assert response.message.text == "Snow."
    await client.close()
