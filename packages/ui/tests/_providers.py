"""A scripted provider that also streams tool-call arguments, as Anthropic's and
OpenAI's do (the core's scripted one streams text and thinking only)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from automata.core import (
    Message,
    ModelRequest,
    ModelResponse,
    ProviderStreamItem,
    TextBlock,
    TextDelta,
    ToolCallDelta,
)
from automata.core.testing import response_for


class ArgumentStreamingProvider:
    """Answers with `replies` in turn; a reply's text is streamed, then each of its
    tool calls as two argument fragments."""

    provider_name = "scripted"
    model = None
    supports_streaming = True
    supports_native_output = False

    def __init__(self, replies: list[Message]) -> None:
        self._replies = list(replies)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return response_for(self._replies.pop(0))

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        reply = self._replies.pop(0)
        for block in reply.content:
            if isinstance(block, TextBlock):
                yield TextDelta(block.text)
        for call in reply.tool_calls:
            arguments = json.dumps(call.input)
            yield ToolCallDelta(call.id, call.name, arguments[:4])
            yield ToolCallDelta(call.id, call.name, arguments[4:])
        yield response_for(reply)
