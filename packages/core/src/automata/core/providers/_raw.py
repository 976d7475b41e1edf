"""Requests posted, and JSON replies read, through a vendor SDK's own client but
without its parameter transformation or its response models.

The official Anthropic and OpenAI SDKs share one base client, whose documented
`client.post(path, cast_to=httpx.Response, body=..., ...)` makes a custom request with
everything the client adds and hands back the HTTP response itself. `post_raw` passes
the request body there as the JSON object it is (the SDK's `body`, its `json_data`),
so every client class prepares the request exactly as its own `create` would: its
base URL, auth and version headers, timeouts, idempotency key and error types, and
whatever its class adds on the way (Azure's deployment path, Bedrock's and Vertex's
URLs built from the body's `model` and `stream`, request signing). `reply_data` reads
a reply's JSON as the SDK would. `raw_post_problem` checks that a client's `post`
still takes what `post_raw` passes, so a provider can fall back to the SDK's own
calls when it does not.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol, TypeVar

__all__ = [
    "RAW_POST_PARAMETERS",
    "RawResponse",
    "post_raw",
    "raw_post_problem",
    "read_reply",
    "reply_data",
]

T = TypeVar("T")

RAW_POST_PARAMETERS: Final = ("body", "cast_to", "options", "stream")
"""The keyword parameters of the SDK client's `post` that `post_raw` uses."""


class RawResponse(Protocol):
    """What `reply_data` needs of an HTTP response (an `httpx.Response` read whole)."""

    @property
    def content(self) -> bytes: ...

    @property
    def text(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]: ...


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
    body: Mapping[str, Any],
    *,
    response_class: type[T],
    stream: bool,
    options: Mapping[str, Any] | None = None,
) -> T:
    """POST `body` (a JSON object) to `path` through the SDK `client`, as its own
    `create` posts it: the client's class prepares and sends the request (its URL
    rewriting, body additions and signing included, see the module docstring). The
    HTTP response (opened for streaming when `stream`), or the SDK's `APIStatusError`
    subclass for an error status and its connection errors, as its own calls raise
    them. `options` are the SDK's request options (headers, timeout, `extra_json`,
    ...). The client copies `body` before changing anything in it."""
    response: T = await client.post(
        path,
        cast_to=response_class,
        body=body,
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
