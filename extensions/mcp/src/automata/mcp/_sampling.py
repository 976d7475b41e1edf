"""Sampling: a server's `sampling/createMessage` request answered by an automata provider.

The request's messages become a `ModelRequest` (its system prompt leading as a system
message, `maxTokens`, `temperature` and `stopSequences` as `CallOptions`); the
provider's reply becomes the `CreateMessageResult`. The client declares sampling only
when it has a provider, so a server of a client without one is refused by the SDK
("Sampling not supported", `INVALID_REQUEST`)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from mcp import types as mcp_types
from mcp.client.session import ClientRequestContext, SamplingFnT
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from automata.core import (
    Block,
    CallOptions,
    ImageBlock,
    Message,
    ModelRequest,
    ModelResponse,
    Provider,
    StopReason,
    TextBlock,
)
from automata.mcp._connection import describe

__all__ = ["sampling_callback", "sampling_request", "sampling_result"]

_STOP_REASONS = {StopReason.END_TURN: "endTurn", StopReason.MAX_TOKENS: "maxTokens"}


class _Unsupported(ValueError):
    """Sampling content this client does not take (tool use: it declares no tools)."""


def sampling_request(params: mcp_types.CreateMessageRequestParams) -> ModelRequest:
    """The provider request for a server's sampling request. Raises `ValueError` for
    content the client does not take (tool use and tool results)."""
    messages: list[Message] = []
    if params.system_prompt:
        messages.append(Message.system(params.system_prompt))
    for item in params.messages:
        content = item.content if isinstance(item.content, list) else [item.content]
        blocks = tuple(_block(part) for part in content)
        messages.append(Message(role=item.role, content=blocks))
    options = CallOptions(
        max_tokens=params.max_tokens,
        temperature=params.temperature,
        stop_sequences=tuple(params.stop_sequences) if params.stop_sequences else None,
    )
    return ModelRequest(messages=tuple(messages), options=options)


def _block(part: mcp_types.SamplingMessageContentBlock) -> Block:
    if isinstance(part, mcp_types.TextContent):
        return TextBlock(text=part.text)
    if isinstance(part, mcp_types.ImageContent):
        try:
            return ImageBlock(media_type=part.mime_type, data=base64.b64decode(part.data))
        except (binascii.Error, ValueError):
            return TextBlock(text=f"[image ({part.mime_type}) could not be decoded]")
    if isinstance(part, mcp_types.AudioContent):
        return TextBlock(text=f"[audio ({part.mime_type}) not shown]")
    raise _Unsupported(f"{part.type} content in sampling requests is not supported")


def sampling_result(response: ModelResponse, provider: Provider) -> mcp_types.CreateMessageResult:
    """The sampling result for a provider's reply: its text, the model that answered
    (the reply's, else the provider's, else the provider's name) and its stop reason
    (`endTurn`, `maxTokens`, else the provider's own value)."""
    stop = _STOP_REASONS.get(response.stop_reason, response.raw_stop_reason or response.stop_reason)
    return mcp_types.CreateMessageResult(
        role="assistant",
        content=mcp_types.TextContent(text=response.message.text),
        model=response.model or provider.model or provider.provider_name,
        stop_reason=stop,
    )


def sampling_callback(provider: Provider, server: Callable[[], str]) -> SamplingFnT:
    """The SDK sampling callback answering with `provider`: content it cannot take is
    refused with `INVALID_PARAMS`, a provider that fails with `INTERNAL_ERROR` naming
    the error (the server sees why; nothing is retried here beyond the provider's own
    retries)."""

    async def answer(
        context: ClientRequestContext, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        try:
            request = sampling_request(params)
        except _Unsupported as error:
            return mcp_types.ErrorData(code=INVALID_PARAMS, message=str(error))
        try:
            response = await provider.complete(request)
        except Exception as error:
            return mcp_types.ErrorData(
                code=INTERNAL_ERROR,
                message=f"the model of the client of {server()!r} failed: {describe(error)}",
            )
        return sampling_result(response, provider)

    return answer
