"""`OpenAIProvider.embed`, with the official SDK against the local server speaking
`POST /v1/embeddings`."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer
from automata_wire_testing.catalog import (
    embedding_vector,
    openai_embeddings_responder,
    refusing,
    serve_openai_embeddings,
)

from automata.core import Embeddings, ProviderError, Usage
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

TEXTS = ["snow in Oslo", "rain in Bergen", "sun", "fog over the fjord", "wind"]


def vectors(texts: list[str], dimensions: int = 8) -> tuple[tuple[float, ...], ...]:
    return tuple(embedding_vector(text, dimensions) for text in texts)


def inputs(server: WireServer) -> list[list[str]]:
    return [received.body["input"] for received in server.received]


async def test_each_text_gets_its_vector_in_order(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_embeddings(server)
    result = await provider.embed(TEXTS)
    assert result == Embeddings(
        vectors=vectors(TEXTS), model="text-embedding-3-small", usage=Usage(input_tokens=12)
    )
    assert (len(result), result.dimensions) == (5, 8)


async def test_base64_vectors_the_sdk_asks_for_decode_to_the_same_floats(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_embeddings(server)
    result = await provider.embed(["snow"])
    assert server.received[0].body["encoding_format"] == "base64"
    assert result.vectors == (embedding_vector("snow", 8),)


async def test_a_server_that_answers_with_float_lists_is_read_alike(
    server: WireServer, provider: OpenAIProvider
) -> None:
    body = {
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": [0.5, -1.25]}],
        "model": "nomic-embed-text",
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }
    server.enqueue(Reply(json_body=body))
    result = await provider.embed(["snow"], model="nomic-embed-text")
    assert result.vectors == ((0.5, -1.25),)


async def test_the_provider_default_model_applies_unless_the_call_names_one(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    serve_openai_embeddings(server)
    provider = make_provider(embedding_model="text-embedding-3-large")
    await provider.embed(["a"])
    chosen = await provider.embed(["a"], model="custom-embedder")
    assert [received.body["model"] for received in server.received] == [
        "text-embedding-3-large",
        "custom-embedder",
    ]
    assert chosen.model == "custom-embedder"


async def test_dimensions_are_sent_only_when_asked_for(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_embeddings(server)
    await provider.embed(["a"])
    short = await provider.embed(["a"], dimensions=4)
    assert "dimensions" not in server.received[0].body
    assert server.received[1].body["dimensions"] == 4
    assert short.vectors == (embedding_vector("a", 4),)


async def test_texts_beyond_the_batch_size_go_in_several_requests_in_order(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    serve_openai_embeddings(server, max_inputs=2)
    provider = make_provider(embed_batch_size=2)
    result = await provider.embed(TEXTS)
    assert inputs(server) == [TEXTS[0:2], TEXTS[2:4], TEXTS[4:5]]
    assert result.vectors == vectors(TEXTS)
    assert result.usage == Usage(input_tokens=12)


async def test_vectors_listed_out_of_order_are_put_back_by_index(
    server: WireServer, provider: OpenAIProvider
) -> None:
    serve_openai_embeddings(server, reverse=True)
    result = await provider.embed(TEXTS)
    assert result.vectors == vectors(TEXTS)


async def test_no_texts_make_no_request(server: WireServer, provider: OpenAIProvider) -> None:
    result = await provider.embed([])
    assert result == Embeddings(vectors=(), model="text-embedding-3-small")
    assert (server.received, result.dimensions) == ([], None)


async def test_one_string_is_refused_for_a_list_of_texts(provider: OpenAIProvider) -> None:
    with pytest.raises(TypeError, match=r"^embed takes a sequence of texts, not one str"):
        await provider.embed("snow")


def test_a_batch_size_beyond_the_apis_limit_is_refused(make_provider: ProviderMaker) -> None:
    with pytest.raises(ValueError, match=r"^embed_batch_size must be from 1 to 2048, got 4096$"):
        make_provider(embed_batch_size=4096)


async def test_a_reply_without_usage_reports_none(
    server: WireServer, provider: OpenAIProvider
) -> None:
    body = {"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [1.0]}]}
    server.enqueue(Reply(json_body={**body, "model": "m"}))
    assert (await provider.embed(["a"])).usage is None


async def test_a_reply_missing_a_vector_is_a_provider_error(
    server: WireServer, provider: OpenAIProvider
) -> None:
    data = [{"object": "embedding", "index": 0, "embedding": [1.0]}]
    body: dict[str, Any] = {"object": "list", "data": data, "model": "m"}
    server.enqueue(Reply(json_body=body))
    with pytest.raises(ProviderError) as caught:
        await provider.embed(["a", "b"])
    assert str(caught.value) == "openai: malformed reply: 2 inputs, embeddings for indexes [0]"
    assert caught.value.retryable is False


async def test_a_refused_request_raises_the_vendor_message(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    serve_openai_embeddings(server, max_inputs=2)
    provider = make_provider(embed_batch_size=3)
    with pytest.raises(ProviderError) as caught:
        await provider.embed(TEXTS)
    expected = "'$.input' is invalid: at most 2 inputs, got 3"
    assert str(caught.value) == f"openai: 400 invalid_request_error: {expected}"


async def test_a_rate_limited_batch_is_retried_alone(
    server: WireServer, make_provider: ProviderMaker, sleeps: list[float]
) -> None:
    limited = replies.error(429, "rate_limit_exceeded", "slow down")
    server.route("/embeddings", refusing(2, limited, openai_embeddings_responder()))
    provider = make_provider(embed_batch_size=3)
    result = await provider.embed(TEXTS)
    assert inputs(server) == [TEXTS[0:3], TEXTS[3:5], TEXTS[3:5]]
    assert result.vectors == vectors(TEXTS)
    assert sleeps == [0.5]
