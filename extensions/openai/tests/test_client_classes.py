"""Every client class of the `openai` SDK works on the default (fast) path, sending
the request its own `chat.completions.create` (or `responses.create`) sends.

For each class, one local server records two calls with the same parameters: the
SDK's own `client.chat.completions.create(...)` and `OpenAIProvider(..., client=client)`
on its default path (for the Responses API, `client.responses.create(...)` and
`OpenAIResponsesProvider(..., client=client)`). Their method, path, query, JSON body
and headers must be the same (a fresh idempotency key aside), streaming and not, and
the provider must read the reply into the right blocks.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from automata_wire_testing import WireServer, final_response
from automata_wire_testing import responses as responses_wire
from openai import AsyncAzureOpenAI, AsyncBedrockOpenAI, AsyncOpenAI

from automata.core import Message, ModelRequest, TextBlock, ToolSpec, ToolUseBlock
from automata.openai import OpenAIProvider, OpenAIResponsesProvider

from . import replies

WEATHER = ToolSpec("weather", "The weather.", {"type": "object", "properties": {}})
REQUEST = ModelRequest(
    messages=(Message.system("Be brief."), Message.user("Weather in Oslo?")),
    tools=(WEATHER,),
)
ANSWER = replies.completion(
    "Checking.",
    tool_calls=[replies.tool_call("call_1", "weather", {"city": "Oslo"})],
    finish_reason="tool_calls",
)
RESPONSES_ANSWER = responses_wire.response(
    responses_wire.message("Checking."),
    responses_wire.function_call("call_1", "weather", '{"city":"Oslo"}'),
)
API_VERSION = "2024-10-21"


async def entra_token() -> str:
    """An async Microsoft Entra ID token provider (as azure-identity's would be)."""
    return "entra-token"


CLIENTS: dict[str, Callable[[str], AsyncOpenAI]] = {
    "AsyncOpenAI": lambda url: AsyncOpenAI(api_key="k", base_url=f"{url}/v1"),
    "AsyncAzureOpenAI-model-deployment-api-key": lambda url: AsyncAzureOpenAI(
        azure_endpoint=url, api_version=API_VERSION, api_key="azure-key"
    ),
    "AsyncAzureOpenAI-azure_deployment-entra-token": lambda url: AsyncAzureOpenAI(
        azure_endpoint=url,
        azure_deployment="my-deployment",
        api_version=API_VERSION,
        azure_ad_token_provider=entra_token,
    ),
    "AsyncAzureOpenAI-azure_deployment-sync-entra-token": lambda url: AsyncAzureOpenAI(
        azure_endpoint=url,
        azure_deployment="my-deployment",
        api_version=API_VERSION,
        azure_ad_token_provider=lambda: "sync-entra-token",
    ),
    "AsyncBedrockOpenAI": lambda url: AsyncBedrockOpenAI(
        api_key="bedrock-key", aws_region="us-east-1", base_url=f"{url}/openai/v1"
    ),
}

VOLATILE_HEADERS = frozenset({"idempotency-key"})
"""A fresh idempotency key for every call: the one header that always differs."""


def comparable(received: Any) -> tuple[Any, ...]:
    headers = {k: v for k, v in received.headers.items() if k not in VOLATILE_HEADERS}
    return (received.method, received.path, received.query, received.body, headers)


async def sdk_call(client: AsyncOpenAI, params: dict[str, Any]) -> None:
    """The SDK's own call, its stream read to the end."""
    reply: Any = await client.chat.completions.create(**params)
    if params.get("stream"):
        async for _ in reply:
            pass


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", list(CLIENTS))
async def test_each_client_class_sends_what_its_chat_completions_create_sends(
    server: WireServer, name: str, streamed: bool
) -> None:
    server.always(replies.reply(ANSWER))
    client = CLIENTS[name](server.base_url)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback to chat.completions.create
        provider = OpenAIProvider("my-deployment", client=client)
    async with provider:
        params = provider.request_params(REQUEST)
        if streamed:
            params = provider.stream_params(params)
        await sdk_call(client, params)
        response = await final_response(provider, REQUEST, streamed=streamed)
    await client.close()
    sdk, ours = server.received
    assert comparable(ours) == comparable(sdk)
    assert response.message.content == (
        TextBlock(text="Checking."),
        ToolUseBlock(id="call_1", name="weather", input={"city": "Oslo"}),
    )
    assert response.raw_stop_reason == "tool_calls"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_azure_gets_the_deployment_in_the_path_and_its_own_auth(
    server: WireServer, streamed: bool
) -> None:
    """What Azure's requests look like on the default path, spelled out: the
    deployment from the model name, or from `azure_deployment`, in the path; the
    API key as `api-key`, an Entra token as a bearer token."""
    server.always(replies.reply(ANSWER))
    for name in (
        "AsyncAzureOpenAI-model-deployment-api-key",
        "AsyncAzureOpenAI-azure_deployment-entra-token",
    ):
        client = CLIENTS[name](server.base_url)
        async with OpenAIProvider("my-deployment", client=client) as provider:
            await final_response(provider, REQUEST, streamed=streamed)
        await client.close()
    by_model, by_deployment = server.received
    for sent in (by_model, by_deployment):
        assert (sent.method, sent.path, sent.query) == (
            "POST",
            "/openai/deployments/my-deployment/chat/completions",
            f"api-version={API_VERSION}",
        )
    assert by_model.headers["api-key"] == "azure-key"
    assert "authorization" not in by_model.headers
    assert by_deployment.headers["authorization"] == "Bearer entra-token"


async def sdk_responses_call(client: AsyncOpenAI, params: dict[str, Any]) -> None:
    """The SDK's own Responses call, its stream read to the end."""
    reply: Any = await client.responses.create(**params)
    if params.get("stream"):
        async for _ in reply:
            pass


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", list(CLIENTS))
async def test_each_client_class_sends_what_its_responses_create_sends(
    server: WireServer, name: str, streamed: bool
) -> None:
    server.always(responses_wire.reply(RESPONSES_ANSWER))
    client = CLIENTS[name](server.base_url)
    async with OpenAIResponsesProvider("my-deployment", client=client) as provider:
        params = provider.request_params(REQUEST)
        if streamed:
            params = provider.stream_params(params)
        await sdk_responses_call(client, params)
        response = await final_response(provider, REQUEST, streamed=streamed)
    await client.close()
    sdk, ours = server.received
    assert comparable(ours) == comparable(sdk)
    assert [block.model_copy(update={"extra": None}) for block in response.message.content] == [
        TextBlock(text="Checking."),
        ToolUseBlock(id="call_1", name="weather", input={"city": "Oslo"}),
    ]
    assert response.raw_stop_reason == "completed"


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_azure_responses_go_to_its_responses_path_with_its_own_auth(
    server: WireServer, streamed: bool
) -> None:
    """What Azure's Responses requests look like on the default path, spelled out:
    `/openai/responses` with the API version, from the model name and from
    `azure_deployment` alike (the deployment is the body's `model`, as
    `responses.create` sends it); the API key as `api-key`, an Entra token as a
    bearer token."""
    server.always(responses_wire.reply(RESPONSES_ANSWER))
    for name in (
        "AsyncAzureOpenAI-model-deployment-api-key",
        "AsyncAzureOpenAI-azure_deployment-entra-token",
    ):
        client = CLIENTS[name](server.base_url)
        async with OpenAIResponsesProvider("my-deployment", client=client) as provider:
            await final_response(provider, REQUEST, streamed=streamed)
        await client.close()
    by_model, by_deployment = server.received
    for sent in (by_model, by_deployment):
        assert (sent.method, sent.path, sent.query, sent.body["model"]) == (
            "POST",
            "/openai/responses",
            f"api-version={API_VERSION}",
            "my-deployment",
        )
    assert by_model.headers["api-key"] == "azure-key"
    assert "authorization" not in by_model.headers
    assert by_deployment.headers["authorization"] == "Bearer entra-token"
