"""The SDK internals the fast path relies on, pinned so that an SDK upgrade that
changes them fails here, and the fallback to `messages.create` when they change.

The fast path posts the body it builds through `AsyncAnthropic.post` (with
`cast_to=httpx.Response` and the body as JSON data, `body`) and reads the reply itself; the
rest of the provider tests run on both paths (see conftest.py)."""

from __future__ import annotations

from typing import Any

import anthropic
import httpx2
import pytest
from anthropic import AsyncAnthropic
from anthropic.types import Message as SDKMessage
from automata_wire_testing import WireServer, final_response

from automata.anthropic import AnthropicProvider
from automata.anthropic._provider import fast_path_problem
from automata.core import CallOptions, Message, ModelRequest, ToolSpec
from automata.core.providers import post_raw

from . import replies

WEATHER = ToolSpec("weather", "The weather.", {"type": "object", "properties": {}})
REQUEST = ModelRequest(
    messages=(Message.system("Be brief."), Message.user("Weather in Oslo?")),
    tools=(WEATHER,),
    options=CallOptions(temperature=0.5, thinking_budget=1024, stop_sequences=("END",)),
)
ANSWER = replies.message([{"type": "text", "text": "Snow."}])


def client_on(server: WireServer) -> AsyncAnthropic:
    return AsyncAnthropic(api_key="k", base_url=server.base_url, max_retries=0)


def test_the_sdk_client_takes_the_fast_paths_requests() -> None:
    assert fast_path_problem(AsyncAnthropic(api_key="k")) is None


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
async def test_the_fast_path_sends_what_messages_create_sends(
    server: WireServer, streamed: bool
) -> None:
    for fast_path in (True, False):
        server.enqueue(replies.reply(ANSWER))
        async with AnthropicProvider(
            "claude-test",
            api_key="k",
            base_url=server.base_url,
            sampling_params=True,
            fast_path=fast_path,
        ) as provider:
            await final_response(provider, REQUEST, streamed=streamed)
    fast, sdk = server.received

    def same(headers: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in headers.items() if k != "idempotency-key"}

    assert (fast.path, fast.body, same(fast.headers)) == (sdk.path, sdk.body, same(sdk.headers))
    assert fast.body["temperature"] == 0.5


async def test_with_fast_path_off_a_call_returns_the_sdks_message(server: WireServer) -> None:
    server.enqueue(replies.reply(ANSWER))
    async with AnthropicProvider(
        "claude-test", api_key="k", base_url=server.base_url, fast_path=False
    ) as provider:
        reply = await provider.send(provider.request_params(REQUEST))
    assert isinstance(reply, SDKMessage)


class OlderAnthropic(AsyncAnthropic):
    """A client whose `post` no longer takes the body as JSON data, `body` (an SDK that
    changed it)."""

    async def post(self, path: str, *, cast_to: Any, content: Any = None, **rest: Any) -> Any:
        return await super().post(path, cast_to=cast_to, content=content, **rest)


async def test_a_client_that_no_longer_takes_the_fast_paths_requests_falls_back(
    server: WireServer,
) -> None:
    client = OlderAnthropic(api_key="k", base_url=server.base_url)
    with pytest.warns(UserWarning, match="calls go through") as warned:
        provider = AnthropicProvider("claude-test", client=client)
    assert str(warned[0].message) == (
        "AnthropicProvider: calls go through messages.create: "
        "OlderAnthropic.post takes no body, options, stream"
    )
    assert not provider.fast_path
    server.enqueue(replies.reply(ANSWER))
    response = await final_response(
        provider, ModelRequest(messages=REQUEST.messages), streamed=False
    )
    assert response.message.text == "Snow."
    await client.close()
