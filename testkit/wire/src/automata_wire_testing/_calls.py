"""Making one provider call in a test and reading what went over the wire."""

from __future__ import annotations

from typing import Any

from automata.core.providers import (
    Block,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    ToolResultBlock,
)
from automata.core.providers import SDKProvider as _SDKProvider
from automata_wire_testing._server import Responder, WireServer

__all__ = ["ask", "final_response", "sent_body", "stream_items", "stream_outcome", "tool_message"]

_Provider = _SDKProvider[Any]


async def stream_items(provider: _Provider, request: ModelRequest) -> list[ProviderStreamItem]:
    """Everything `provider.stream(request)` yields, in order."""
    return [item async for item in provider.stream(request)]


async def stream_outcome(provider: _Provider, request: ModelRequest) -> tuple[object, ...]:
    """What `provider.stream(request)` comes to, comparable across providers: the
    items it yields then `"done"`, or the items before its error then the error's type,
    message and retryability (`("error", type, message, retryable)`)."""
    items: list[object] = []
    try:
        async for item in provider.stream(request):
            items.append(item)
    except Exception as error:  # the outcome under comparison
        retryable = getattr(error, "retryable", None)
        return (*items, ("error", type(error).__name__, str(error), retryable))
    return (*items, "done")


async def final_response(
    provider: _Provider, request: ModelRequest, *, streamed: bool
) -> ModelResponse:
    """The reply to `request` through `complete`, or the last item of `stream`."""
    if not streamed:
        return await provider.complete(request)
    final = (await stream_items(provider, request))[-1]
    assert isinstance(final, ModelResponse), f"a stream ended with {final!r}"
    return final


async def sent_body(
    server: WireServer, provider: _Provider, request: ModelRequest, reply: Responder
) -> dict[str, Any]:
    """The JSON body the server received when `provider` completed `request` (the
    server answers with `reply`)."""
    server.enqueue(reply)
    await provider.complete(request)
    return server.received[-1].body


def ask(*messages: Message, **fields: Any) -> ModelRequest:
    """A `ModelRequest` of these messages (and any other `ModelRequest` fields)."""
    return ModelRequest(messages=messages, **fields)


def tool_message(call_id: str, *content: Block, is_error: bool = False) -> Message:
    """A `tool` message carrying one result for the call `call_id`."""
    block = ToolResultBlock(tool_use_id=call_id, content=content, is_error=is_error)
    return Message(role="tool", content=(block,))
