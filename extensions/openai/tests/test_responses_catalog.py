"""`OpenAIResponsesProvider` as a `ModelCatalog` and an `Embedder`: the same `GET /models`
and `POST /embeddings` as `OpenAIProvider` (one shared implementation), with the
official SDK against the local server."""

from __future__ import annotations

import pytest
from automata_wire_testing import WireServer
from automata_wire_testing.catalog import (
    embedding_vector,
    openai_model,
    serve_openai_embeddings,
    serve_openai_models,
)

from automata.core import Embedder, ModelCatalog, ProviderError, capability
from automata.openai import OpenAIResponsesProvider

from . import replies
from .responses_support import ResponsesMaker, make_provider

__all__ = ["make_provider"]

GPT = openai_model("gpt-5-mini", created=1_754_000_000, owned_by="system")


def test_capability_finds_a_model_catalog_and_an_embedder(
    provider: OpenAIResponsesProvider,
) -> None:
    """OR13: the Responses provider is a `ModelCatalog` and an `Embedder`."""
    assert capability(provider, ModelCatalog) is provider
    assert capability(provider, Embedder) is provider


async def test_models_are_listed_and_read_at_the_base_url(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR13: `list_models` and `get_model` read `GET /models` under the provider's base URL."""
    serve_openai_models(server, [GPT])
    (listed,) = await provider.list_models()
    one = await provider.get_model("gpt-5-mini")
    assert listed == one
    assert (one.id, one.provider) == ("gpt-5-mini", "openai")
    assert [r.path for r in server.received] == ["/v1/models", "/v1/models/gpt-5-mini"]


async def test_an_unknown_model_is_a_404_provider_error(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR13: catalog failures are the provider's errors."""
    text = "The model 'gpt-nope' does not exist"
    server.enqueue(replies.error(404, "model_not_found", text))
    with pytest.raises(ProviderError) as caught:
        await provider.get_model("gpt-nope")
    assert str(caught.value) == f"openai: 404 model_not_found: {text}"


async def test_texts_are_embedded_in_batches_with_the_providers_embedding_model(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR13: `embed` uses `embedding_model` and sends `embed_batch_size` texts a request."""
    serve_openai_embeddings(server)
    provider = make_provider(embedding_model="text-embedding-3-large", embed_batch_size=2)
    texts = ["snow", "rain", "sun"]
    result = await provider.embed(texts)
    assert result.vectors == tuple(embedding_vector(text, 8) for text in texts)
    assert [r.body["input"] for r in server.received] == [["snow", "rain"], ["sun"]]
    assert {r.body["model"] for r in server.received} == {"text-embedding-3-large"}


def test_an_embed_batch_size_past_the_apis_limit_is_refused(
    make_provider: ResponsesMaker,
) -> None:
    """OR13: the batch size is checked as for `OpenAIProvider`."""
    with pytest.raises(ValueError, match="embed_batch_size must be from 1 to 2048, got 0"):
        make_provider(embed_batch_size=0)
