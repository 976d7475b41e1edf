"""OpenAI's model list (`GET /models`) and embeddings (`POST /embeddings`) as the core's
`ModelCatalog` and `Embedder` values, through the provider's error mapping and retries.

The model list says little: an id, when the model was created and who owns it.
`ModelInfo` carries the id and `created`; every limit and feature is None (the API
does not report them) and the rest is in `raw`, with whatever a compatible server
adds. Embeddings go out `embed_batch_size` texts a request (the API takes at most
2048), are put back in the order of the texts by their `index`, and the usage of
every request is summed.

`OpenAIServices` is the base both OpenAI providers share: an `SDKProvider` on
`AsyncOpenAI` that is a `ModelCatalog` and an `Embedder` through these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final, Unpack

import httpx2

from automata.core.providers import (
    Embeddings,
    ModelInfo,
    ProviderError,
    SDKOptions,
    SDKProvider,
    Usage,
)
from openai import AsyncOpenAI, DefaultAsyncHttpxClient
from openai._streaming import SSEDecoder

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "MAX_EMBEDDING_INPUTS",
    "OpenAIServices",
    "embed",
    "get_model",
    "list_models",
]

DEFAULT_EMBEDDING_MODEL: Final = "text-embedding-3-small"
"""The model `embed` uses when neither the call nor the provider names one."""

MAX_EMBEDDING_INPUTS: Final = 2048
"""The most inputs the embeddings API takes in one request."""

_Provider = SDKProvider[AsyncOpenAI]


def model_info(provider: str, model: Any) -> ModelInfo:
    """A `ModelInfo` from one entry of the model list (an SDK `Model`)."""
    raw: dict[str, Any] = model.to_dict(mode="json")
    created = raw.get("created")
    return ModelInfo(
        id=str(raw.get("id", "")),
        provider=provider,
        created=datetime.fromtimestamp(created, UTC)
        if isinstance(created, int) and created > 0
        else None,
        raw=raw,
    )


async def list_models(provider: _Provider) -> tuple[ModelInfo, ...]:
    """Every model of `GET /models`, all pages read."""
    models = await provider.vendor_pages(lambda: provider.client.models.list())
    return tuple(model_info(provider.provider_name, model) for model in models)


async def get_model(provider: _Provider, model_id: str) -> ModelInfo:
    """The model `model_id` from `GET /models/<id>` (404: `ProviderError`)."""
    model = await provider.vendor_call(lambda: provider.client.models.retrieve(model_id))
    return model_info(provider.provider_name, model)


def _malformed(provider: _Provider, detail: str) -> ProviderError:
    return ProviderError(
        f"{provider.provider_name}: malformed reply: {detail}", provider=provider.provider_name
    )


async def _embed_batch(
    provider: _Provider, texts: list[str], params: dict[str, Any]
) -> tuple[list[tuple[float, ...]], str, int | None]:
    async def once() -> tuple[list[tuple[float, ...]], str, int | None]:
        reply = await provider.client.embeddings.create(input=texts, **params)
        data = sorted(reply.data, key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(texts))):
            found = [item.index for item in data]
            raise _malformed(provider, f"{len(texts)} inputs, embeddings for indexes {found}")
        usage = getattr(reply, "usage", None)
        tokens = getattr(usage, "prompt_tokens", None)
        vectors = [tuple(float(value) for value in item.embedding) for item in data]
        return vectors, str(reply.model), tokens if isinstance(tokens, int) else None

    return await provider.vendor_call(once)


async def embed(
    provider: _Provider,
    texts: Sequence[str],
    *,
    model: str,
    dimensions: int | None,
    batch_size: int,
) -> Embeddings:
    """The vectors for `texts` with `model`, `batch_size` texts a request."""
    if isinstance(texts, str):
        raise TypeError("embed takes a sequence of texts, not one str: embed([text])")
    params: dict[str, Any] = {"model": model}
    if dimensions is not None:
        params["dimensions"] = dimensions
    vectors: list[tuple[float, ...]] = []
    tokens: int | None = None
    served = model
    for start in range(0, len(texts), batch_size):
        batch = list(texts[start : start + batch_size])
        batch_vectors, served, batch_tokens = await _embed_batch(provider, batch, params)
        vectors.extend(batch_vectors)
        if batch_tokens is not None:
            tokens = (tokens or 0) + batch_tokens
    usage = None if tokens is None else Usage(input_tokens=tokens)
    return Embeddings(vectors=tuple(vectors), model=served, usage=usage)


class OpenAIServices(SDKProvider[AsyncOpenAI]):
    """An `SDKProvider` on the official `AsyncOpenAI` client that is also a
    `ModelCatalog` (`list_models`, `get_model`: `GET /models`) and an `Embedder`
    (`embed`: `POST /embeddings`), with the provider's retries, deadlines and errors.
    The base of `OpenAIProvider` and `OpenAIResponsesProvider`: both APIs live under
    the same base URL and key.

    `embedding_model` is used unless a call names a model; `embed_batch_size` texts
    go in one request (from 1 to `MAX_EMBEDDING_INPUTS`, else `ValueError`).
    """

    http_client_class = DefaultAsyncHttpxClient
    """The client it builds reads replies through the SDK's default HTTP client with
    their decoded size capped (`max_reply_bytes`; see `automata.core.providers`)."""
    raw_response_class = httpx2.Response
    sse_decoder_class = SSEDecoder

    def __init__(
        self,
        model: str,
        *,
        client: AsyncOpenAI | None = None,
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        embed_batch_size: int = MAX_EMBEDDING_INPUTS,
        **options: Unpack[SDKOptions],
    ) -> None:
        if not 0 < embed_batch_size <= MAX_EMBEDDING_INPUTS:
            raise ValueError(
                f"embed_batch_size must be from 1 to {MAX_EMBEDDING_INPUTS}, got {embed_batch_size}"
            )
        super().__init__(model, client=client, **options)
        self.embedding_model = embedding_model
        self.embed_batch_size = embed_batch_size

    async def list_models(self) -> tuple[ModelInfo, ...]:
        """Every model of `GET /models`: ids and creation times; limits and features
        are None (the API does not report them), the entries whole in `raw`."""
        return await list_models(self)

    async def get_model(self, model_id: str) -> ModelInfo:
        """One model from `GET /models/<id>`; an unknown id is a 404 `ProviderError`."""
        return await get_model(self, model_id)

    async def embed(
        self, texts: Sequence[str], *, model: str | None = None, dimensions: int | None = None
    ) -> Embeddings:
        """One vector per text, in order, `embed_batch_size` texts a request (usage
        summed); `model` defaults to `embedding_model`. No texts, no request."""
        return await embed(
            self,
            texts,
            model=model or self.embedding_model,
            dimensions=dimensions,
            batch_size=self.embed_batch_size,
        )
