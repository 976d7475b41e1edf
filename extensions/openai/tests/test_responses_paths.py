"""OpenAIResponsesProvider posts through the SDK client's `post` and reads the reply's
JSON itself; a client whose `post` no longer takes those requests goes through
`responses.create`, and the SDK's models it returns are dumped into the same reader,
so both paths give the same blocks, usage, stop reasons and errors."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from automata_wire_testing import Reply, WireServer, final_response
from automata_wire_testing import responses as wire
from automata_wire_testing.older_clients import PostCall, posts_of, recording_posts
from openai import AsyncOpenAI

from automata.core import Message, ModelRequest, ModelResponse, ProviderError, ToolSpec
from automata.openai import OpenAIResponsesProvider

from .older_client import OlderOpenAI

REQUEST = ModelRequest(
    messages=(Message.user("Weather in Oslo?"),),
    tools=(ToolSpec("weather", "The weather.", {"type": "object", "properties": {}}),),
)
CITATION = {
    "type": "url_citation",
    "url": "https://example.com/oslo",
    "title": "Oslo",
    "start_index": 0,
    "end_index": 4,
}
SEARCH = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": None}
REPLIES: dict[str, dict[str, Any]] = {
    "reasoning-cited-text-call-and-a-raw-item": wire.response(
        wire.reasoning("Look it up.", "Then answer."),
        SEARCH,
        wire.message("Snow in Oslo.", annotations=[CITATION]),
        wire.function_call("call_1", "weather", '{"city":"Oslo"}'),
        usage=wire.usage(1200, 300, cached=1000, reasoning_tokens=256),
    ),
    "refusal": wire.response(wire.refusal("I can't help with that.")),
    "incomplete": wire.response(
        wire.message("Once upon"), status="incomplete", incomplete_reason="max_output_tokens"
    ),
    "arguments-that-are-not-json": wire.response(
        wire.function_call("call_1", "weather", '{"city":'), usage=None
    ),
}


def through_create(server: WireServer) -> OpenAIResponsesProvider:
    client = OlderOpenAI(api_key="k", base_url=f"{server.base_url}/v1")
    with pytest.warns(UserWarning, match="calls go through responses.create"):
        return OpenAIResponsesProvider("gpt-test", client=client)


async def outcome(provider: OpenAIResponsesProvider, *, streamed: bool) -> ModelResponse | str:
    """The reply read, or the error it raised (its message)."""
    try:
        return await final_response(provider, REQUEST, streamed=streamed)
    except ProviderError as error:
        return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_a_call_posts_through_the_clients_post_and_reads_the_http_response(
    server: WireServer, stream: bool
) -> None:
    server.enqueue(wire.reply(wire.response(wire.message("Snow."))))
    client = recording_posts(AsyncOpenAI)(api_key="k", base_url=f"{server.base_url}/v1")
    provider = OpenAIResponsesProvider("gpt-test", client=client)
    response = await final_response(provider, REQUEST, streamed=stream)
    assert response.message.text == "Snow."
    assert posts_of(client) == [PostCall("/responses", httpx2.Response, stream)]
    await client.close()


async def test_a_client_that_no_longer_takes_raw_posts_warns_and_goes_through_create(
    server: WireServer,
) -> None:
    client = OlderOpenAI(api_key="k", base_url=f"{server.base_url}/v1")
    with pytest.warns(UserWarning, match="calls go through") as warned:
        provider = OpenAIResponsesProvider("gpt-test", client=client)
    assert str(warned[0].message) == (
        "OpenAIResponsesProvider: calls go through responses.create: "
        "OlderOpenAI.post takes no body, options, stream"
    )
    server.enqueue(wire.reply(wire.response(wire.message("Snow."))))
    assert (await provider.complete(REQUEST)).message.text == "Snow."
    await client.close()


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", list(REPLIES))
async def test_the_sdks_models_are_read_as_the_raw_replys_json_is(
    server: WireServer, name: str, streamed: bool
) -> None:
    server.always(wire.reply(REPLIES[name]))
    async with OpenAIResponsesProvider(
        "gpt-test", api_key="k", base_url=f"{server.base_url}/v1"
    ) as raw:
        from_json = await outcome(raw, streamed=streamed)
    via_models = through_create(server)
    from_models = await outcome(via_models, streamed=streamed)
    await via_models.client.close()
    assert isinstance(from_json, ModelResponse)
    assert from_models == from_json


@pytest.mark.parametrize(
    ("reply", "streamed"),
    [
        (Reply(body=b"upstream says no", headers={"content-type": "text/plain"}), False),
        (Reply(events=wire.failed_events("server_error", "The model crashed.")), True),
        (Reply(json_body=wire.response(status="failed", error={"message": "Crashed."})), False),
    ],
    ids=["not-a-response", "failed-stream", "failed-response"],
)
async def test_a_bad_reply_fails_alike_on_both_paths(
    server: WireServer, reply: Reply, streamed: bool
) -> None:
    server.always(reply)
    async with OpenAIResponsesProvider(
        "gpt-test", api_key="k", base_url=f"{server.base_url}/v1"
    ) as raw:
        from_json = await outcome(raw, streamed=streamed)
    via_models = through_create(server)
    from_models = await outcome(via_models, streamed=streamed)
    await via_models.client.close()
    assert isinstance(from_json, str)
    assert from_models == from_json
