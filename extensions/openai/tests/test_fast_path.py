"""The SDK internals the default path relies on, pinned so that an SDK upgrade that
changes them fails here, and the fallback to `chat.completions.create` when they
change.

The default path posts the body it builds through `AsyncOpenAI.post` (with
`cast_to=httpx.Response`, the body as JSON data, `body` and the API key as a bearer
token) and reads the reply's JSON itself; through `chat.completions.create` the SDK's
models are dumped to their JSON and read by the same reader. The rest of the provider
tests run on both paths (see conftest.py)."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from automata_wire_testing import WireServer, final_response
from automata_wire_testing.older_clients import PostCall, posts_of, recording_posts
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletion

from automata.core import CallOptions, Message, ModelRequest, ToolSpec
from automata.core.providers import post_raw, raw_post_problem
from automata.openai import OpenAIProvider

from . import replies
from .older_client import OlderOpenAI, through_create

WEATHER = ToolSpec("weather", "The weather.", {"type": "object", "properties": {}})
REQUEST = ModelRequest(
    messages=(Message.system("Be brief."), Message.user("Weather in Oslo?")),
    tools=(WEATHER,),
    options=CallOptions(temperature=0.5, thinking_budget=1024, stop_sequences=("END",)),
)


def test_the_sdk_client_takes_the_default_paths_requests() -> None:
    assert raw_post_problem(AsyncOpenAI(api_key="k")) is None


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, openai.BadRequestError),
        (429, openai.RateLimitError),
        (503, openai.InternalServerError),
    ],
)
@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_an_error_status_of_a_raw_post_raises_the_sdks_error_for_it(
    server: WireServer, status: int, error_type: type[openai.APIStatusError], stream: bool
) -> None:
    server.enqueue(replies.error(status, "some_code", "no"))
    client = AsyncOpenAI(api_key="k", base_url=f"{server.base_url}/v1", max_retries=0)
    with pytest.raises(openai.APIStatusError) as caught:
        await post_raw(
            client, "/chat/completions", {}, response_class=httpx2.Response, stream=stream
        )
    await client.close()
    assert type(caught.value) is error_type
    assert (caught.value.status_code, caught.value.code, caught.value.body) == (
        status,
        "some_code",
        {"message": "no", "type": "invalid_request_error", "param": None, "code": "some_code"},
    )


def test_the_sdks_error_for_an_error_inside_a_stream_takes_its_code_from_the_body() -> None:
    request = httpx2.Request("POST", "http://test/v1/chat/completions")
    body = {"message": "busy", "type": "server_error", "code": "server_overloaded"}
    error = openai.APIError(message="busy", request=request, body=body)
    assert (error.code, error.type, error.message) == ("server_overloaded", "server_error", "busy")


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_the_default_path_sends_what_chat_completions_create_sends(
    server: WireServer, streamed: bool
) -> None:
    for build in (OpenAIProvider, through_create):
        server.enqueue(replies.reply(replies.completion("Snow.")))
        async with build("gpt-test", api_key="k", base_url=f"{server.base_url}/v1") as provider:
            await final_response(provider, REQUEST, streamed=streamed)
    posted, created = server.received

    def headers(received: Any) -> dict[str, str]:  # the user agent names the client class
        return {k: v for k, v in received.headers.items() if k != "user-agent"}

    assert (posted.path, posted.body, headers(posted)) == (
        created.path,
        created.body,
        headers(created),
    )
    assert posted.headers["authorization"] == "Bearer k"


async def test_a_client_that_no_longer_takes_the_default_paths_requests_falls_back(
    server: WireServer,
) -> None:
    client = OlderOpenAI(api_key="k", base_url=f"{server.base_url}/v1")
    with pytest.warns(UserWarning, match="calls go through") as warned:
        provider = OpenAIProvider("gpt-test", client=client)
    assert str(warned[0].message) == (
        "OpenAIProvider: calls go through chat.completions.create: "
        "OlderOpenAI.post takes no body, options, stream"
    )
    server.enqueue(replies.reply(replies.completion("Snow.")))
    response = await final_response(provider, REQUEST, streamed=False)
    assert response.message.text == "Snow."
    await client.close()


@pytest.mark.parametrize("fast_path", [True, False])
async def test_fast_path_is_deprecated_and_false_still_goes_through_create(
    server: WireServer, fast_path: bool
) -> None:
    client = recording_posts(AsyncOpenAI)(api_key="k", base_url=f"{server.base_url}/v1")
    with pytest.warns(DeprecationWarning, match="fast_path is deprecated"):
        provider = OpenAIProvider("gpt-test", client=client, fast_path=fast_path)
    server.enqueue(replies.reply(replies.completion("Snow.")))
    response = await final_response(provider, REQUEST, streamed=False)
    assert response.message.text == "Snow."
    cast_to = httpx2.Response if fast_path else ChatCompletion  # the SDK's create casts
    assert posts_of(client) == [PostCall("/chat/completions", cast_to, False)]
    await client.close()
