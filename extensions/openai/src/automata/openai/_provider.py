"""`OpenAIProvider`: Chat Completions behind automata's provider protocols."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

import openai
from automata.core._errors import ProviderError
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    TextDelta,
    ThinkingDelta,
)
from automata.core._retry import RetryPolicy, retry
from automata.openai._errors import DEFAULT_RETRY_STATUSES, to_provider_error
from automata.openai._wire import (
    PROVIDER,
    StreamAccumulator,
    WireSettings,
    build_params,
    response_from,
)
from openai import AsyncOpenAI

__all__ = ["OpenAIProvider"]

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]


@dataclass(slots=True)
class _OpenStream:
    """A stream read up to its first deltas (or its end), nothing handed on yet."""

    stream: Any
    state: StreamAccumulator
    first: list[TextDelta | ThinkingDelta]
    ended: bool


class OpenAIProvider:
    """OpenAI Chat Completions through the official `openai` SDK, streaming or not.

    Works with any compatible `base_url` (OpenAI, Ollama, vLLM, OpenRouter, ...).
    `api_key` and `base_url` default to the SDK's `OPENAI_API_KEY` and
    `OPENAI_BASE_URL`; pass `client` instead to reuse a configured `AsyncOpenAI`. The
    SDK's own retries are switched off (a passed-in client is used through
    `client.with_options(max_retries=0)`, which shares its connection pool), so that
    rate limits (429) and overload (503, 529) are retried by `retry_policy` alone,
    honouring the server's retry-after, and only before any part of a reply has been
    streamed.

    Wire choices for compatible servers: `system_role` ("developer" for OpenAI
    reasoning models that want it), `max_tokens_field` ("max_tokens" for servers that
    predate `max_completion_tokens`), `stream_usage` (off for servers that reject
    `stream_options`). `reasoning_effort`, when set, is sent on every call; otherwise
    a `thinking_budget` is translated into an effort (see docs/providers.md).
    """

    supports_streaming: bool = True
    supports_native_output: bool = True
    """Structured output maps onto `response_format` json_schema (strict when the
    schema allows it)."""
    provider_name: str = "openai"
    """Reported as `gen_ai.provider.name` on tracing spans."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: AsyncOpenAI | None = None,
        system_role: Literal["system", "developer"] = "system",
        max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens",
        reasoning_effort: ReasoningEffort | None = None,
        stream_usage: bool = True,
        retry_policy: RetryPolicy | None = None,
        retry_statuses: Collection[int] = DEFAULT_RETRY_STATUSES,
        timeout: float | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        if client is not None and (api_key is not None or base_url is not None):
            raise ValueError("pass either client or api_key/base_url, not both")
        options: dict[str, Any] = {"max_retries": 0}
        if timeout is not None:
            options["timeout"] = timeout
        self._owns_client = client is None
        if client is None:
            client = AsyncOpenAI(api_key=api_key, base_url=base_url, **options)
        else:
            client = client.with_options(**options)
        self.model = model
        self.client: AsyncOpenAI = client
        self.retry_policy = retry_policy or RetryPolicy()
        self.retry_statuses = frozenset(retry_statuses)
        self._settings = WireSettings(
            model=model,
            system_role=system_role,
            max_tokens_field=max_tokens_field,
            reasoning_effort=reasoning_effort,
            stream_usage=stream_usage,
        )
        self._sleep = sleep

    async def aclose(self) -> None:
        """Close the HTTP client this provider created (a passed-in client stays open:
        its owner closes it)."""
        if self._owns_client:
            await self.client.close()

    async def __aenter__(self) -> OpenAIProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r})"

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        """The `chat.completions.create` arguments this provider sends for `request`,
        to see how blocks and options map. Nested values (schemas, tool inputs) are the
        request's own objects: read them, do not change them."""
        return build_params(request, self._settings)

    def _error(self, error: Exception, *, after_content: bool = False) -> ProviderError:
        return to_provider_error(
            error, retry_statuses=self.retry_statuses, after_content=after_content
        )

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One whole reply. Retryable failures are retried per `retry_policy`."""
        params = build_params(request, self._settings)

        async def attempt() -> ModelResponse:
            try:
                completion = await self.client.chat.completions.create(**params)
                return response_from(completion)
            except (openai.OpenAIError, ValueError) as error:
                raise self._error(error) from error

        return await retry(attempt, self.retry_policy, sleep=self._sleep)

    def _stream_params(self, request: ModelRequest) -> dict[str, Any]:
        params = build_params(request, self._settings)
        params["stream"] = True
        if self._settings.stream_usage:
            params["stream_options"] = {"include_usage": True}
        return params

    async def _open(self, params: dict[str, Any]) -> _OpenStream:
        """Start a stream and read it up to the first delta; failures here are still
        retryable because nothing has been handed on."""
        try:
            stream = await self.client.chat.completions.create(**params)
        except openai.OpenAIError as error:
            raise self._error(error) from error
        state = StreamAccumulator()
        try:
            while True:
                try:
                    chunk = await stream.__anext__()
                except StopAsyncIteration:
                    return _OpenStream(stream, state, [], ended=True)
                deltas = state.feed(chunk)
                if deltas:
                    return _OpenStream(stream, state, deltas, ended=False)
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
        params = self._stream_params(request)

        async def attempt() -> _OpenStream:
            opened = await self._open(params)
            if opened.ended and not opened.state.finished:
                raise ProviderError(
                    "openai: stream ended before a finish reason",
                    provider=PROVIDER,
                    retryable=True,
                )
            return opened

        opened = await retry(attempt, self.retry_policy, sleep=self._sleep)
        stream, state = opened.stream, opened.state
        try:
            for delta in opened.first:
                yield delta
            while not opened.ended:
                try:
                    chunk = await stream.__anext__()
                    deltas = state.feed(chunk)
                except StopAsyncIteration:
                    break
                except Exception as error:
                    raise self._error(error, after_content=True) from error
                for delta in deltas:
                    yield delta
        finally:
            await stream.close()
        if not state.finished:
            raise ProviderError("openai: stream ended before a finish reason", provider=PROVIDER)
        yield state.response()
