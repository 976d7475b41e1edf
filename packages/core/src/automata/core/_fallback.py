"""Fallback between providers: one provider that tries a list of them in order.

`FallbackProvider([first, second])` sends each request to `first`; when that call
fails before any part of its reply was handed on, with an error worth repeating
(`is_retryable`: a `ProviderError` marked retryable, which is what the providers raise
for rate limits, overload, dropped connections and deadlines once their own retries
are spent) or of a type the user named (`switch_on`), the same request goes to
`second`, and so on. Once a delta has been handed on nothing switches: the error
propagates as it came. Every attempt is traced as a `chat` span of its own under
the run's model-call span. When every provider failed, `FallbackExhaustedError`
carries every attempt.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from opentelemetry import trace
from opentelemetry.trace import Span, TracerProvider

from automata.core._blocks import ThinkingBlock
from automata.core._errors import ArgumentTypeError, InvalidArgumentError, ProviderError
from automata.core._model_strings import as_provider, check_provider
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    ProviderStreamItem,
    StreamProvider,
    TextDelta,
    ThinkingDelta,
)
from automata.core._retry import is_retryable
from automata.core._tracing import Tracing, record_error
from automata.core._tracing import _set_usage as set_usage
from automata.core._usage import Usage

__all__ = [
    "FallbackAttempt",
    "FallbackExhaustedError",
    "FallbackProvider",
    "traced",
    "with_fallback",
]

ATTEMPT = "automata.fallback.attempt"
"""On each attempt's span: its number, 1 for the first provider."""
ANSWERED_BY = "automata.fallback.provider"
"""On the run's model-call span: the `provider_name` of the provider that answered."""
ANSWERED_MODEL = "automata.fallback.model"
"""On the run's model-call span: the `model` of the provider that answered."""
ATTEMPTS = "automata.fallback.attempts"
"""On the run's model-call span: how many providers were tried."""


@dataclass(frozen=True, slots=True)
class FallbackAttempt:
    """One failed attempt of a fallback chain: the provider tried (its
    `provider_name` and `model`) and the error it raised."""

    provider: str
    model: str | None
    error: Exception


class FallbackExhaustedError(ProviderError):
    """Every provider of a `FallbackProvider` failed before handing on any content,
    each with an error that switches. `attempts` holds them in the order tried (the
    last one's error is also the `__cause__`); `retryable` is True when every error
    was retryable; `usage` sums what the failed calls reported spending (None when
    none did), and `retries` the retries each provider made before failing, both of
    which a run counts."""

    def __init__(self, attempts: Sequence[FallbackAttempt]) -> None:
        self.attempts = tuple(attempts)
        tried = "; ".join(f"{_label(a.provider, a.model)}: {a.error}" for a in self.attempts)
        super().__init__(
            f"fallback: all {len(self.attempts)} providers failed: {tried}",
            provider="fallback",
            retryable=all(is_retryable(error) for error in self.errors),
            usage=_spent(self.errors),
        )
        self.retries = _retried(self.errors)

    @property
    def errors(self) -> tuple[Exception, ...]:
        """Each attempt's error, in the order tried."""
        return tuple(attempt.error for attempt in self.attempts)


def _spent(errors: Iterable[Exception]) -> Usage | None:
    """What the failed calls reported spending, summed; None when none reported any."""
    total: Usage | None = None
    for error in errors:
        usage = error.usage if isinstance(error, ProviderError) else None
        if usage is not None:
            total = usage if total is None else total + usage
    return total


def _retried(errors: Iterable[Exception]) -> int:
    """How many retries the failed calls made before giving up, summed."""
    return sum(error.retries for error in errors if isinstance(error, ProviderError))


def _label(name: str, model: str | None) -> str:
    return f"{name} ({model})" if model else name


class FallbackProvider:
    """A provider that tries `providers` in order (provider objects, or model strings
    such as `"openai:gpt-4.1"` resolved through the installed extensions).

    Guarantees, for `complete` and `stream` alike:

    - A provider's call that fails before any delta was handed on moves to the next
      provider with the same request when its error is retryable (`is_retryable`,
      after the provider's own retries) or an instance of a type in `switch_on`.
      Any other error is raised as it came, and the rest are not tried.
    - Once a delta (or the reply) was handed on, nothing switches: whatever the
      stream raises afterwards propagates unchanged (a run reports it as
      `IncompleteResponseError`, keeping the partial text).
    - The reply is the answering provider's own: its message, stop reason and usage.
      Its `model` is the one the reply names, else the answering provider's `model`.
      Its `retries` add the retries of the providers that failed before it
      (`ProviderError.retries`) to the answering provider's own, so a run's
      `RunResult.retries` counts every retry of the chain.
    - When every provider failed with an error that switches,
      `FallbackExhaustedError` is raised, carrying each attempt.
    - Each attempt is a `chat` span (the attributes of any model call, plus
      `automata.fallback.attempt`) under the current span, which gets
      `automata.fallback.provider`, `automata.fallback.model` and
      `automata.fallback.attempts` for the provider that answered. Spans go to
      `tracer_provider`; without one, to the tracer provider of the agent that runs
      it (`Agent` hands it its own), else OpenTelemetry's configured one.
    - Cancellation never switches.

    It advertises `provider_name = "fallback"`, the first provider's `model`,
    streaming when any provider streams (a provider that does not is read whole and
    handed on as one thinking and one text delta), and native output only when every
    provider has it. `aclose()` closes the providers it built from model strings;
    provider objects passed in stay open (their owner closes them).
    """

    provider_name = "fallback"

    def __init__(
        self,
        providers: Iterable[Provider | str],
        *,
        switch_on: Iterable[type[Exception]] = (),
        tracer_provider: TracerProvider | None = None,
    ) -> None:
        given = list(providers) if not isinstance(providers, str) else [providers]
        if not given:
            raise InvalidArgumentError(
                "FallbackProvider() needs at least one provider, got none; pass a list "
                'such as [AnthropicProvider(...), "openai:gpt-4.1"]'
            )
        self.providers: tuple[Provider, ...] = tuple(
            as_provider(item, where="FallbackProvider()") for item in given
        )
        self.switch_on: tuple[type[Exception], ...] = tuple(switch_on)
        for kind in self.switch_on:
            if not (isinstance(kind, type) and issubclass(kind, Exception)):
                raise ArgumentTypeError(
                    f"FallbackProvider(switch_on=...) takes exception classes, got {kind!r}"
                )
        pairs = zip(self.providers, given, strict=True)
        self._built = tuple(made for made, item in pairs if isinstance(item, str))
        self._tracing = Tracing.create(tracer_provider)
        self._own_tracing = tracer_provider is not None

    # -- what it advertises -------------------------------------------------------

    @property
    def model(self) -> str | None:
        """The first provider's model."""
        return self.providers[0].model

    @property
    def supports_streaming(self) -> bool:
        """Whether any provider streams."""
        return any(p.supports_streaming for p in self.providers)

    @property
    def supports_native_output(self) -> bool:
        """Whether every provider honours `ModelRequest.output_schema`."""
        return all(p.supports_native_output for p in self.providers)

    def _traced_by(self, tracing: Tracing) -> FallbackProvider:
        """This chain with its attempts (and those of chains in it) traced through
        `tracing`, the tracing of the agent that runs it, unless it was given a
        `tracer_provider` of its own; this chain does not change."""
        copied = copy.copy(self)
        copied.providers = tuple(traced(p, tracing) for p in self.providers)
        if not self._own_tracing:
            copied._tracing = tracing
        return copied

    def switches(self, error: Exception) -> bool:
        """Whether `error`, raised before any content, moves on to the next provider."""
        return is_retryable(error) or isinstance(error, self.switch_on)

    # -- calls --------------------------------------------------------------------

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The first reply a provider gives, in order (see the class docstring)."""
        tracing = self._tracing
        call_span = trace.get_current_span()
        failed: list[FallbackAttempt] = []
        for number, provider in enumerate(self.providers, 1):
            span = _attempt_span(tracing, provider, request, number)
            try:
                response = await provider.complete(request)
            except Exception as error:
                _fail(span, error)
                if not self.switches(error):
                    raise
                failed.append(FallbackAttempt(provider.provider_name, provider.model, error))
                continue
            except BaseException as error:
                _fail(span, error)
                raise
            tracing.finish_model_call(span, response)
            span.end()
            return _answered(call_span, provider, response, number, failed)
        raise FallbackExhaustedError(failed) from failed[-1].error

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        """The first stream a provider starts, in order, switching only before its
        first item was handed on (see the class docstring)."""
        tracing = self._tracing
        call_span = trace.get_current_span()
        failed: list[FallbackAttempt] = []
        for number, provider in enumerate(self.providers, 1):
            span = _attempt_span(tracing, provider, request, number)
            handed_on = False
            response: ModelResponse | None = None
            items = _items(provider, request)
            try:
                async for item in items:
                    if isinstance(item, ModelResponse):
                        response = item = _answered(call_span, provider, item, number, failed)
                    handed_on = True
                    yield item
            except GeneratorExit:  # the caller stopped reading: not a failure
                span.end()
                raise
            except Exception as error:
                _fail(span, error)
                if handed_on or not self.switches(error):
                    raise
                failed.append(FallbackAttempt(provider.provider_name, provider.model, error))
                continue
            except BaseException as error:
                _fail(span, error)
                raise
            finally:
                await _close(items)
            if response is not None:
                tracing.finish_model_call(span, response)
            span.end()
            return
        raise FallbackExhaustedError(failed) from failed[-1].error

    # -- lifecycle ------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the providers built from model strings (objects passed in stay open)."""
        for provider in self._built:
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()

    async def __aenter__(self) -> FallbackProvider:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        chain = ", ".join(_label(p.provider_name, p.model) for p in self.providers)
        return f"FallbackProvider([{chain}])"


def with_fallback(
    provider: Provider, fallback: Provider | str | Iterable[Provider | str] | None
) -> Provider:
    """`provider`, followed by `fallback` (one provider or model string, or several)
    when given: the `Agent(..., fallback=...)` spelling. A fallback that is neither a
    provider nor a model string raises `ArgumentTypeError` naming `Agent(fallback=...)`."""
    if fallback is None:
        return provider
    rest: list[Any]
    if isinstance(fallback, str) or not isinstance(fallback, Iterable):
        rest = [fallback]
    else:
        rest = list(fallback)
    if not rest:
        return provider
    for item in rest:
        if not isinstance(item, str):
            check_provider(item, where="Agent(fallback=...)")
    return FallbackProvider([provider, *rest])


def traced(provider: Provider, tracing: Tracing) -> Provider:
    """`provider` as an agent with `tracing` runs it: a `FallbackProvider` traces its
    attempts where the agent traces (`FallbackProvider._traced_by`); any other
    provider is returned as is."""
    if isinstance(provider, FallbackProvider):
        return provider._traced_by(tracing)
    return provider


def _attempt_span(tracing: Tracing, provider: Provider, request: ModelRequest, number: int) -> Span:
    """The span of one attempt, a child of the current span. It is never made
    current: a stream hands items on while it is open."""
    span = tracing.model_call(provider, request).span
    if span.is_recording():
        span.set_attribute(ATTEMPT, number)
    return span


def _fail(span: Span, error: BaseException) -> None:
    """End a failed attempt's span: the error, and what the call reported spending."""
    usage = error.usage if isinstance(error, ProviderError) else None
    if usage is not None and span.is_recording():
        set_usage(span, usage)
    record_error(span, error)
    span.end()


def _answered(
    call_span: Span,
    provider: Provider,
    response: ModelResponse,
    attempts: int,
    failed: Sequence[FallbackAttempt],
) -> ModelResponse:
    """The answering provider's reply, named on the run's model-call span and on the
    reply (`provider`); its model filled in from the provider when the reply names none,
    and its retries counting those of the `failed` attempts before it."""
    if call_span.is_recording():
        call_span.set_attribute(ANSWERED_BY, provider.provider_name)
        if provider.model:
            call_span.set_attribute(ANSWERED_MODEL, provider.model)
        call_span.set_attribute(ATTEMPTS, attempts)
    return replace(
        response,
        model=response.model or provider.model or "",
        provider=response.provider or provider.provider_name,
        retries=response.retries + _retried(attempt.error for attempt in failed),
    )


async def _items(provider: Provider, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
    """`provider`'s stream, or its whole reply as one thinking and one text delta and
    the reply when it does not stream (what a run shows of a whole reply)."""
    if provider.supports_streaming:
        async for item in cast(StreamProvider, provider).stream(request):
            yield item
        return
    response = await provider.complete(request)
    message = response.message
    thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
    if thinking:
        yield ThinkingDelta(thinking)
    if message.text:
        yield TextDelta(message.text)
    yield response


async def _close(items: AsyncIterator[ProviderStreamItem]) -> None:
    close = getattr(items, "aclose", None)
    if close is not None:
        await close()
