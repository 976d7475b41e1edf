"""Requests posted, and JSON replies read, through a vendor SDK's own client but
without its parameter transformation or its response models.

The official Anthropic and OpenAI SDKs share one base client, whose documented
`client.post(path, cast_to=httpx.Response, ...)` makes a custom request with
everything the client adds (base URL, auth and version headers, timeouts, an
idempotency key, the SDK's error types for error statuses) and hands back the HTTP
response itself. `post_raw` sends a body encoded here (`encode_body`) as its
`content`, which the SDK sends as is; `reply_data` reads a reply's JSON as the SDK
would. `raw_post_problem` checks that a client's `post` still takes what `post_raw`
passes, so a provider can fall back to the SDK's own calls when it does not.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any, Final, Protocol, TypeVar

from pydantic import BaseModel

__all__ = [
    "RAW_POST_PARAMETERS",
    "RawResponse",
    "encode_body",
    "post_raw",
    "raw_post_problem",
    "read_reply",
    "reply_data",
]

T = TypeVar("T")

RAW_POST_PARAMETERS: Final = ("cast_to", "content", "options", "stream")
"""The keyword parameters of the SDK client's `post` that `post_raw` uses."""


class RawResponse(Protocol):
    """What `reply_data` needs of an HTTP response (an `httpx.Response` read whole)."""

    @property
    def content(self) -> bytes: ...

    @property
    def text(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]: ...


def _plain(value: object) -> Any:
    """What JSON cannot encode natively, as the SDKs' encoder sends it."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ENCODER: Final = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_plain
)


def encode_body(body: Mapping[str, Any]) -> bytes:
    """`body` as the UTF-8 JSON the SDKs send: compact, not ASCII-escaped, NaN and
    infinities refused (`ValueError`), dates as ISO 8601, pydantic models dumped."""
    return _ENCODER.encode(body).encode()


def raw_post_problem(client: object) -> str | None:
    """None when `client.post` takes the keyword parameters `post_raw` passes
    (`RAW_POST_PARAMETERS`); otherwise what is missing, for a fallback's warning."""
    post = getattr(client, "post", None)
    if post is None or not callable(post):
        return f"{type(client).__name__} has no post method"
    try:
        parameters = inspect.signature(post).parameters
    except (TypeError, ValueError):
        return f"the signature of {type(client).__name__}.post cannot be read"
    missing = [name for name in RAW_POST_PARAMETERS if name not in parameters]
    if missing:
        return f"{type(client).__name__}.post takes no {', '.join(missing)}"
    return None


async def post_raw(
    client: Any,
    path: str,
    body: bytes,
    *,
    response_class: type[T],
    stream: bool,
    options: Mapping[str, Any] | None = None,
) -> T:
    """POST `body` (encoded JSON) to `path` through the SDK `client`: the HTTP
    response (opened for streaming when `stream`), or the SDK's `APIStatusError`
    subclass for an error status and its connection errors, as its own calls raise
    them. `options` are the SDK's request options (headers, timeout, ...)."""
    response: T = await client.post(
        path,
        cast_to=response_class,
        content=body,
        options=dict(options or {}),
        stream=stream,
    )
    return response


def reply_data(response: RawResponse) -> Any:
    """A whole reply's JSON, as the SDKs read it: a body that is not JSON is its text,
    unless the reply says it is JSON (then the `JSONDecodeError`)."""
    try:
        return json.loads(response.content)
    except ValueError:
        content_type = response.headers.get("content-type", "*").split(";")[0]
        if content_type.lower().endswith("json"):
            raise
        return response.text


def read_reply(response: RawResponse, fast: Callable[[Any], T], sdk: Callable[[Any], T]) -> T:
    """`fast(data)` for a whole reply's JSON. When it raises (a reply of the wrong
    shape), `sdk(data)` reads the same data through the SDK's models, so a malformed
    reply fails (or reads) exactly as it does on the SDK's own path."""
    data = reply_data(response)
    try:
        return fast(data)
    except Exception:
        pass  # the SDK's reading decides what a malformed reply raises
    return sdk(data)
