"""`AnthropicProvider`: the Messages API behind automata's provider protocols."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, Final, Literal

import anthropic
from anthropic import AsyncAnthropic
from automata.anthropic._errors import DEFAULT_RETRY_STATUSES, to_provider_error
from automata.anthropic._wire import (
    PROVIDER,
    StreamAccumulator,
    WireSettings,
    build_params,
    response_from,
)
from automata.core._errors import ProviderError
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    TextDelta,
    ThinkingDelta,
)
from automata.core._retry import RetryPolicy, retry

__all__ = ["AnthropicProvider"]

# The SDK refuses non-streaming calls it expects to run past ten minutes (roughly
# this many output tokens); `complete` streams under the hood beyond it.
_NON_STREAMING_MAX_TOKENS: Final = 21_333


@dataclass(slots=True)
class _OpenStream:
    """A stream read up to its first delta (or its end), nothing handed on yet."""

    stream: Any
    state: StreamAccumulator
    first: TextDelta | ThinkingDelta | None


class AnthropicProvider:
    """Claude through the official `anthropic` SDK, streaming or not.

    `api_key` and `base_url` default to the SDK's `ANTHROPIC_API_KEY` and
    `ANTHROPIC_BASE_URL`; pass `client` instead to reuse a configured `AsyncAnthropic`.
    The SDK's own retries are switched off (a passed-in client is used through
    `client.with_options(max_retries=0)`, which shares its connection pool), so that
    rate limits (429) and overload (503, 529) are retried exactly once per attempt of
    `retry_policy`, honouring the server's retry-after, and only before any part of a
    reply has been streamed.

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
    """

    supports_streaming: bool = True
    supports_native_output: bool = True
    """Structured output maps onto `output_config.format` (a JSON schema)."""
    provider_name: str = "anthropic"
    """Reported as `gen_ai.provider.name` on tracing spans."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: AsyncAnthropic | None = None,
        max_tokens: int = 4096,
        cache_prompt: bool = True,
        cache_conversation: bool = False,
        thinking_mode: Literal["enabled", "adaptive"] = "enabled",
        effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None,
        sampling_params: bool = False,
        retry_policy: RetryPolicy | None = None,
        retry_statuses: Collection[int] = DEFAULT_RETRY_STATUSES,
        timeout: float | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if client is not None and (api_key is not None or base_url is not None):
            raise ValueError("pass either client or api_key/base_url, not both")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {max_tokens}")
        options: dict[str, Any] = {"max_retries": 0}
        if timeout is not None:
            options["timeout"] = timeout
        self._owns_client = client is None
        if client is None:
            client = AsyncAnthropic(api_key=api_key, base_url=base_url, **options)
        else:
            client = client.with_options(**options)
        self.model = model
        self.client: AsyncAnthropic = client
        self.retry_policy = retry_policy or RetryPolicy()
        self.retry_statuses = frozenset(retry_statuses)
        self._settings = WireSettings(
            model=model,
            max_tokens=max_tokens,
            cache_prompt=cache_prompt,
            cache_conversation=cache_conversation,
            thinking_mode=thinking_mode,
            effort=effort,
            sampling_params=sampling_params,
        )
        self._sleep = sleep
        self._warned_temperature = False

    async def aclose(self) -> None:
        """Close the HTTP client this provider created (a passed-in client stays open:
        its owner closes it)."""
        if self._owns_client:
            await self.client.close()

    async def __aenter__(self) -> AnthropicProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r})"

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The `messages.create` arguments this provider sends for `request`, to see
        how blocks and options map. Nested values (schemas, tool inputs, raw block
        data) are the request's own objects: read them, do not change them."""
        return build_params(request, self._settings)

    async def _retrying(self, operation: Callable[[], Awaitable[Any]]) -> Any:
        return await retry(operation, self.retry_policy, sleep=self._sleep)

    def _error(self, error: Exception, *, after_content: bool = False) -> ProviderError:
        return to_provider_error(
            error, retry_statuses=self.retry_statuses, after_content=after_content
        )

    def _params(self, request: ModelRequest) -> dict[str, Any]:
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

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply. Retryable failures are retried per `retry_policy`."""
        params = self._params(request)
        if params["max_tokens"] > _NON_STREAMING_MAX_TOKENS:
            return await self._complete_by_streaming(request)

        async def attempt() -> ModelResponse:
            try:
                message = await self.client.messages.create(**params)
            except (anthropic.AnthropicError, ValueError) as error:
                raise self._error(error) from error
            return response_from(message)

        result: ModelResponse = await self._retrying(attempt)
        return result

    async def _complete_by_streaming(self, request: ModelRequest) -> ModelResponse:
        final: ModelResponse | None = None
        async for item in self.stream(request):
            if isinstance(item, ModelResponse):
                final = item
        if final is None:  # pragma: no cover - stream() always ends with a response
            raise ProviderError("anthropic: stream ended without a reply", provider=PROVIDER)
        return final

    async def _open(self, params: dict[str, Any]) -> _OpenStream:
        """Start a stream and read it up to the first delta; failures here are still
        retryable because nothing has been handed on."""
        try:
            stream = await self.client.messages.create(**params, stream=True)
        except (anthropic.AnthropicError, ValueError) as error:
            raise self._error(error) from error
        state = StreamAccumulator()
        try:
            while not state.finished:
                try:
                    event = await stream.__anext__()
                except StopAsyncIteration:
                    raise ProviderError(
                        "anthropic: stream ended before message_stop",
                        provider=PROVIDER,
                        retryable=True,
                    ) from None
                delta = state.feed(event)
                if delta is not None:
                    return _OpenStream(stream, state, delta)
            return _OpenStream(stream, state, None)
        except BaseException as error:
            await stream.close()
            if isinstance(error, Exception):
                raise self._error(error) from error
            raise

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """Deltas as they arrive, then one `ModelResponse`.

        A failure after a delta was yielded raises a non-retryable `ProviderError`
        (the agent loop reports it as an incomplete response).
        """
        params = self._params(request)
        opened: _OpenStream = await self._retrying(lambda: self._open(params))
        stream, state = opened.stream, opened.state
        feed = state.feed
        try:
            if opened.first is not None:
                yield opened.first
            # Read to the end of the body even after message_stop, so the connection
            # goes back to the pool instead of being closed with bytes unread.
            events = stream.__aiter__()
            while True:
                try:
                    delta = feed(await events.__anext__())
                except StopAsyncIteration:
                    break
                except Exception as error:
                    if state.finished:
                        break  # the reply is whole; only the tail of the body is lost
                    raise self._error(error, after_content=True) from error
                if delta is not None:
                    yield delta
        finally:
            await stream.close()
        if not state.finished:
            raise ProviderError("anthropic: stream ended before message_stop", provider=PROVIDER)
        yield state.response()
