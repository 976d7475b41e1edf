"""`AnthropicProvider`: the Messages API behind automata's provider protocols."""

from __future__ import annotations

import os
import warnings
from collections.abc import AsyncIterator
from functools import partial
from typing import Any, Final, Literal, TypeAlias, Unpack, cast

import httpx2

from anthropic import (
    DEFAULT_TIMEOUT,
    AsyncAnthropic,
    AsyncAnthropicBedrock,
    AsyncAnthropicBedrockMantle,
    AsyncAnthropicVertex,
    DefaultAsyncHttpxClient,
)
from anthropic._streaming import SSEDecoder
from automata.anthropic import _catalog
from automata.anthropic._errors import vendor_error
from automata.anthropic._reading import json_of, response_from
from automata.anthropic._stream import ModelEventsAccumulator, StreamAccumulator, stream_decoder
from automata.anthropic._wire import PROVIDER, WireSettings, build_params
from automata.core.providers import (
    ModelInfo,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderStreamItem,
    SDKOptions,
    SDKProvider,
    final_response,
    raw_post_problem,
    reply_data,
)

__all__ = ["AnthropicClient", "AnthropicProvider"]

AnthropicClient: TypeAlias = (
    AsyncAnthropic | AsyncAnthropicBedrock | AsyncAnthropicBedrockMantle | AsyncAnthropicVertex
)
"""The SDK's async client classes: `AsyncAnthropic` (and its subclasses: Foundry, AWS,
Google Cloud) and the platform clients built beside it. All have `messages.create` and
the base client's `post`, which is all the provider uses of them."""

# The SDK refuses non-streaming calls it expects to run past ten minutes (roughly
# this many output tokens); `complete` streams under the hood beyond it.
_NON_STREAMING_MAX_TOKENS: Final = 21_333
_PATH: Final = "/v1/messages"
"""Where `messages.create` posts (relative to the client's base URL)."""


def raw_request_problem(client: AsyncAnthropic) -> str | None:
    """None when `client` takes the requests `send` posts: its `post` takes what
    `post_raw` passes, and it builds the SDK's error for a stream's `error` event
    (`_make_status_error`); otherwise what is missing."""
    problem = raw_post_problem(client)
    if problem is None and not callable(getattr(client, "_make_status_error", None)):
        problem = f"{type(client).__name__} has no _make_status_error"
    return problem


class AnthropicProvider(SDKProvider[AsyncAnthropic]):
    """Claude through the official `anthropic` SDK, streaming or not.

    It reads `ANTHROPIC_API_KEY` (or the bearer token `ANTHROPIC_AUTH_TOKEN`) and
    `ANTHROPIC_BASE_URL` unless `api_key` / `base_url`, or a configured
    `AsyncAnthropic` as `client`, are passed. Credentials, client ownership, retries
    (429, 503 and 529, only before any delta) and error mapping are those of
    `automata.core.providers.SDKProvider`, whose `SDKOptions` it takes.

    `max_tokens` is the answer budget when a call sets none (a thinking budget is added
    on top). `cache_prompt` marks the tools-and-system prefix for prompt caching;
    `cache_conversation` also puts a breakpoint on the last cacheable block of the
    conversation, so long tool loops re-read their history cheaply.

    A `thinking_budget` turns thinking on: `thinking_mode="enabled"` sends the budget
    (`budget_tokens`), `"adaptive"` lets the model size its thinking (models that no
    longer accept budgets need it); `effort` is sent as `output_config.effort`.
    `CallOptions.temperature` is not sent by default: the API version this SDK speaks
    (2026-10-21) rejects sampling parameters. Set `sampling_params=True` to send it
    anyway, for a client pinned to an older `anthropic-version` or a compatible proxy;
    otherwise a call that sets it warns once and goes out without it.

    It is also a `ModelCatalog` (`list_models`, `get_model`: the Models API, with each
    model's limits and reported capabilities), with the same retries and errors. It is
    not an `Embedder`: Anthropic has no embeddings API.

    Any client class of the SDK serves as `client` (`AsyncAnthropic`,
    `AsyncAnthropicBedrock`, `AsyncAnthropicVertex`, `AsyncAnthropicFoundry`, ...): the
    request goes out as that class's `messages.create` sends it.

    The request body built from the blocks is posted through the client's `post` as
    `messages.create` posts it, and the reply's JSON, or its events' JSON, is read
    straight into blocks, without the SDK's parameter transformation and response
    models. A client whose `post` no longer takes those requests goes through
    `messages.create` (with a `UserWarning`), its models dumped to the JSON they were
    read from and read by the same reader: the same blocks, usage and errors.
    `fast_path` is deprecated and does nothing (a `DeprecationWarning` says so).
    """

    provider_name = PROVIDER
    client_class = AsyncAnthropic
    http_client_class = DefaultAsyncHttpxClient
    api_key_env = "ANTHROPIC_API_KEY"
    stream_end = "message_stop"
    raw_response_class = httpx2.Response
    sse_decoder_class = SSEDecoder
    supports_native_output = True
    """Structured output maps onto `output_config.format` (a JSON schema)."""

    def __init__(
        self,
        model: str,
        *,
        client: AnthropicClient | None = None,
        max_tokens: int = 4096,
        cache_prompt: bool = True,
        cache_conversation: bool = False,
        thinking_mode: Literal["enabled", "adaptive"] = "enabled",
        effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None,
        sampling_params: bool = False,
        fast_path: bool | None = None,
        **options: Unpack[SDKOptions],
    ) -> None:
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {max_tokens}")
        # The platform clients share AsyncAnthropic's request surface, not its class.
        super().__init__(model, client=cast(AsyncAnthropic | None, client), **options)
        if fast_path is not None:
            warnings.warn(
                "AnthropicProvider(fast_path=...) is deprecated and does nothing: every "
                "call posts through the client's post and reads the reply's JSON "
                "(docs/providers.md)",
                DeprecationWarning,
                stacklevel=2,
            )
        problem = raw_request_problem(self.client)
        if problem is not None:
            warnings.warn(
                f"AnthropicProvider: calls go through messages.create: {problem}",
                UserWarning,
                stacklevel=2,
            )
        self.posts_raw = problem is None
        """Whether calls post through the client's `post` (else through
        `messages.create`, for a client whose `post` does not take those requests)."""
        self._settings = WireSettings(
            model=model,
            max_tokens=max_tokens,
            cache_prompt=cache_prompt,
            cache_conversation=cache_conversation,
            thinking_mode=thinking_mode,
            effort=effort,
            sampling_params=sampling_params,
        )
        self._warned_temperature = False

    # ------------------------------------------------------ optional capabilities

    async def list_models(self) -> tuple[ModelInfo, ...]:
        """Every model of `GET /v1/models` (all pages, most recent first), with its
        token limits and the capabilities the API reports; see `ModelInfo`."""
        return await _catalog.list_models(self)

    async def get_model(self, model_id: str) -> ModelInfo:
        """One model (or alias) from `GET /v1/models/<id>`; an unknown id is a 404
        `ProviderError`."""
        return await _catalog.get_model(self, model_id)

    # ------------------------------------------------------------------- calls

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply: the body built from `request`, posted as `messages.create`
        posts it, its JSON read into blocks (beyond about 21k output tokens, which
        the SDK refuses to take whole, the last item of `stream(request)`)."""
        params = self.call_params(request)
        if params["max_tokens"] > _NON_STREAMING_MAX_TOKENS:
            return await final_response(self.stream(request))
        if not self.posts_raw:
            create = partial(self.client.messages.create, **params)
            return await self.call_reply(request.options, create, _read_model)
        options: dict[str, Any] = {}
        if self.client.timeout == DEFAULT_TIMEOUT:
            options["timeout"] = DEFAULT_TIMEOUT  # as `messages.create` sets it
        body = _with_extra_json(params, options) if "extra_body" in params else params
        return await self.post_reply(
            request.options, _PATH, body, _read_reply, post_options=options
        )

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`: the body built from
        `request` (when this is called) and posted for streaming (when the stream is
        first read), its events read in the client's own framing."""
        params = self.call_params(request)
        params["stream"] = True  # `stream_params`, inline: a new dict of our own
        if not self.posts_raw:
            create: Any = partial(self.client.messages.create, **params)
            return self.stream_reply(request.options, create, ModelEventsAccumulator)
        options: dict[str, Any] = {}
        body = _with_extra_json(params, options) if "extra_body" in params else params
        return self.post_stream(
            request.options,
            _PATH,
            body,
            partial(stream_decoder, self.client),
            StreamAccumulator,
            post_options=options,
        )

    # ------------------------------------------------------------ what it shares

    def has_credentials(self, api_key: str | None) -> bool:
        """A key, or the bearer token the SDK also reads (`ANTHROPIC_AUTH_TOKEN`)."""
        return super().has_credentials(api_key) or bool(os.environ.get("ANTHROPIC_AUTH_TOKEN"))

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The `messages.create` arguments this provider sends for `request`, to see
        how blocks and options map. Nested values (schemas, tool inputs, raw block
        data) are the request's own objects: read them, do not change them."""
        return build_params(request, self._settings)

    def call_params(self, request: ModelRequest) -> dict[str, Any]:
        """`request_params`, warning once when a call sets a temperature that is not
        sent (see the class docstring)."""
        if (
            request.options.temperature is not None
            and not self._settings.sampling_params
            and not self._warned_temperature
        ):
            self._warned_temperature = True
            warnings.warn(
                "AnthropicProvider does not send temperature: the Messages API version "
                "2026-10-21 rejects sampling parameters (pass sampling_params=True to "
                "send it to an older API version)",
                UserWarning,
                stacklevel=3,
            )
        return build_params(request, self._settings)

    def vendor_error(self, error: Exception) -> ProviderError | None:
        return vendor_error(self, error)


def _with_extra_json(params: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The body `params` (which carry `extra_body`) post as: `extra_body` moved into
    `options` as the SDK's extra JSON, as `messages.create` sends it."""
    body = dict(params)
    options["extra_json"] = body.pop("extra_body")
    return body


def _read_reply(response: httpx2.Response) -> ModelResponse:
    """A whole reply's JSON as blocks (its content type named when it is no message)."""
    content_type = response.headers.get("content-type", "").split(";")[0].strip()
    return response_from(reply_data(response), content_type)


def _read_model(message: Any) -> ModelResponse:
    """The SDK's `Message` (from `messages.create`), dumped to its JSON, as blocks."""
    return response_from(json_of(message))
