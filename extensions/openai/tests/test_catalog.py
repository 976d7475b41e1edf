"""`OpenAIProvider` as a `ModelCatalog`, with the official SDK against the local server
speaking `GET /v1/models`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from automata_wire_testing import WireServer, unreachable_url
from automata_wire_testing.catalog import openai_model, serve_openai_models

from automata.core import Embedder, ModelCatalog, ModelInfo, ProviderError, capability
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

GPT = openai_model("gpt-5-mini", created=1_754_000_000, owned_by="system")
EMBEDDING = openai_model("text-embedding-3-small", created=1_705_948_997)


def test_it_is_a_model_catalog_and_an_embedder(provider: OpenAIProvider) -> None:
    assert isinstance(provider, ModelCatalog)
    assert isinstance(provider, Embedder)
    assert capability(provider, ModelCatalog) is provider
    assert capability(provider, Embedder) is provider


async def test_a_model_has_its_id_and_creation_time_and_nothing_guessed(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_models(server, [GPT, EMBEDDING])
    gpt, embedding = await provider.list_models()
    assert gpt == ModelInfo(
        id="gpt-5-mini", provider="openai", created=datetime.fromtimestamp(1_754_000_000, UTC)
    )
    assert embedding.id == "text-embedding-3-small"
    assert embedding.embeddings is None  # the API does not say, the name is not read


async def test_the_entry_is_kept_whole_in_raw(server: WireServer, provider: OpenAIProvider) -> None:
    compatible = {**GPT, "context_length": 131_072, "name": "GPT-5 mini"}
    serve_openai_models(server, [compatible])
    (model,) = await provider.list_models()
    assert dict(model.raw) == compatible
    assert model.context_window is None


async def test_a_compatible_server_without_creation_times_gives_none(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_models(server, [{"id": "llama3.2", "object": "model", "owned_by": "library"}])
    (model,) = await provider.list_models()
    assert (model.id, model.created) == ("llama3.2", None)


async def test_the_list_is_asked_for_at_the_base_url(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_models(server, [GPT])
    await provider.list_models()
    assert [received.path for received in server.received] == ["/v1/models"]


async def test_one_model_is_read_by_its_id(server: WireServer, provider: OpenAIProvider) -> None:
    serve_openai_models(server, [GPT, EMBEDDING])
    model = await provider.get_model("text-embedding-3-small")
    assert model.created == datetime.fromtimestamp(1_705_948_997, UTC)
    assert server.received[-1].path == "/v1/models/text-embedding-3-small"


async def test_an_unknown_model_is_a_404_provider_error(
    server: WireServer, provider: OpenAIProvider
) -> None:
    text = "The model 'gpt-nope' does not exist"
    server.enqueue(replies.error(404, "model_not_found", text))
    with pytest.raises(ProviderError) as caught:
        await provider.get_model("gpt-nope")
    assert str(caught.value) == f"openai: 404 model_not_found: {text}"
    assert caught.value.status == 404


async def test_a_refused_key_fails_the_listing_at_once(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    server.enqueue(replies.error(401, "invalid_api_key", "Incorrect API key provided."))
    with pytest.raises(ProviderError) as caught:
        await provider.list_models()
    assert str(caught.value) == "openai: 401 invalid_api_key: Incorrect API key provided."
    assert (caught.value.status, caught.value.retryable, sleeps) == (401, False, [])


async def test_a_rate_limited_listing_is_retried_after_the_servers_hint(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    limited = replies.error(429, "rate_limit_exceeded", "slow down", headers={"retry-after": "2"})
    server.enqueue(limited)
    serve_openai_models(server, [GPT])
    (model,) = await provider.list_models()
    assert model.id == "gpt-5-mini"
    assert sleeps == [2.0]


async def test_rate_limits_past_the_retry_policy_raise_the_vendor_message(
    server: WireServer, provider: OpenAIProvider, sleeps: list[float]
) -> None:
    server.always(replies.error(429, "rate_limit_exceeded", "slow down"))
    with pytest.raises(ProviderError) as caught:
        await provider.list_models()
    assert str(caught.value) == "openai: 429 rate_limit_exceeded: slow down"
    assert (caught.value.retryable, sleeps) == (True, [0.5, 1.0])


async def test_a_server_that_cannot_be_reached_is_named(make_provider: ProviderMaker) -> None:
    url = unreachable_url()
    provider = make_provider(base_url=f"{url}/v1")
    with pytest.raises(ProviderError) as caught:
        await provider.list_models()
    assert str(caught.value).startswith(f"openai: connection to {url}/v1/models failed: ")
