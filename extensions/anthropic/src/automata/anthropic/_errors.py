"""Turning the Anthropic SDK's exceptions into automata's `ProviderError`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final

import httpx2

import anthropic
from automata.anthropic._wire import PROVIDER
from automata.core._errors import ProviderError
from automata.core._retry import parse_retry_after

DEFAULT_RETRY_STATUSES: Final = frozenset({429, 503, 529})
"""Rate limited, unavailable, overloaded: worth repeating after a wait."""

# An `error` event inside a 200 stream names its kind but has no status of its own.
_STATUS_OF_ERROR_TYPE: Final[Mapping[str, int]] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def to_provider_error(
    error: Exception, *, retry_statuses: Collection[int], after_content: bool = False
) -> ProviderError:
    """A `ProviderError` carrying the vendor's status, error type and message.

    `after_content` marks a failure after part of the reply was already handed on: it
    is never retryable then, whatever the status says.
    """
    if isinstance(error, ProviderError):
        if after_content and error.retryable:
            return ProviderError(
                str(error), provider=PROVIDER, status=error.status, retryable=False
            )
        return error
    if isinstance(error, anthropic.APIStatusError):
        kind = error.type or ""
        status = error.status_code
        if 200 <= status < 300:  # an `error` event inside a successful stream
            status = _STATUS_OF_ERROR_TYPE.get(kind, 500)
        detail = error.api_message or error.message
        label = f"{status} {kind}".strip()
        return ProviderError(
            f"anthropic: {label}: {detail}",
            provider=PROVIDER,
            status=status,
            retryable=not after_content and status in retry_statuses,
            retry_after=parse_retry_after(error.response.headers),
        )
    if isinstance(error, anthropic.APIConnectionError | httpx2.TransportError):
        # The SDK wraps failures to connect; a connection lost while a stream is read
        # surfaces as the HTTP client's own error.
        detail = error.message if isinstance(error, anthropic.APIError) else str(error)
        return ProviderError(
            f"anthropic: connection failed: {detail or type(error).__name__}",
            provider=PROVIDER,
            retryable=not after_content,
        )
    # Anything else: a malformed reply, or a failure we cannot classify.
    reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return ProviderError(f"anthropic: {reason}", provider=PROVIDER, retryable=False)
