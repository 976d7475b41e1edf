"""A streamed Messages API reply folded into deltas and one final `ModelResponse`: the
one stream folder of this wire.

`stream_decoder` turns the server-sent events of a raw response into their data's JSON
(or the SDK's error for an `error` event); `StreamAccumulator` folds those JSON events
by the rules of `_reading.py`; `ModelEventsAccumulator` folds the SDK's event models
(a stream of `messages.create`) by dumping each to its JSON first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx2

from anthropic import AsyncAnthropic
from automata.anthropic._reading import (
    arguments_from,
    block_from,
    json_of,
    object_of,
    stream_usage,
    tool_use,
    turn_extra,
)
from automata.anthropic._wire import PROVIDER, map_stop_reason
from automata.core.providers import (
    SKIP,
    Block,
    Delta,
    Message,
    ModelResponse,
    ProviderError,
    RawBlock,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from automata.core.providers.reading import read_arguments

__all__ = ["ModelEventsAccumulator", "StreamAccumulator", "stream_decoder"]

_IGNORED_EVENTS: Final = frozenset({"ping"})
_NOTHING: Final[tuple[Delta, ...]] = ()
# The text each known delta carries.
_TEXT_FIELDS: Final[Mapping[str, str]] = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
    "signature_delta": "signature",
}
_TEXT_TYPES: Final = frozenset({str, type(None)})
# The deltas each modelled block type takes (signature_delta is thinking's).
_TAKES: Final[Mapping[str, frozenset[str]]] = {
    "text": frozenset({"text_delta", "citations_delta"}),
    "thinking": frozenset({"thinking_delta", "signature_delta"}),
    "tool_use": frozenset({"input_json_delta"}),
}


def stream_decoder(
    client: AsyncAnthropic, response: httpx2.Response
) -> Callable[[str | None, str], Any]:
    """The `SSEStream` decoder for a Messages stream, as the SDK's stream reads it:
    unnamed events, pings and events without data are skipped; an `error` event
    raises the SDK's `APIStatusError` for its body (the status of the response it came
    in, 200); any other event is its data's JSON."""

    def decode(event: str | None, data: str) -> Any:
        if event is None or event in _IGNORED_EVENTS:
            return SKIP
        if event == "error":
            body: object = data
            try:
                body = json.loads(data)
                message = f"{body}"
            except ValueError:
                message = data or f"Error code: {response.status_code}"
            raise client._make_status_error(message, body=body, response=response)
        if not data:
            return SKIP
        return json.loads(data)

    return decode


def _fold(data: dict[str, Any], delta: Mapping[str, Any]) -> None:
    """Fold an unmodelled delta into a raw block's data: strings are appended, lists
    extended, anything else replaces the field."""
    for key, value in delta.items():
        if key == "type":
            continue
        current = data.get(key)
        if isinstance(value, str) and isinstance(current, str | None):
            data[key] = (current or "") + value
        elif isinstance(value, list) and isinstance(current, list | None):
            data[key] = [*(current or []), *value]
        else:
            data[key] = value


class _Pending:
    """One content block being assembled from stream events."""

    __slots__ = ("data", "json", "kind", "parts")

    def __init__(self, data: dict[str, Any]) -> None:
        self.kind = data.get("type")
        self.data = data
        self.parts: list[str] = []
        self.json: list[str] = []

    def finish(self) -> Block:
        data = self.data
        if self.kind in ("text", "thinking"):
            data[self.kind] = (data.get(self.kind) or "") + "".join(self.parts)
            return block_from(data)
        if self.kind == "tool_use":
            text = "".join(self.json)
            arguments = read_arguments(text) if text else arguments_from(data.get("input"))
            return tool_use(data, arguments)
        if self.json:
            # Server tool calls stream their input like tool_use does.
            value, error = read_arguments("".join(self.json))
            if error is not None:
                raise ProviderError(f"{PROVIDER}: {self.kind} block: {error}", provider=PROVIDER)
            data["input"] = value
        return RawBlock(provider=PROVIDER, data=data)


def _malformed(detail: str) -> ProviderError:
    return ProviderError(f"{PROVIDER}: {detail}", provider=PROVIDER)


class StreamAccumulator:
    """Folds Messages API stream events, given as the JSON objects of their `data`,
    into deltas and one final `ModelResponse`.

    `feed` returns the deltas to hand on (at most one per event; empty when the event
    carries none). `finished` turns true at `message_stop`; `response()` is only valid
    then. Implements `automata.core.providers.StreamAssembler`. A delta that a known
    block type does not take, or an event of the wrong shape, raises `ProviderError`
    (see `_reading.py`).
    """

    def __init__(self) -> None:
        self._blocks: dict[int, _Pending] = {}
        self._done: dict[int, Block] = {}
        self._start_usage: object = None
        self._delta_usage: object = None
        self._stop_reason = ""
        self._model = ""
        self._container: object = None
        self.finished = False

    def _delta(self, pending: _Pending, delta: dict[str, Any]) -> tuple[Delta, ...]:
        delta_kind = delta.get("type")
        kind = pending.kind
        field = _TEXT_FIELDS.get(delta_kind)  # type: ignore[arg-type]
        if field is not None and type(delta.get(field)) not in _TEXT_TYPES:
            raise _malformed(f"a {delta_kind} whose {field} is not a string")
        if kind == "text" and delta_kind == "text_delta":
            text = delta.get("text")
            if text:
                pending.parts.append(text)
                return (TextDelta(text),)
        elif kind == "thinking" and delta_kind == "thinking_delta":
            thinking = delta.get("thinking")
            if thinking:
                pending.parts.append(thinking)
                return (ThinkingDelta(thinking),)
        elif delta_kind == "input_json_delta" and kind not in ("text", "thinking"):
            fragment = delta.get("partial_json")
            if fragment:
                pending.json.append(fragment)
                if kind == "tool_use":
                    data = pending.data
                    return (ToolCallDelta(data.get("id") or "", data.get("name") or "", fragment),)
        elif kind == "thinking" and delta_kind == "signature_delta":
            pending.data["signature"] = (pending.data.get("signature") or "") + (
                delta.get("signature") or ""
            )
        elif kind == "text" and delta_kind == "citations_delta":
            citations = pending.data.get("citations")
            citation = dict(object_of(delta.get("citation"), "a citations_delta's citation"))
            pending.data["citations"] = [*(citations or ()), citation]
        elif kind in _TAKES:
            raise _malformed(f"unexpected {delta_kind} in a {kind} block")
        else:
            _fold(pending.data, delta)
        return _NOTHING

    def feed(self, event: Any) -> tuple[Delta, ...]:
        if type(event) is not dict:
            raise _malformed(f"a stream event is not an object: {event!r:.80}")
        kind = event.get("type")
        if kind == "content_block_delta":
            index = event.get("index")
            pending = self._blocks.get(index)  # type: ignore[arg-type]
            if pending is None:
                raise _malformed(f"a content_block_delta for block {index!r}, which is not open")
            delta = event.get("delta")
            if type(delta) is not dict:
                raise _malformed("a content_block_delta without a delta object")
            if pending.kind == "text" and delta.get("type") == "text_delta":
                text = delta.get("text")  # the most common event, read inline
                if type(text) is str:
                    if not text:
                        return _NOTHING
                    pending.parts.append(text)
                    return (TextDelta(text),)
            return self._delta(pending, delta)
        if kind == "content_block_start":
            block = event.get("content_block")
            if type(block) is not dict:
                raise _malformed("a content_block_start without a content_block object")
            pending = _Pending(dict(block))
            self._blocks[event.get("index")] = pending  # type: ignore[index]
            if pending.kind in ("text", "thinking"):
                initial = pending.data.get(pending.kind)
                pending.data[pending.kind] = ""
                if initial:
                    pending.parts.append(initial)
                    if pending.kind == "text":
                        return (TextDelta(initial),)
                    return (ThinkingDelta(initial),)
            return _NOTHING
        if kind == "content_block_stop":
            index = event.get("index")
            done = self._blocks.pop(index, None)  # type: ignore[arg-type]
            if done is not None:
                self._done[index] = done.finish()  # type: ignore[index]
            return _NOTHING
        if kind == "message_start":
            message = event.get("message")
            if type(message) is dict:
                self._start_usage = message.get("usage")
                self._model = message.get("model") or ""
                self._container = message.get("container")
        elif kind == "message_delta":
            usage = event.get("usage")
            if usage is not None:
                self._delta_usage = usage
            delta = event.get("delta")
            if type(delta) is dict:
                stop_reason = delta.get("stop_reason")
                if stop_reason:
                    self._stop_reason = stop_reason
                container = delta.get("container")
                if container is not None:
                    self._container = container
        elif kind == "message_stop":
            self.finished = True
        return _NOTHING

    def response(self) -> ModelResponse:
        # Blocks never stopped (should not happen after message_stop) are kept too.
        for index, pending in self._blocks.items():
            self._done[index] = pending.finish()
        self._blocks.clear()
        blocks = tuple(self._done[i] for i in sorted(self._done))
        return ModelResponse(
            message=Message(role="assistant", content=blocks, extra=turn_extra(self._container)),
            stop_reason=map_stop_reason(self._stop_reason),
            usage=stream_usage(self._start_usage, self._delta_usage),
            raw_stop_reason=self._stop_reason,
            model=self._model,
        )


class ModelEventsAccumulator(StreamAccumulator):
    """`StreamAccumulator` for the SDK's event models (a stream of
    `messages.create`): each event is dumped to its JSON (`json_of`) and folded by
    the same rules."""

    def feed(self, event: Any) -> tuple[Delta, ...]:
        return super().feed(json_of(event))
