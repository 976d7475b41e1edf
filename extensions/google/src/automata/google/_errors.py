"""Turning the google-genai SDK's exceptions into automata's `ProviderError`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import httpx2

from automata.core.providers import ProviderError, SDKProvider
from google.genai import errors

__all__ = ["vendor_error"]

_SECONDS: Final = re.compile(r"^(\d+(?:\.\d+)?)s$")


def _retry_delay(details: object) -> dict[str, str]:
    """A `retry-after` header for the `google.rpc.RetryInfo` an error's details carry
    (`"retryDelay": "2s"`), or nothing."""
    error = details.get("error") if isinstance(details, Mapping) else None
    items = error.get("details") if isinstance(error, Mapping) else None
    for item in items if isinstance(items, list) else ():
        delay = item.get("retryDelay") if isinstance(item, Mapping) else None
        match = _SECONDS.match(delay) if isinstance(delay, str) else None
        if match:
            return {"retry-after": match.group(1)}
    return {}


def _headers(error: errors.APIError) -> Mapping[str, str]:
    response: Any = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    found = dict(headers) if headers is not None else {}
    if not any(k.lower() in ("retry-after", "retry-after-ms") for k in found):
        found.update(_retry_delay(error.details))
    return found


def vendor_error(provider: SDKProvider[Any], error: Exception) -> ProviderError | None:
    """The `ProviderError` for a google-genai SDK (or HTTP client) error; None for
    anything else. The status is the error's `code` (an error sent inside a stream
    names its own); the kind is its gRPC `status` (`RESOURCE_EXHAUSTED`, ...); the
    retry wait is the `Retry-After` header, else the error's `RetryInfo.retryDelay`."""
    if isinstance(error, errors.APIError):
        return provider.status_error(
            error.code or None,
            error.status or "",
            error.message or str(error),
            headers=_headers(error),
        )
    if isinstance(error, httpx2.TransportError):
        return provider.connection_error(error)
    return None
