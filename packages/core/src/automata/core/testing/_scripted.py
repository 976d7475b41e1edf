"""Providers for tests: replies given in advance, or computed from each request."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass

from automata.core._blocks import Message, TextBlock, ThinkingBlock
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    TextDelta,
    ThinkingDelta,
)
from automata.core._stop import StopReason

__all__ = [
    "BrokenStream",
    "FunctionProvider",
    "Reply",
    "ReplyFunction",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "response_for",
]


class ScriptExhaustedError(AssertionError):
    """A scripted provider was called more times than it has replies."""


@dataclass(frozen=True, slots=True)
class BrokenStream:
    """A reply whose stream delivers `text` and then fails with `error`, the way a
    dropped connection does mid-answer. Called without streaming, it just fails."""

    text: str
    error: Exception


Reply = str | Message | ModelResponse | BrokenStream | BaseException
"""A scripted reply. A bare string is a text reply: an assistant message with one
`TextBlock`, ending the turn."""


def response_for(message: Message) -> ModelResponse:
    """An assistant message as a response: `tool_use` when it calls tools, else
    `end_turn`; no usage reported."""
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(message=message, stop_reason=stop, raw_stop_reason=stop.value)


def _as_response(reply: str | Message | ModelResponse) -> ModelResponse:
    if isinstance(reply, ModelResponse):
        return reply
    if isinstance(reply, str):
        return response_for(Message.assistant(reply))
    return response_for(reply)


async def _stream_reply(reply: Reply) -> AsyncIterator[ProviderStreamItem]:
    if isinstance(reply, BrokenStream):
        if reply.text:
            yield TextDelta(reply.text)
        raise reply.error
    if isinstance(reply, BaseException):
        raise reply
    response = _as_response(reply)
    for block in response.message.content:
        if isinstance(block, ThinkingBlock) and block.thinking:
            yield ThinkingDelta(block.thinking)
        elif isinstance(block, TextBlock) and block.text:
            yield TextDelta(block.text)
    yield response


def _complete_reply(reply: Reply) -> ModelResponse:
    if isinstance(reply, BrokenStream):
        raise reply.error
    if isinstance(reply, BaseException):
        raise reply
    return _as_response(reply)


class ScriptedProvider:
    """Answers each call with the next scripted reply, in order.

    A reply is a string (a text answer: an assistant message with one `TextBlock`), an
    assistant `Message` (stop reason `tool_use` when it calls tools, else `end_turn`,
    no usage), a `ModelResponse`, a `BrokenStream`, or an exception to raise. Every
    request is recorded in `.requests`. With `streaming=False` the provider does not
    stream (`supports_streaming` is False), like a provider without a stream API.
    Streams deliver one delta per thinking or text block. It advertises
    `provider_name = "scripted"`, no `model` and no native output; a subclass may
    override these class attributes.
    """

    provider_name: str = "scripted"
    model: str | None = None
    supports_native_output: bool = False

    def __init__(self, replies: Iterable[Reply], *, streaming: bool = True) -> None:
        self._replies = list(replies)
        self._next = 0
        self.requests: list[ModelRequest] = []
        self.supports_streaming = streaming

    @property
    def remaining(self) -> int:
        """How many replies have not been used yet."""
        return len(self._replies) - self._next

    def _take(self, request: ModelRequest) -> Reply:
        self.requests.append(request)
        if self._next >= len(self._replies):
            raise ScriptExhaustedError(
                f"ScriptedProvider has {len(self._replies)} replies; call "
                f"{len(self.requests)} has none"
            )
        reply = self._replies[self._next]
        self._next += 1
        return reply

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return _complete_reply(self._take(request))

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        return _stream_reply(self._take(request))


ReplyFunction = Callable[[ModelRequest], Reply | Awaitable[Reply]]


class FunctionProvider:
    """Computes each reply from the request with `function` (sync or async), which
    returns anything `ScriptedProvider` accepts as a reply (a string is a text
    answer). Records `.requests`. Advertises `provider_name = "function"`, no `model`
    and no native output; a subclass may override these class attributes."""

    provider_name: str = "function"
    model: str | None = None
    supports_native_output: bool = False

    def __init__(self, function: ReplyFunction, *, streaming: bool = True) -> None:
        self._function = function
        self.requests: list[ModelRequest] = []
        self.supports_streaming = streaming

    async def _reply(self, request: ModelRequest) -> Reply:
        self.requests.append(request)
        reply = self._function(request)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return _complete_reply(await self._reply(request))

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        async for item in _stream_reply(await self._reply(request)):
            yield item
