"""How both OpenAI providers send a request on the default path: the body posted as
JSON data through the client's own `post`, so every client class (Azure's deployment
path and auth included) prepares it as its `create` would."""

from __future__ import annotations

from typing import Any, Final

import httpx2

from automata.core.providers import client_event_stream, post_raw
from automata.openai._reply import PROVIDER
from automata.openai._reply_stream import stream_decoder
from openai import AsyncOpenAI
from openai._streaming import SSEDecoder

__all__ = ["post_params"]

_OPTIONS: Final = {"security": {"bearer_auth": True}}
"""The API key as a bearer token, as the SDK's own create methods ask for it."""


async def post_params(client: AsyncOpenAI, path: str, params: dict[str, Any]) -> Any:
    """The HTTP response of posting `params` to `path`; when `params` stream, a stream
    of its events' JSON, read in the client's own framing."""
    stream = bool(params.get("stream"))
    response = await post_raw(
        client, path, params, response_class=httpx2.Response, stream=stream, options=_OPTIONS
    )
    if stream:
        return client_event_stream(
            client, response, stream_decoder(response), sse_decoder=SSEDecoder, provider=PROVIDER
        )
    return response
