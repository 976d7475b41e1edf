"""Every client class of the `anthropic` SDK works on the default (fast) path, sending
the request its own `messages.create` sends.

For each class, one local server records two calls with the same parameters: the
SDK's own `client.messages.create(...)` and `AnthropicProvider(..., client=client)` on
its default path. Their method, path, query, JSON body and headers must be the same
(a fresh idempotency key and, for signed requests, the signing time aside), streaming
and not, and the provider must read the reply (Bedrock streams in AWS event-stream
frames) into the same blocks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from anthropic import (
    AsyncAnthropic,
    AsyncAnthropicAWS,
    AsyncAnthropicBedrock,
    AsyncAnthropicBedrockMantle,
    AsyncAnthropicFoundry,
    AsyncAnthropicGoogleCloud,
    AsyncAnthropicVertex,
)
from anthropic._constants import ANTHROPIC_API_VERSION
from automata_wire_testing import Reply, WireServer, final_response
from automata_wire_testing.bedrock import stream_reply
from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
from botocore.credentials import Credentials as AWSCredentials  # type: ignore[import-untyped]
from google.oauth2.credentials import Credentials as GoogleCredentials

from automata.anthropic import AnthropicProvider
from automata.anthropic._provider import AnthropicClient
from automata.core import Message, ModelRequest, TextBlock, ToolSpec, ToolUseBlock
from automata.core.providers import Usage

from . import replies

MODEL = "claude-test"
WEATHER = ToolSpec("weather", "The weather.", {"type": "object", "properties": {}})
REQUEST = ModelRequest(
    messages=(Message.system("Be brief."), Message.user("Weather in Oslo?")),
    tools=(WEATHER,),
)
ANSWER = replies.message(
    [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
    ],
    stop_reason="tool_use",
)
AWS_KEY, AWS_SECRET, AWS_REGION = (
    "AKIDEXAMPLE",
    "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    "eu-west-1",
)

ClientMaker = Callable[[str], AnthropicClient]


def google_credentials() -> GoogleCredentials:
    """Real google-auth user credentials holding a token valid for an hour: used as
    they are, nothing refreshed over the network."""
    expiry = datetime.now(UTC).replace(tzinfo=None) + timedelta(hours=1)
    return GoogleCredentials(token="ya29.test-token", expiry=expiry)  # type: ignore[no-untyped-call]


CLIENTS: dict[str, ClientMaker] = {
    "AsyncAnthropic": lambda url: AsyncAnthropic(api_key="k", base_url=url),
    "AsyncAnthropicBedrock-sigv4": lambda url: AsyncAnthropicBedrock(
        aws_access_key=AWS_KEY, aws_secret_key=AWS_SECRET, aws_region=AWS_REGION, base_url=url
    ),
    "AsyncAnthropicBedrock-api-key": lambda url: AsyncAnthropicBedrock(
        api_key="bedrock-key", aws_region=AWS_REGION, base_url=url
    ),
    "AsyncAnthropicBedrockMantle": lambda url: AsyncAnthropicBedrockMantle(
        aws_access_key=AWS_KEY, aws_secret_key=AWS_SECRET, aws_region=AWS_REGION, base_url=url
    ),
    "AsyncAnthropicVertex-access-token": lambda url: AsyncAnthropicVertex(
        region="us-east5", project_id="proj", access_token="ya29.access", base_url=url
    ),
    "AsyncAnthropicVertex-credentials": lambda url: AsyncAnthropicVertex(
        region="us-east5", project_id="proj", credentials=google_credentials(), base_url=url
    ),
    "AsyncAnthropicFoundry": lambda url: AsyncAnthropicFoundry(api_key="foundry-key", base_url=url),
    "AsyncAnthropicAWS": lambda url: AsyncAnthropicAWS(
        aws_access_key=AWS_KEY,
        aws_secret_key=AWS_SECRET,
        aws_region=AWS_REGION,
        workspace_id="wrkspc_1",
        base_url=url,
    ),
    "AsyncAnthropicGoogleCloud": lambda url: AsyncAnthropicGoogleCloud(
        project="proj",
        location="us-east5",
        workspace_id="wrkspc_1",
        credentials=google_credentials(),
        base_url=url,
    ),
}

VOLATILE_HEADERS = frozenset({"idempotency-key", "x-amz-date", "authorization"})
"""Headers that differ between any two calls: a fresh idempotency key, and for
signed requests the signing time and the signature over it (checked apart)."""


def stream_events_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The Messages stream events for `body`, as JSON objects (what Bedrock frames)."""
    return [json.loads(event.split(b"data: ", 1)[1]) for event in replies.stream_events(body)]


def serve(server: WireServer) -> None:
    """Answer as each platform does: Bedrock's streaming path in event-stream frames,
    everything else as JSON or server-sent events, as the request asks."""
    server.route("/invoke-with-response-stream", stream_reply(stream_events_of(ANSWER)))
    server.route("/invoke", Reply(json_body=ANSWER))
    server.route(":streamRawPredict", Reply(events=replies.stream_events(ANSWER)))
    server.always(replies.reply(ANSWER))


def comparable(received: Any) -> tuple[Any, ...]:
    headers = {k: v for k, v in received.headers.items() if k not in VOLATILE_HEADERS}
    return (received.method, received.path, received.query, received.body, headers)


def sigv4_signature(received: Any, base_url: str) -> str:
    """The SigV4 signature of a received request, recomputed with botocore from the
    static test credentials, for the region and service and at the signing time the
    request names."""
    authorization = received.headers["authorization"]
    signed = authorization.split("SignedHeaders=")[1].split(",")[0]
    _, _, region, service, _ = authorization.split("Credential=")[1].split(",")[0].split("/")
    headers = {name: received.headers[name] for name in signed.split(";")}
    url = f"{base_url}{received.path}" + (f"?{received.query}" if received.query else "")
    request = AWSRequest(method=received.method, url=url, headers=headers, data=received.content)
    request.context["timestamp"] = received.headers["x-amz-date"]
    signer = SigV4Auth(AWSCredentials(AWS_KEY, AWS_SECRET), service, region)
    signature: str = signer.signature(
        signer.string_to_sign(request, signer.canonical_request(request)), request
    )
    return signature


async def sdk_call(client: Any, params: dict[str, Any]) -> None:
    """The SDK's own call, its stream read to the end."""
    reply = await client.messages.create(**params)
    if params.get("stream"):
        async for _ in reply:
            pass


@pytest.fixture
def recording(server: WireServer) -> WireServer:
    serve(server)
    return server


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", list(CLIENTS))
async def test_each_client_class_sends_what_its_messages_create_sends(
    recording: WireServer, name: str, streamed: bool
) -> None:
    client = CLIENTS[name](recording.base_url)
    async with AnthropicProvider(MODEL, client=client, cache_prompt=False) as provider:
        assert provider.posts_raw
        params = provider.request_params(REQUEST)
        if streamed:
            params = provider.stream_params(params)
        await sdk_call(client, params)
        response = await final_response(provider, REQUEST, streamed=streamed)
    await client.close()
    sdk, ours = recording.received
    assert comparable(ours) == comparable(sdk)
    if ours.headers.get("authorization", "").startswith("AWS4-HMAC-SHA256"):
        for sent in (sdk, ours):
            signature = sent.headers["authorization"].rsplit("Signature=", 1)[1]
            assert signature == sigv4_signature(sent, recording.base_url)
    else:
        assert ours.headers.get("authorization") == sdk.headers.get("authorization")
    assert response.message.content == (
        TextBlock(text="Checking."),
        ToolUseBlock(id="toolu_1", name="weather", input={"city": "Oslo"}),
    )
    assert (response.raw_stop_reason, response.usage) == (
        "tool_use",
        Usage(input_tokens=12, output_tokens=7, cache_read_tokens=5, cache_write_tokens=3),
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_bedrock_and_vertex_get_the_model_and_stream_in_the_path(
    recording: WireServer, streamed: bool
) -> None:
    """What the two platforms' URLs look like on the default path, spelled out."""
    for name in ("AsyncAnthropicBedrock-sigv4", "AsyncAnthropicVertex-access-token"):
        client = CLIENTS[name](recording.base_url)
        async with AnthropicProvider("claude-x@1", client=client) as provider:
            await final_response(provider, REQUEST, streamed=streamed)
        await client.close()
    bedrock, vertex = recording.received
    assert bedrock.path == (
        "/model/claude-x@1/invoke-with-response-stream" if streamed else "/model/claude-x@1/invoke"
    )
    assert vertex.path == (
        "/projects/proj/locations/us-east5/publishers/anthropic/models/claude-x@1:"
        + ("streamRawPredict" if streamed else "rawPredict")
    )
    for sent in (bedrock, vertex):
        assert "model" not in sent.body
        assert sent.body["anthropic_version"] == ANTHROPIC_API_VERSION
    assert "stream" not in bedrock.body
    assert vertex.body.get("stream", False) is streamed
    assert bedrock.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={AWS_KEY}/")
    assert vertex.headers["authorization"] == "Bearer ya29.access"
