"""A streamed Gemini reply (`:streamGenerateContent?alt=sse`) folded into deltas and one
final `ModelResponse`: each chunk is a `GenerateContentResponse` carrying the next
parts, read by the rules of `_reading.py`.

Gemini's stream has no end event of its own: the reply is whole once a chunk carries
the candidate's `finishReason` (or the prompt's `blockReason`). `usageMetadata` counts
are cumulative: the last chunk's are the reply's.
"""

from __future__ import annotations

import json
from typing import Any, Final

from automata.core.providers import (
    Delta,
    Message,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolUseBlock,
)
from automata.google._reading import (
    Parts,
    _stop,
    candidate_of,
    not_a_reply,
    parts_of,
    stop_of,
    turn_extra,
    usage_from,
)

__all__ = ["STREAM_END", "StreamAssembler"]

STREAM_END: Final = "a finishReason"
"""What marks a whole stream, as error messages name it."""

_NOTHING: Final[tuple[Delta, ...]] = ()


class StreamAssembler:
    """Folds the chunks of one streamed reply, each the JSON object of an event's data,
    into deltas and one final `ModelResponse` (an
    `automata.core.providers.StreamAssembler`)."""

    def __init__(self) -> None:
        self._parts = Parts()
        self._candidate: dict[str, Any] | None = None
        self._metadata: dict[str, Any] = {}
        self._feedback: object = None
        self._usage: object = None
        self._model = ""
        self.finished = False

    def feed(self, event: Any) -> tuple[Delta, ...]:
        if type(event) is not dict:
            raise not_a_reply(event, "a stream chunk is not an object")
        usage = event.get("usageMetadata")
        if usage is not None:
            self._usage = usage
        model = event.get("modelVersion")
        if type(model) is str and model:
            self._model = model
        feedback = event.get("promptFeedback")
        if feedback is not None:
            self._feedback = feedback
        candidate = candidate_of(event)
        deltas: list[Delta] = []
        if candidate is not None:
            self._candidate = candidate
            self._metadata.update(
                {k: v for k, v in candidate.items() if k not in ("content", "index")}
            )
            add = self._parts.add
            for part in parts_of(candidate):
                added = add(part)
                if added is None:
                    continue
                kind, value = added
                if kind == "text":
                    deltas.append(TextDelta(value))
                elif kind == "thought":
                    deltas.append(ThinkingDelta(value))
                else:
                    call: ToolUseBlock = value
                    deltas.append(ToolCallDelta(call.id, call.name, json.dumps(call.input)))
        if stop_of(candidate, feedback):
            self.finished = True
        return tuple(deltas) if deltas else _NOTHING

    def response(self) -> ModelResponse:
        metadata = self._metadata if self._candidate is not None else None
        raw_stop = stop_of(metadata, self._feedback)
        return ModelResponse(
            message=Message(
                role="assistant",
                content=self._parts.blocks(),
                extra=turn_extra(metadata, self._feedback),
            ),
            stop_reason=_stop(raw_stop, metadata, self._parts.calls),
            usage=usage_from(self._usage),
            raw_stop_reason=raw_stop,
            model=self._model,
        )
