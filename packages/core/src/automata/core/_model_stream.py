"""One model call's events: a provider's stream turned into stream events.

A streamed call emits one event per delta and returns the provider's final response;
a stream that breaks after content arrived keeps the partial text as the run's last
message and fails the run as incomplete, never retried. A non-streaming provider's
turn is reported as one thinking and one text event. The rules are in
docs/streaming.md.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from automata.core._batch import error_text
from automata.core._blocks import Message, TextBlock, ThinkingBlock, ToolUseBlock
from automata.core._errors import IncompleteResponseError, ProviderError, RunError
from automata.core._events import (
    PartialOutputEvent,
    TextEvent,
    ThinkingEvent,
    ToolCallDeltaEvent,
    ToolCallEvent,
)
from automata.core._partial import NO_VALUE, PartialOutput
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    StreamProvider,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from automata.core._stop import StopReason
from automata.core._structured import STRUCTURED_OUTPUT_TOOL

if TYPE_CHECKING:
    from automata.core._loop import RunLoop

__all__ = ["emit_calls", "emit_whole", "incomplete_stream", "stream_model"]


async def stream_model(
    loop: RunLoop, provider: StreamProvider, request: ModelRequest
) -> ModelResponse:
    """The provider's response to `request`, each delta emitted on the way."""
    emit = loop.emit
    assert emit is not None
    agent, invocation_id, depth = loop.settings.agent, loop.invocation_id, loop.depth
    text: list[str] = []
    streamed = False
    response: ModelResponse | None = None
    structured = None if loop.output is None else loop.output.structured
    partial: PartialOutput | None = None
    try:
        # The hot path of a streamed run: one pass per delta, events built inline.
        async for item in provider.stream(request):
            if isinstance(item, TextDelta):
                streamed = True
                text.append(item.text)
                emit(
                    TextEvent(agent=agent, invocation_id=invocation_id, depth=depth, text=item.text)
                )
            elif isinstance(item, ThinkingDelta):
                streamed = True
                emit(
                    ThinkingEvent(
                        agent=agent, invocation_id=invocation_id, depth=depth, text=item.text
                    )
                )
            elif isinstance(item, ToolCallDelta):
                streamed = True
                emit(
                    ToolCallDeltaEvent(
                        agent=agent,
                        invocation_id=invocation_id,
                        depth=depth,
                        call_id=item.id,
                        name=item.name,
                        delta=item.arguments,
                    )
                )
                if structured is not None and item.name == STRUCTURED_OUTPUT_TOOL:
                    if partial is None:
                        partial = PartialOutput(structured.output_type, structured.wrapped)
                    value = partial.feed(item.arguments)
                    if value is not NO_VALUE:
                        emit(
                            PartialOutputEvent(
                                agent=agent,
                                invocation_id=invocation_id,
                                depth=depth,
                                output=value,
                            )
                        )
            else:
                response = item
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        if not streamed:
            raise
        loop.count_failed_call(exc)
        raise incomplete_stream(loop, "".join(text), error_text(exc)) from exc
    if response is None:
        if not streamed:  # nothing arrived: an ordinary provider failure
            raise ProviderError("provider stream ended without a response")
        raise incomplete_stream(loop, "".join(text), "stream ended without a final message")
    return response


def incomplete_stream(loop: RunLoop, partial: str, why: str) -> RunError:
    """The stream broke after content arrived: keep the partial text, never retry."""
    if partial:
        message = Message(role="assistant", content=(TextBlock(text=partial),))
        loop.state.final_message = message
        loop.transcript.append(message)
    return loop.fail(IncompleteResponseError(f"response incomplete: {why}"), StopReason.INCOMPLETE)


def emit_whole(loop: RunLoop, message: Message) -> None:
    """A non-streaming provider's turn as one thinking and one text event."""
    assert loop.emit is not None
    thinking = "".join(b.thinking for b in message.content if isinstance(b, ThinkingBlock))
    if thinking:
        loop.emit(loop.tag(ThinkingEvent, text=thinking))
    text = message.text
    if text:
        loop.emit(loop.tag(TextEvent, text=text))


def emit_calls(loop: RunLoop, calls: tuple[ToolUseBlock, ...]) -> None:
    """One `ToolCallEvent` per call of a turn, before its batch runs."""
    if loop.emit is not None:
        for call in calls:
            loop.emit(loop.tag(ToolCallEvent, call=call))
