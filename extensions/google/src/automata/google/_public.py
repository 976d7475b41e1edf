"""The two ways a `generateContent` body goes out: straight through the client's API
client (the direct path), or through the SDK's public `models.generate_content` and
`models.generate_content_stream` (for a client that lacks what the direct path needs).

The direct path posts the body with `client.aio._api_client.async_request` (and
`async_request_streamed`), the calls `models.generate_content` itself makes, and reads
the reply's JSON. Those are not public: `raw_request_problem` checks that a client
offers them with the parameters the direct path passes, and the provider takes the
public path when it does not.

The public path sends the same bytes. The SDK's own serialization of its types is not
the body the direct path sends (it writes nested keys in snake case, `mime_type`,
`parameters_json_schema`, `include_thoughts`, and moves function declarations after the
server-side tools), so the body rides whole in the call's `HttpOptions.extra_body`,
which the SDK lays over what it built from `contents` (the SDK's `types.Content`,
validated from the body's own contents); what goes on the wire is the body, key for key
and byte for byte, thought signatures and all. A whole reply is read from the JSON the
SDK hands back (`should_return_http_response`); a streamed one from the SDK's chunk
models dumped to JSON (camelCase, `None` left out), which keep every field the SDK's
types know.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Final

import pydantic

from automata.core.providers import ProviderError
from automata.google._wire import PROVIDER
from google.genai import types

__all__ = [
    "RAW_REQUEST_PARAMETERS",
    "ModelChunks",
    "generate",
    "open_stream",
    "raw_request_problem",
]

RAW_REQUEST_PARAMETERS: Final = ("http_method", "path", "request_dict", "http_options")
"""The leading parameters of the API client's `async_request` and
`async_request_streamed`, as the direct path passes them (positionally)."""
_RAW_METHODS: Final = ("async_request", "async_request_streamed")


def raw_request_problem(client: object) -> str | None:
    """None when `client.aio._api_client` has `async_request` and
    `async_request_streamed` taking `RAW_REQUEST_PARAMETERS` first; otherwise what is
    missing, for the warning that calls go through `models.generate_content`."""
    aio = getattr(client, "aio", None)
    api = getattr(aio, "_api_client", None)
    if api is None:
        return f"{type(client).__name__}.aio has no _api_client"
    for name in _RAW_METHODS:
        method = getattr(api, name, None)
        if not callable(method):
            return f"{type(api).__name__} has no {name}"
        try:
            parameters = tuple(inspect.signature(method).parameters)
        except (TypeError, ValueError):
            return f"the signature of {type(api).__name__}.{name} cannot be read"
        if parameters[: len(RAW_REQUEST_PARAMETERS)] != RAW_REQUEST_PARAMETERS:
            return f"{type(api).__name__}.{name} takes ({', '.join(parameters)})"
    return None


def _call(
    body: Mapping[str, Any], call_options: types.HttpOptions | None
) -> tuple[list[types.Content], types.HttpOptions]:
    """`contents` as the SDK's types, and the call's options carrying the body whole."""
    try:
        contents = [types.Content.model_validate(c) for c in body["contents"]]
    except pydantic.ValidationError as invalid:
        raise ProviderError(
            f"{PROVIDER}: the SDK's types refuse this request's contents, which only "
            f"the direct path sends as they are: {invalid}",
            provider=PROVIDER,
        ) from None
    options = call_options.model_copy() if call_options is not None else types.HttpOptions()
    options.extra_body = dict(body)
    return contents, options


async def generate(
    client: Any, model: str, body: Mapping[str, Any], call_options: types.HttpOptions | None
) -> types.HttpResponse:
    """`body` through `models.generate_content`: the SDK's HTTP response, whose `body`
    is the reply's JSON as sent."""
    contents, options = _call(body, call_options)
    config = types.GenerateContentConfig(http_options=options, should_return_http_response=True)
    reply = await client.aio.models.generate_content(model=model, contents=contents, config=config)
    response: types.HttpResponse = reply.sdk_http_response
    return response


class ModelChunks:
    """The SDK's stream of `GenerateContentResponse` models as an `SDKStream`: each
    chunk dumped to the JSON it was read from (see the module docstring)."""

    __slots__ = ("_chunks",)

    def __init__(self, chunks: Any) -> None:
        self._chunks = chunks

    async def __anext__(self) -> Any:
        chunk = await self._chunks.__anext__()
        return chunk.model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude={"sdk_http_response"}
        )

    async def close(self) -> None:
        await self._chunks.aclose()


async def open_stream(
    client: Any, model: str, body: Mapping[str, Any], call_options: types.HttpOptions | None
) -> ModelChunks:
    """`body` through `models.generate_content_stream`, its chunks as JSON."""
    contents, options = _call(body, call_options)
    config = types.GenerateContentConfig(http_options=options)
    chunks = await client.aio.models.generate_content_stream(
        model=model, contents=contents, config=config
    )
    return ModelChunks(chunks)
