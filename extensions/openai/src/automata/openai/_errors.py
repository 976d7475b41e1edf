"""Turning the OpenAI SDK's exceptions into automata's `ProviderError`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import httpx2

import openai
from automata.core.providers import ProviderError, SDKProvider, Usage

# An error sent inside a stream has a type or code but no HTTP status of its own.
_STATUS_OF_STREAM_ERROR: Final[Mapping[str, int]] = {
    "rate_limit_exceeded": 429,
    "rate_limit_error": 429,
    "server_overloaded": 503,
    "overloaded_error": 529,
    "server_error": 500,
    "invalid_request_error": 400,
}


class StreamErrorEvent(openai.APIError):
    """An error the server sent inside a stream, read on the default path: the SDK's
    `APIError` for it (as the SDK's own stream raises), with the `usage` its chunk
    carried (OpenRouter's "token limit reached"), None when it carried none."""

    def __init__(
        self, message: str, request: httpx2.Request, *, body: object, usage: Usage | None
    ) -> None:
        super().__init__(message, request, body=body)
        self.usage = usage


def reported_in_stream(error: Exception) -> bool:
    """Whether `error` is an error event of a stream (the SDK's `APIError` that is
    neither an HTTP status nor a connection failure)."""
    return isinstance(error, openai.APIError) and not isinstance(
        error, openai.APIStatusError | openai.APIConnectionError
    )


def _vendor_message(error: openai.APIError) -> str:
    body = error.body
    if isinstance(body, Mapping):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
    return error.message


def vendor_error(
    provider: SDKProvider[openai.AsyncOpenAI], error: Exception
) -> ProviderError | None:
    """The `ProviderError` for an OpenAI SDK (or HTTP client) error; None for anything
    else. An error sent inside a stream has no HTTP status of its own: its type or
    code gives one when known."""
    if isinstance(error, openai.APIStatusError):
        kind = error.code or error.type or ""
        return provider.status_error(
            error.status_code, kind, _vendor_message(error), headers=error.response.headers
        )
    if isinstance(error, openai.APIConnectionError | httpx2.TransportError):
        # The SDK wraps failures to connect (and, for streams, most read failures);
        # anything it lets through is the HTTP client's own error.
        return provider.connection_error(error)
    if isinstance(error, openai.APIError):
        # An error reported inside a stream.
        kind = error.code or error.type or ""
        mapped = provider.status_error(
            _STATUS_OF_STREAM_ERROR.get(kind), kind, _vendor_message(error)
        )
        if isinstance(error, StreamErrorEvent):
            mapped.usage = error.usage
        return mapped
    return None
