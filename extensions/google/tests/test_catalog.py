"""The model catalog (`models.list`, `models.get`) and embeddings
(`batchEmbedContents`) through the SDK, on the local server."""

from __future__ import annotations

import pytest
from automata_wire_testing import Reply, WireServer
from automata_wire_testing import gemini as wire

from automata.core.providers import Embedder, ModelCatalog, ModelInfo, ProviderError

from .conftest import ProviderMaker

FLASH = {
    "name": "models/gemini-2.5-flash",
    "displayName": "Gemini 2.5 Flash",
    "inputTokenLimit": 1048576,
    "outputTokenLimit": 65536,
    "supportedGenerationMethods": ["generateContent", "countTokens"],
    "thinking": True,
}
EMBEDDER = {
    "name": "models/gemini-embedding-001",
    "displayName": "Gemini Embedding 001",
    "inputTokenLimit": 2048,
    "outputTokenLimit": 1,
    "supportedGenerationMethods": ["embedContent", "countTextTokens"],
}


async def test_every_page_of_the_model_list_is_read_with_limits_and_features(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(
        Reply(json_body={"models": [FLASH], "nextPageToken": "p2"}),
        Reply(json_body={"models": [EMBEDDER]}),
    )
    provider = make_provider()
    assert isinstance(provider, ModelCatalog)
    models = await provider.list_models()
    assert models == (
        ModelInfo(
            id="gemini-2.5-flash",
            provider="google",
            display_name="Gemini 2.5 Flash",
            context_window=1048576,
            max_output_tokens=65536,
            thinking=True,
            tools=True,
            embeddings=False,
        ),
        ModelInfo(
            id="gemini-embedding-001",
            provider="google",
            display_name="Gemini Embedding 001",
            context_window=2048,
            max_output_tokens=1,
            tools=False,
            embeddings=True,
        ),
    )
    assert [r.query for r in server.received] == ["", "pageToken=p2"]
    assert models[0].raw["name"] == "models/gemini-2.5-flash"


async def test_one_model_is_read_and_an_unknown_one_is_a_404(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(Reply(json_body=FLASH), wire.error(404, "model not found"))
    provider = make_provider()
    assert (await provider.get_model("gemini-2.5-flash")).context_window == 1048576
    assert server.received[0].path == "/v1beta/models/gemini-2.5-flash"
    with pytest.raises(ProviderError) as caught:
        await provider.get_model("gemini-nope")
    assert (caught.value.status, str(caught.value)) == (
        404,
        "google: 404 NOT_FOUND: model not found",
    )


async def test_texts_are_embedded_in_order_with_the_dimensions_asked_for(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(
        Reply(json_body={"embeddings": [{"values": [0.1, 0.2]}, {"values": [0.3, 0.4]}]})
    )
    provider = make_provider()
    assert isinstance(provider, Embedder)
    embeddings = await provider.embed(["one", "two"], dimensions=2)
    assert embeddings.vectors == ((0.1, 0.2), (0.3, 0.4))
    assert embeddings.model == "gemini-embedding-001"
    (request,) = server.received
    assert request.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    assert [r["content"]["parts"] for r in request.body["requests"]] == [
        [{"text": "one"}],
        [{"text": "two"}],
    ]
    assert {r["outputDimensionality"] for r in request.body["requests"]} == {2}


async def test_no_texts_make_no_request(server: WireServer, make_provider: ProviderMaker) -> None:
    assert len(await make_provider().embed([])) == 0
    assert server.received == []


async def test_a_vertex_model_is_named_without_its_publisher_prefix(
    server: WireServer,
) -> None:
    from google.oauth2.credentials import Credentials

    from automata.google import GoogleProvider

    entry = {"name": "publishers/google/models/gemini-2.5-flash", "displayName": "Flash"}
    server.enqueue(Reply(json_body=entry))
    provider = GoogleProvider(
        "gemini-2.5-flash",
        vertexai=True,
        project="p",
        location="us-central1",
        credentials=Credentials(token="t"),  # type: ignore[no-untyped-call]
        base_url=server.base_url,
    )
    async with provider:
        assert (await provider.get_model("gemini-2.5-flash")).id == "gemini-2.5-flash"


async def test_vertex_embeddings_sum_their_token_statistics_into_usage(
    server: WireServer,
) -> None:
    from google.oauth2.credentials import Credentials

    from automata.google import GoogleProvider

    predictions = [
        {"embeddings": {"values": [0.1], "statistics": {"token_count": 3}}},
        {"embeddings": {"values": [0.2], "statistics": {"token_count": 4}}},
    ]
    server.enqueue(Reply(json_body={"predictions": predictions}))
    provider = GoogleProvider(
        "gemini-2.5-flash",
        vertexai=True,
        project="p",
        location="us-central1",
        credentials=Credentials(token="t"),  # type: ignore[no-untyped-call]
        base_url=server.base_url,
    )
    async with provider:
        embeddings = await provider.embed(["one", "two"], model="text-embedding-005")
    assert embeddings.vectors == ((0.1,), (0.2,))
    assert embeddings.usage is not None
    assert embeddings.usage.input_tokens == 7


async def test_one_str_is_refused_not_embedded_letter_by_letter(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    with pytest.raises(TypeError, match=r"embed\(\[text\]\)"):
        await make_provider().embed("hello")
    assert server.received == []
