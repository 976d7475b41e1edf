"""Turning the OpenAI SDK's exceptions into automata's `ProviderError`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final

import httpx2

import openai
from automata.core._errors import ProviderError
from automata.core._retry import parse_retry_after
from automata.openai._wire import PROVIDER

DEFAULT_RETRY_STATUSES: Final = frozenset({429, 503, 529})
"""Rate limited, unavailable, overloaded: worth repeating after a wait."""

# An error sent inside a stream has a type or code but no HTTP status of its own.
_STATUS_OF_STREAM_ERROR: Final[Mapping[str, int]] = {
    "rate_limit_exceeded": 429,
    "rate_limit_error": 429,
    "server_overloaded": 503,
    "overloaded_error": 529,
    "server_error": 500,
    "invalid_request_error": 400,
}


def _vendor_message(error: openai.APIError) -> str:
    body = error.body
    if isinstance(body, Mapping):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
    return error.message


def to_provider_error(
    error: Exception, *, retry_statuses: Collection[int], after_content: bool = False
) -> ProviderError:
    """A `ProviderError` carrying the vendor's status, error code and message.

    `after_content` marks a failure after part of the reply was already handed on: it
    is never retryable then, whatever the status says.
    """
    if isinstance(error, ProviderError):
        if after_content and error.retryable:
            return ProviderError(str(error), provider=PROVIDER, status=error.status)
        return error
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        kind = error.code or error.type or ""
        return ProviderError(
            f"openai: {f'{status} {kind}'.strip()}: {_vendor_message(error)}",
            provider=PROVIDER,
            status=status,
            retryable=not after_content and status in retry_statuses,
            retry_after=parse_retry_after(error.response.headers),
        )
    if isinstance(error, openai.APIConnectionError | httpx2.TransportError):
        # The SDK wraps failures to connect (and, for streams, most read failures);
        # anything it lets through is the HTTP client's own error.
        detail = error.message if isinstance(error, openai.APIError) else str(error)
        return ProviderError(
            f"openai: connection failed: {detail or type(error).__name__}",
            provider=PROVIDER,
            retryable=not after_content,
        )
    if isinstance(error, openai.APIError):
        # An error reported inside a stream.
        kind = error.code or error.type or ""
        stream_status = _STATUS_OF_STREAM_ERROR.get(kind)
        return ProviderError(
            f"openai: {kind or 'error'}: {_vendor_message(error)}",
            provider=PROVIDER,
            status=stream_status,
            retryable=not after_content and stream_status in retry_statuses,
        )
    reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return ProviderError(f"openai: {reason}", provider=PROVIDER)
