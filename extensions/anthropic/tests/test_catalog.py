"""`AnthropicProvider` as a `ModelCatalog` (and not an `Embedder`), with the official
SDK against the local server speaking the Models API (`GET /v1/models`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from automata_wire_testing import WireServer, unreachable_url
from automata_wire_testing.catalog import (
    anthropic_model,
    anthropic_models_responder,
    refusing,
    serve_anthropic_models,
)

from automata.anthropic import AnthropicProvider
from automata.core import Embedder, ModelCatalog, ModelInfo, ProviderError, capability

from . import replies
from .conftest import ProviderMaker

SONNET = anthropic_model(
    "claude-sonnet-4-5-20250929",
    display_name="Claude Sonnet 4.5",
    max_input_tokens=200_000,
    max_tokens=64_000,
)
HAIKU = anthropic_model(
    "claude-3-haiku-20240307",
    display_name="Claude Haiku 3",
    created_at="2024-03-07T00:00:00Z",
    max_input_tokens=200_000,
    max_tokens=4_096,
    vision=True,
    pdf=False,
    thinking=False,
    structured_outputs=False,
)
RATE_LIMITED = replies.error(429, "rate_limit_error", "slow down")
MODELS = [anthropic_model(f"claude-test-{n}") for n in range(5)]


def test_it_is_a_model_catalog_and_not_an_embedder(provider: AnthropicProvider) -> None:
    assert isinstance(provider, ModelCatalog)
    assert not isinstance(provider, Embedder)
    assert capability(provider, ModelCatalog) is provider
    assert capability(provider, Embedder) is None


async def test_a_model_carries_its_limits_and_reported_capabilities(
    server: WireServer, provider: AnthropicProvider
) -> None:
    serve_anthropic_models(server, [SONNET, HAIKU])
    sonnet, haiku = await provider.list_models()
    assert sonnet == ModelInfo(
        id="claude-sonnet-4-5-20250929",
        provider="anthropic",
        display_name="Claude Sonnet 4.5",
        created=datetime(2025, 9, 29, tzinfo=UTC),
        context_window=200_000,
        max_output_tokens=64_000,
        vision=True,
        documents=True,
        thinking=True,
        structured_output=True,
    )
    assert (haiku.max_output_tokens, haiku.documents, haiku.thinking) == (4_096, False, False)


async def test_what_the_api_does_not_report_is_none(
    server: WireServer, provider: AnthropicProvider
) -> None:
    serve_anthropic_models(server, [SONNET])
    (model,) = await provider.list_models()
    assert (model.tools, model.embeddings) == (None, None)


async def test_a_model_without_limits_or_capabilities_has_them_none(
    server: WireServer, provider: AnthropicProvider
) -> None:
    bare = {
        "type": "model",
        "id": "claude-proxy",
        "display_name": "Proxy",
        "created_at": "1970-01-01T00:00:00Z",
    }
    serve_anthropic_models(server, [bare])
    (model,) = await provider.list_models()
    assert model == ModelInfo(id="claude-proxy", provider="anthropic", display_name="Proxy")


async def test_the_entry_is_kept_whole_in_raw(
    server: WireServer, provider: AnthropicProvider
) -> None:
    serve_anthropic_models(server, [{**SONNET, "lifecycle": "deprecated", "new_field": [1]}])
    (model,) = await provider.list_models()
    assert model.raw["lifecycle"] == "deprecated"
    assert model.raw["new_field"] == [1]
    assert model.raw["capabilities"]["citations"] == {"supported": True}


async def test_every_page_is_read_in_order(server: WireServer, provider: AnthropicProvider) -> None:
    serve_anthropic_models(server, MODELS, max_limit=2)
    models = await provider.list_models()
    assert [model.id for model in models] == [model["id"] for model in MODELS]
    assert [received.body.get("after_id") for received in server.received] == [
        None,
        "claude-test-1",
        "claude-test-3",
    ]
    assert {received.body["limit"] for received in server.received} == {"1000"}


async def test_one_model_is_read_by_its_id(server: WireServer, provider: AnthropicProvider) -> None:
    serve_anthropic_models(server, [SONNET, HAIKU])
    model = await provider.get_model("claude-3-haiku-20240307")
    assert (model.id, model.display_name) == ("claude-3-haiku-20240307", "Claude Haiku 3")
    assert server.received[-1].path == "/v1/models/claude-3-haiku-20240307"


async def test_an_unknown_model_is_a_404_provider_error(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(replies.error(404, "not_found_error", "model: claude-nope"))
    with pytest.raises(ProviderError) as caught:
        await provider.get_model("claude-nope")
    assert str(caught.value) == "anthropic: 404 not_found_error: model: claude-nope"
    assert caught.value.status == 404


async def test_a_refused_key_fails_the_listing_at_once(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(replies.error(401, "authentication_error", "invalid x-api-key"))
    with pytest.raises(ProviderError) as caught:
        await provider.list_models()
    assert str(caught.value) == "anthropic: 401 authentication_error: invalid x-api-key"
    assert (caught.value.status, caught.value.retryable, sleeps) == (401, False, [])


async def test_a_rate_limited_page_is_retried_alone(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.route(
        "/models", refusing(2, RATE_LIMITED, anthropic_models_responder(MODELS, max_limit=3))
    )
    models = await provider.list_models()
    assert [model.id for model in models] == [model["id"] for model in MODELS]
    assert sleeps == [0.5]
    assert [received.body.get("after_id") for received in server.received] == [
        None,
        "claude-test-2",
        "claude-test-2",
    ]


async def test_rate_limits_past_the_retry_policy_raise_the_vendor_message(
    server: WireServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.always(replies.error(429, "rate_limit_error", "slow down"))
    with pytest.raises(ProviderError) as caught:
        await provider.list_models()
    assert str(caught.value) == "anthropic: 429 rate_limit_error: slow down"
    assert (caught.value.retryable, sleeps) == (True, [0.5, 1.0])


async def test_a_server_that_cannot_be_reached_is_named(make_provider: ProviderMaker) -> None:
    provider = make_provider(base_url=unreachable_url())
    with pytest.raises(
        ProviderError, match=r"^anthropic: connection to http://127\.0\.0\.1:\d+/v1/models"
    ):
        await provider.list_models()
