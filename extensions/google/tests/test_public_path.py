"""A client without the API client the direct path posts through goes through the SDK's
public `models.generate_content` / `generate_content_stream`: the same bytes on the
wire, the same blocks read back, the same errors."""

from __future__ import annotations

import base64
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, final_response, tool_message
from automata_wire_testing import gemini as wire
from automata_wire_testing.fixtures import Providers
from automata_wire_testing.older_clients import public_aio_only
from google import genai
from google.genai import types

from automata.core import (
    CallOptions,
    ImageBlock,
    Message,
    OutputSchema,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
)
from automata.core.providers import ProviderError
from automata.google import GoogleProvider
from automata.google._public import raw_request_problem

from . import test_conformance as conformance
from . import test_deadlines as deadlines
from .conftest import MODEL

WEATHER = ToolSpec(
    "weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
PublicClient = public_aio_only(genai.Client)
BOTH = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


def public_client(base_url: str, **http: Any) -> genai.Client:
    """A `PublicClient` (the SDK's client narrowed to its public surface) on `base_url`."""
    options = types.HttpOptions(base_url=base_url, api_version="v1beta", **http)
    client: genai.Client = PublicClient(api_key="test-key", http_options=options)
    return client


@pytest.fixture
async def providers(server: WireServer) -> AsyncIterator[tuple[GoogleProvider, GoogleProvider]]:
    """The direct path and the public path, each on a client of the same settings."""
    http = types.HttpOptions(base_url=server.base_url, api_version="v1beta")
    direct_client = genai.Client(api_key="test-key", http_options=http)
    narrowed = public_client(server.base_url)
    with pytest.warns(UserWarning, match="calls go through models.generate_content"):
        public = GoogleProvider(MODEL, client=narrowed)
    direct = GoogleProvider(MODEL, client=direct_client)
    yield direct, public
    for client in (direct_client, narrowed):
        await client.aio.aclose()


def test_a_client_without_the_api_client_is_named_and_takes_the_public_path(
    providers: tuple[GoogleProvider, GoogleProvider],
) -> None:
    direct, public = providers
    assert (direct.posts_raw, public.posts_raw) == (True, False)
    assert raw_request_problem(public.client) == "PublicClient.aio has no _api_client"
    assert raw_request_problem(direct.client) is None


REQUEST = ask(
    Message.system("Be brief."),
    Message.user(
        [TextBlock(text="Where is this?"), ImageBlock(media_type="image/png", data=b"\x89PNG")]
    ),
    Message.assistant(
        [
            ThinkingBlock(thinking="Two lookups.", signature="dGhvdWdodA=="),
            ToolUseBlock(
                id="fc_1",
                name="weather",
                input={"city": "Oslo"},
                extra={"google": {"part": {"thoughtSignature": "c2lnLW9uZQ=="}}},
            ),
            ToolUseBlock(
                id="fc_2",
                name="weather",
                input={"city": "Rome"},
                extra={"google": {"part": {"thoughtSignature": "_-8="}}},
            ),
            RawBlock(
                provider="google",
                data={"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            ),
        ]
    ),
    tool_message("fc_1", TextBlock(text="snow")),
    tool_message("fc_2", TextBlock(text="sun")),
    tools=(WEATHER,),
    output_schema=OutputSchema("Answer", {"type": "object", "properties": {}}),
    options=CallOptions(max_tokens=64, temperature=0.2, thinking_budget=512, tool_choice="auto"),
)


@BOTH
async def test_both_paths_send_the_same_bytes_to_the_same_url(
    server: WireServer, providers: tuple[GoogleProvider, GoogleProvider], streamed: bool
) -> None:
    server.always(wire.answer(wire.response([{"text": "ok"}])))
    for provider in providers:
        await final_response(provider, REQUEST, streamed=streamed)
    by_direct, by_public = server.received
    assert by_public.content == by_direct.content
    assert (by_public.path, by_public.query) == (by_direct.path, by_direct.query)
    assert wire.check_request(by_public.body) is None
    parts = by_public.body["contents"][1]["parts"]
    assert [p.get("thoughtSignature") for p in parts] == [
        "dGhvdWdodA==",
        "c2lnLW9uZQ==",
        "_-8=",
        None,
    ]
    assert base64.b64decode(by_public.body["contents"][0]["parts"][1]["inlineData"]["data"])


@BOTH
async def test_both_paths_read_a_reply_into_the_same_blocks_usage_and_stop(
    server: WireServer, providers: tuple[GoogleProvider, GoogleProvider], streamed: bool
) -> None:
    parts: list[dict[str, Any]] = [
        {"text": "Thinking.", "thought": True, "thoughtSignature": "QUJD"},
        {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}, "thoughtSignature": "_-8="},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}},
        {"text": "Done."},
    ]
    usage = {
        "promptTokenCount": 100,
        "cachedContentTokenCount": 60,
        "toolUsePromptTokenCount": 5,
        "candidatesTokenCount": 9,
        "thoughtsTokenCount": 4,
    }
    grounding = {"webSearchQueries": ["oslo"]}
    body = wire.response(parts, usage=usage, candidate={"groundingMetadata": grounding})
    server.always(wire.answer(body))
    direct, public = [await final_response(p, REQUEST, streamed=streamed) for p in providers]
    assert public.message == direct.message
    assert (public.usage, public.stop_reason, public.raw_stop_reason, public.model) == (
        direct.usage,
        direct.stop_reason,
        direct.raw_stop_reason,
        direct.model,
    )
    assert public.message.extra == {"google": {"groundingMetadata": grounding}}


@BOTH
async def test_an_error_status_is_the_same_provider_error_on_both_paths(
    server: WireServer, providers: tuple[GoogleProvider, GoogleProvider], streamed: bool
) -> None:
    server.always(wire.error(400, "bad thing"))
    errors = []
    for provider in providers:
        with pytest.raises(ProviderError) as caught:
            await final_response(provider, REQUEST, streamed=streamed)
        errors.append((caught.value.status, str(caught.value), caught.value.retryable))
    assert errors[0] == errors[1] == (400, "google: 400 INVALID_ARGUMENT: bad thing", False)


async def test_contents_the_sdks_types_refuse_are_a_provider_error_before_sending(
    server: WireServer, providers: tuple[GoogleProvider, GoogleProvider]
) -> None:
    _, public = providers
    novel = RawBlock(provider="google", data={"hologram": {"uri": "x"}})
    request = ask(Message.user("hi"), Message.assistant([novel]), Message.user("and?"))
    with pytest.raises(ProviderError, match="the SDK's types refuse"):
        await public.complete(request)
    assert server.received == []


def test_an_api_client_whose_request_methods_changed_is_named() -> None:
    class ApiClient:
        async def async_request(self, method: str, url: str, body: object) -> None: ...

        async def async_request_streamed(
            self, http_method: str, path: str, request_dict: object, http_options: object
        ) -> None: ...

    class OlderApiClient:
        async def async_request(
            self, http_method: str, path: str, request_dict: object, http_options: object
        ) -> None: ...

    class Aio:
        def __init__(self, api_client: object) -> None:
            self._api_client = api_client

    class Client:
        def __init__(self, api_client: object) -> None:
            self.aio = Aio(api_client)

    assert raw_request_problem(Client(ApiClient())) == (
        "ApiClient.async_request takes (method, url, body)"
    )
    assert raw_request_problem(Client(OlderApiClient())) == (
        "OlderApiClient has no async_request_streamed"
    )


async def test_a_passed_in_clients_own_retries_stay_off_on_the_public_path(
    server: WireServer,
) -> None:
    waits: list[float] = []

    async def wait(seconds: float) -> None:
        waits.append(seconds)

    retries = types.HttpRetryOptions(attempts=4, http_status_codes=[503], initial_delay=0.01)
    client = public_client(server.base_url, retry_options=retries)
    with pytest.warns(UserWarning, match="models.generate_content"):
        provider = GoogleProvider(MODEL, client=client, sleep=wait)
    server.enqueue(wire.error(503, "busy"), wire.answer(wire.response([{"text": "ok"}])))
    reply = await provider.complete(REQUEST)
    await client.aio.aclose()
    assert reply.message.text == "ok"
    assert len(server.received) == 2
    assert len(waits) == 1  # the provider's retry, not the SDK's


class TestGooglePublicPathConformance(conformance.TestGoogleConformance):
    """The provider conformance suite, through `models.generate_content(_stream)`."""

    @pytest.fixture(autouse=True)
    async def _close_clients(self) -> AsyncIterator[None]:
        self._clients: list[genai.Client] = []
        yield
        for client in self._clients:
            await client.aio.aclose()

    def new_provider(self, base_url: str) -> GoogleProvider:
        client = public_client(base_url)
        self._clients.append(client)
        with pytest.warns(UserWarning, match="models.generate_content"):
            return GoogleProvider(MODEL, client=client)


class TestGooglePublicPathDeadlines(deadlines.TestGoogleDeadlines):
    """The deadline suite, through `models.generate_content(_stream)`."""

    @pytest.fixture
    async def make_provider(
        self, server: WireServer, sleeps: list[float]
    ) -> AsyncIterator[Providers[GoogleProvider]]:
        clients: list[genai.Client] = []

        def build(**options: Any) -> GoogleProvider:
            clients.append(public_client(server.base_url))
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "GoogleProvider: calls go through")
                return GoogleProvider(client=clients[-1], **options)

        async with Providers(build, sleeps, model=MODEL) as providers:
            yield providers
        for client in clients:
            await client.aio.aclose()
