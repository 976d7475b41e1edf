"""`OpenAIProvider`: Chat Completions behind automata's provider protocols."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, Final, Literal, Unpack

from automata.core.providers import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderStreamItem,
    SDKOptions,
    raw_post_problem,
    reply_data,
)
from automata.openai._catalog import DEFAULT_EMBEDDING_MODEL, MAX_EMBEDDING_INPUTS, OpenAIServices
from automata.openai._errors import reported_in_stream, vendor_error
from automata.openai._posting import POST_OPTIONS
from automata.openai._reply import PROVIDER, json_of, response_from
from automata.openai._reply_stream import ModelChunksAssembler, StreamAccumulator, stream_decoder
from automata.openai._tool_use_failed import answer_for_tool_use_failed
from automata.openai._wire import WireSettings, build_params
from openai import AsyncOpenAI

__all__ = ["OpenAIProvider"]

_PATH: Final = "/chat/completions"
"""Where `chat.completions.create` posts (relative to the client's base URL)."""


ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]


class OpenAIProvider(OpenAIServices):
    """OpenAI Chat Completions through the official `openai` SDK, streaming or not.

    Works with any compatible `base_url` (OpenAI, Ollama, vLLM, OpenRouter, ...).
    It reads `OPENAI_API_KEY` and `OPENAI_BASE_URL` unless `api_key` / `base_url`, or
    a configured `AsyncOpenAI` as `client`, are passed (a local server that needs no
    key takes any `api_key`). Client ownership, retries (429, 503 and 529, only
    before any delta), error mapping and the refusal of a missing key follow
    `automata.core.providers.SDKProvider`; the `SDKOptions` it takes are the base's.

    Wire choices for compatible servers: `system_role` ("developer" for OpenAI
    reasoning models that want it), `max_tokens_field` ("max_tokens" for servers that
    predate `max_completion_tokens`), `stream_usage` (off for servers that reject
    `stream_options`). `reasoning_effort`, when set, is sent on every call; otherwise
    a `thinking_budget` is translated into an effort (see docs/providers.md).

    It is also a `ModelCatalog` (`list_models`, `get_model`: `GET /models`) and an
    `Embedder` (`embed`: `POST /embeddings` with `embedding_model` unless the call names
    a model, `embed_batch_size` texts a request), with the same retries and errors.

    Any client class of the SDK serves as `client` (`AsyncOpenAI`, `AsyncAzureOpenAI`
    with the deployment in the model name or as `azure_deployment`, `AsyncBedrockOpenAI`):
    the request goes out as that class's `chat.completions.create` sends it.

    The request body built from the blocks is posted through the client's `post`,
    and the reply's JSON, or its chunks' JSON, is read straight into blocks, without
    the SDK's parameter transformation and response models. A client whose `post` no
    longer takes those requests goes through `chat.completions.create` (with a
    `UserWarning`), its models dumped to the JSON they were read from and read by the
    same reader: the same blocks, usage and errors either way.

    `fast_path` is deprecated (a `DeprecationWarning` when passed): `fast_path=False`
    still sends the calls through `chat.completions.create`, read by the same reader;
    `fast_path=True` is the default path. It will be removed.
    """

    provider_name = PROVIDER
    client_class = AsyncOpenAI
    api_key_env = "OPENAI_API_KEY"
    stream_end = "a finish reason"
    supports_native_output = True
    """Structured output maps onto `response_format` json_schema (strict when the
    schema allows it)."""

    def __init__(
        self,
        model: str,
        *,
        client: AsyncOpenAI | None = None,
        system_role: Literal["system", "developer"] = "system",
        max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens",
        reasoning_effort: ReasoningEffort | None = None,
        stream_usage: bool = True,
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        embed_batch_size: int = MAX_EMBEDDING_INPUTS,
        fast_path: bool | None = None,
        **options: Unpack[SDKOptions],
    ) -> None:
        super().__init__(
            model,
            client=client,
            embedding_model=embedding_model,
            embed_batch_size=embed_batch_size,
            **options,
        )
        if fast_path is not None:
            warnings.warn(
                "OpenAIProvider: fast_path is deprecated and will be removed; calls go "
                "through the client's post, or through chat.completions.create "
                "(fast_path=False, or a client whose post cannot take them), read by "
                "the same reader either way",
                DeprecationWarning,
                stacklevel=2,
            )
        problem = raw_post_problem(self.client) if fast_path is not False else None
        if problem is not None:
            warnings.warn(
                f"OpenAIProvider: calls go through chat.completions.create: {problem}",
                UserWarning,
                stacklevel=2,
            )
        self._posts_raw = problem is None and fast_path is not False
        self._settings = WireSettings(
            model=model,
            system_role=system_role,
            max_tokens_field=max_tokens_field,
            reasoning_effort=reasoning_effort,
            stream_usage=stream_usage,
        )

    # ------------------------------------------------------------------- calls

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply: the body built from `request`, posted as
        `chat.completions.create` posts it, its JSON read into blocks. A
        `tool_use_failed` refusal (Groq) is the malformed call it stands for, which
        the loop asks the model to correct (see `_tool_use_failed.py`)."""
        params = self.call_params(request)
        answer = partial(answer_for_tool_use_failed, request=request)
        if not self._posts_raw:
            create = partial(self.client.chat.completions.create, **params)
            return await self.call_reply(request.options, create, _read_model, answer=answer)
        return await self.post_reply(
            request.options, _PATH, params, _read_reply, post_options=POST_OPTIONS, answer=answer
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`: the body built from
        `request` (when this is called) and posted for streaming (when the stream is
        first read), its chunks read in the client's own framing."""
        params = self.stream_params(self.call_params(request))
        answer = partial(answer_for_tool_use_failed, request=request)
        if not self._posts_raw:
            create: Any = partial(self.client.chat.completions.create, **params)
            return self.stream_reply(request.options, create, ModelChunksAssembler, answer=answer)
        return self.post_stream(
            request.options,
            _PATH,
            params,
            stream_decoder,
            StreamAccumulator,
            post_options=POST_OPTIONS,
            answer=answer,
        )

    # ------------------------------------------------------------ what it shares

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The `chat.completions.create` arguments this provider sends for `request`,
        to see how blocks and options map. Nested values (schemas, tool inputs) are the
        request's own objects: read them, do not change them."""
        return build_params(request, self._settings)

    def call_params(self, request: ModelRequest) -> dict[str, Any]:
        """The params a call sends: `request_params` (every option maps onto the wire)."""
        return build_params(request, self._settings)

    def stream_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """`stream=True`, and `stream_options.include_usage` unless `stream_usage=False`."""
        streamed = {**params, "stream": True}
        if self._settings.stream_usage:
            streamed["stream_options"] = {"include_usage": True}
        return streamed

    def vendor_error(self, error: Exception) -> ProviderError | None:
        return vendor_error(self, error)

    def reported_in_stream(self, error: Exception) -> bool:
        """An error event (OpenRouter's after the finish reason) is raised, never
        dropped as the tail of a whole reply."""
        return reported_in_stream(error)


def _read_reply(response: Any) -> ModelResponse:
    """A whole reply's JSON as blocks."""
    return response_from(reply_data(response))


def _read_model(completion: Any) -> ModelResponse:
    """The SDK's `ChatCompletion` (from `chat.completions.create`), dumped to its JSON,
    as blocks."""
    return response_from(json_of(completion))
