"""`RetryTally`: how one provider call reports the attempts its retry policy repeated.

The count goes on the reply (`ModelResponse.retries`) or on the error the call ended
with (`ProviderError.retries`), and each retry is an `automata.retry` event on the
span current while the call runs (the run's model-call span, under tracing).
"""

from __future__ import annotations

from dataclasses import replace

from opentelemetry import trace

from automata.core._errors import ProviderError
from automata.core._provider import ModelResponse
from automata.core._retry import RetryAttempt

__all__ = ["RETRY_EVENT", "RetryTally"]

RETRY_EVENT = "automata.retry"
"""The name of the span event recorded for each retry."""


class RetryTally:
    """The `on_retry` callback of one call's `retry`: counts the retries and records
    each as a span event (its number, the wait before it, the error retried and its
    HTTP status when there was one)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, attempt: RetryAttempt) -> None:
        self.count += 1
        span = trace.get_current_span()
        if not span.is_recording():
            return
        error = attempt.error
        attributes: dict[str, str | int | float] = {
            "automata.retry.number": attempt.retry_number,
            "automata.retry.delay": attempt.delay,
            "error.type": type(error).__qualname__,
        }
        status = getattr(error, "status", None)
        if isinstance(status, int):
            attributes["http.response.status_code"] = status
        span.add_event(RETRY_EVENT, attributes)

    def on_reply(self, response: ModelResponse) -> ModelResponse:
        """`response` carrying this call's retries (itself when there were none)."""
        if not self.count:
            return response
        return replace(response, retries=response.retries + self.count)

    def on_error(self, error: ProviderError) -> ProviderError:
        """`error`, carrying this call's retries (set on it, since errors are raised as
        they are)."""
        error.retries += self.count
        return error
