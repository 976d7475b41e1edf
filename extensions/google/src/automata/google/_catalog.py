"""The Gemini API's model list and embeddings as the core's `ModelCatalog` and
`Embedder` values, through the SDK's own `models.list`, `models.get` and
`models.embed_content`, with the provider's error mapping, deadlines and retries.

A model's limits (`inputTokenLimit`, `outputTokenLimit`) and `thinking` flag fill
`ModelInfo`, and `embeddings` is whether its `supportedActions` include
`embedContent` (`tools` whether they include `generateContent`, the only way Gemini
calls functions); what the API does not report is None. `id` is the model's name
without its `models/` (or `publishers/google/models/`) prefix, which is what the
provider's `model` takes. The entry as received is in `raw`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from automata.core.providers import Embeddings, ModelInfo, SDKProvider, Usage
from google.genai import types

__all__ = ["embed", "get_model", "list_models", "model_info"]

_Provider = SDKProvider[Any]
_PREFIXES: Final = ("publishers/google/models/", "models/")


def _id(name: str) -> str:
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def model_info(provider: str, model: types.Model) -> ModelInfo:
    """A `ModelInfo` from one SDK `Model`, read from the JSON it was read from so that
    a field the API leaves out is None."""
    raw: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    actions = model.supported_actions
    return ModelInfo(
        id=_id(model.name or ""),
        provider=provider,
        display_name=model.display_name,
        context_window=model.input_token_limit,
        max_output_tokens=model.output_token_limit,
        thinking=model.thinking,
        tools=None if actions is None else "generateContent" in actions,
        embeddings=None if actions is None else "embedContent" in actions,
        raw=raw,
    )


async def list_models(
    provider: _Provider, options: types.HttpOptions | None
) -> tuple[ModelInfo, ...]:
    """Every base model `models.list` pages through, in the API's order (one call:
    a failed page repeats the listing)."""
    models = provider.client.aio.models

    async def listing() -> list[types.Model]:
        pager = await models.list(config=types.ListModelsConfig(http_options=options))
        return [model async for model in pager]

    found = await provider.vendor_call(listing)
    return tuple(model_info(provider.provider_name, model) for model in found)


async def get_model(
    provider: _Provider, model_id: str, options: types.HttpOptions | None
) -> ModelInfo:
    """The model `model_id` from `models.get`; an unknown id is a 404 `ProviderError`."""
    config = types.GetModelConfig(http_options=options)
    models = provider.client.aio.models
    model = await provider.vendor_call(lambda: models.get(model=model_id, config=config))
    return model_info(provider.provider_name, model)


async def embed(
    provider: _Provider,
    texts: Sequence[str],
    *,
    model: str,
    dimensions: int | None,
    call_options: types.HttpOptions | None,
) -> Embeddings:
    """The vectors for `texts` with `model`: one `models.embed_content` call (the SDK
    sends the texts in one `batchEmbedContents` request on the Gemini API). Usage is
    the sum of the vectors' `statistics.tokenCount` where the platform reports it
    (Vertex AI), else None."""
    if isinstance(texts, str):
        raise TypeError("embed takes a sequence of texts, not one str: embed([text])")
    if not texts:
        return Embeddings(vectors=(), model=model)
    config = types.EmbedContentConfig(output_dimensionality=dimensions, http_options=call_options)
    models = provider.client.aio.models
    reply = await provider.vendor_call(
        lambda: models.embed_content(model=model, contents=list(texts), config=config)
    )
    vectors: list[tuple[float, ...]] = []
    tokens: float | None = None
    for embedding in reply.embeddings or ():
        vectors.append(tuple(embedding.values or ()))
        counted = embedding.statistics.token_count if embedding.statistics else None
        if counted is not None:
            tokens = (tokens or 0) + counted
    usage = None if tokens is None else Usage(input_tokens=int(tokens))
    return Embeddings(vectors=tuple(vectors), model=model, usage=usage)
