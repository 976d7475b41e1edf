"""Messages API replies read straight from their JSON (the fast path), into the same
blocks `_reading.py` reads from the SDK's models.

`response_from_json` reads a whole reply's JSON object; `JsonStreamAccumulator` folds
stream events given as the JSON objects of their `data`; `stream_decoder` turns the
server-sent events of a response into those objects (or the SDK's error for an
`error` event). Every rule of `_reading.py` holds here too (nothing dropped, tool
arguments objects or reported, usage as billed): both paths share its block and
usage readers, and the provider tests run on both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import httpx2

from anthropic import AsyncAnthropic
from automata.anthropic._reading import (
    _NOTHING,
    _TAKES,
    _TEXT_FIELDS,
    _TEXT_TYPES,
    StreamAccumulator,
    _data,
    _fold,
    _modelled,
    _Pending,
    turn_extra,
    usage_extra,
    usage_from,
)
from automata.anthropic._wire import PROVIDER, map_stop_reason
from automata.core.providers import (
    SKIP,
    Delta,
    Message,
    ModelResponse,
    ProviderError,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from automata.core.providers.reading import count

__all__ = ["JsonStreamAccumulator", "response_from_json", "stream_decoder", "usage_from_json"]

_IGNORED_EVENTS: Final = frozenset({"ping"})


def usage_from_json(raw: object) -> Usage:
    """`usage_from` for a `usage` object read from JSON, without its generic field
    lookups when the object itemizes no iterations (the common case)."""
    if type(raw) is not dict or raw.get("iterations"):
        return usage_from(raw)
    get = raw.get
    return Usage(
        input_tokens=count(get("input_tokens")),
        output_tokens=count(get("output_tokens")),
        cache_read_tokens=count(get("cache_read_input_tokens")),
        cache_write_tokens=count(get("cache_creation_input_tokens")),
        extra=usage_extra(raw) if "server_tool_use" in raw else {},
    )


def response_from_json(data: dict[str, Any]) -> ModelResponse:
    """A `ModelResponse` for the JSON object of a whole reply (`type: "message"`).
    Raises on a body of another shape (the provider then reads it through the SDK)."""
    raw_stop = data.get("stop_reason") or ""
    content = tuple(
        _modelled(block) if type(block) is dict else _modelled(_data(block))
        for block in data["content"]
    )
    return ModelResponse(
        message=Message(role="assistant", content=content, extra=turn_extra(data.get("container"))),
        stop_reason=map_stop_reason(raw_stop),
        usage=usage_from_json(data.get("usage")),
        raw_stop_reason=raw_stop,
        model=data.get("model") or "",
    )


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


class JsonStreamAccumulator(StreamAccumulator):
    """`StreamAccumulator` for events given as JSON objects instead of the SDK's
    models: the same deltas, the same final `ModelResponse`, the same errors."""

    def _json_delta(self, pending: _Pending, delta: dict[str, Any]) -> tuple[Delta, ...]:
        delta_kind = delta.get("type")
        kind = pending.kind
        field = _TEXT_FIELDS.get(delta_kind)  # type: ignore[arg-type]
        if field is not None and type(delta.get(field)) not in _TEXT_TYPES:
            raise ProviderError(
                f"{PROVIDER}: a {delta_kind} whose {field} is not a string", provider=PROVIDER
            )
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
            citation = _data(delta.get("citation"))
            pending.data["citations"] = [*(citations or ()), citation]
        elif kind in _TAKES:
            raise ProviderError(
                f"{PROVIDER}: unexpected {delta_kind} in a {kind} block",
                provider=PROVIDER,
            )
        else:
            _fold(pending.data, _data(delta))
        return _NOTHING

    def feed(self, event: Any) -> tuple[Delta, ...]:
        if type(event) is not dict:
            raise ProviderError(
                f"{PROVIDER}: a stream event is not an object: {event!r:.80}", provider=PROVIDER
            )
        kind = event.get("type")
        if kind == "content_block_delta":
            index = event.get("index")
            pending = self._blocks.get(index)  # type: ignore[arg-type]
            if pending is None:
                raise ProviderError(
                    f"{PROVIDER}: a content_block_delta for block {index!r}, which is not open",
                    provider=PROVIDER,
                )
            delta = event.get("delta")
            if type(delta) is not dict:
                raise ProviderError(
                    f"{PROVIDER}: a content_block_delta without a delta object", provider=PROVIDER
                )
            if pending.kind == "text" and delta.get("type") == "text_delta":
                text = delta.get("text")  # the most common event, read inline
                if type(text) is str:
                    if not text:
                        return _NOTHING
                    pending.parts.append(text)
                    return (TextDelta(text),)
            return self._json_delta(pending, delta)
        if kind == "content_block_start":
            pending = _Pending(_data(event.get("content_block")))
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
