"""Turning the Anthropic SDK's exceptions into automata's `ProviderError`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import httpx2

import anthropic
from automata.core.providers import ProviderError, SDKProvider

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


def vendor_error(
    provider: SDKProvider[anthropic.AsyncAnthropic], error: Exception
) -> ProviderError | None:
    """The `ProviderError` for an Anthropic SDK (or HTTP client) error; None for
    anything else. An `error` event inside a stream has no HTTP status of its own: its
    error type gives one."""
    if isinstance(error, anthropic.APIStatusError):
        kind = error.type or ""
        status = error.status_code
        if 200 <= status < 300:  # an `error` event inside a successful stream
            status = _STATUS_OF_ERROR_TYPE.get(kind, 500)
        return provider.status_error(
            status, kind, error.api_message or error.message, headers=error.response.headers
        )
    if isinstance(error, anthropic.APIConnectionError | httpx2.TransportError):
        # The SDK wraps failures to connect; a connection lost while a stream is read
        # surfaces as the HTTP client's own error.
        return provider.connection_error(error)
    return None
