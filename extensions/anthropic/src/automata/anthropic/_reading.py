"""What the Anthropic Messages API sends back, as automata's blocks (replies).

`response_from` reads a whole reply, `StreamAccumulator` a streamed one; both read
the same blocks the same way:

- **Citations are typed.** A text block's `citations` (whole in JSON, one
  `citations_delta` at a time in a stream) become `TextBlock.citations`, each a
  `Citation` whose `raw` is the citation as received, which is what goes back.
- **The turn's own fields are kept.** A reply's top-level `container` (code
  execution; in a stream, on `message_delta`) goes in `Message.extra["anthropic"]`,
  whence `_wire.container_id` sends it back as the next request's `container`.
- **Nothing is dropped.** Other fields of a `text`, `thinking` or `tool_use` block
  that the core does not model are kept in the block's `extra` under `"anthropic"`
  and sent back with it. Every other block type is a
  `RawBlock` kept as received; in a stream, its deltas are folded into it (a string
  field is appended to, a list extended, anything else replaced), so a `compaction`
  block filled by `compaction_delta` keeps its content. A delta a known block type
  does not take fails the reply with a `ProviderError` instead of vanishing.
- **Tool arguments are objects or reported.** A tool call whose `input` is not a
  JSON object (a string, a list, cut-off or malformed `input_json_delta` fragments)
  gets empty `input` and `input_error` saying why, so the agent loop answers it as
  invalid arguments instead of running the tool on its defaults.
- **Usage is what is billed.** When `usage.iterations` is present (compaction passes,
  the advisor tool's model, ...), the counts are the sum over every iteration: the
  top-level counts are those of the `message` iterations only and would under-count.
  Without it, the top-level counts. A field the API leaves out (or sends as null)
  counts 0; `usage` itself may be missing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from automata.anthropic._wire import PROVIDER, map_stop_reason
from automata.core.providers import (
    Block,
    Citation,
    Delta,
    Message,
    ModelResponse,
    ProviderError,
    RawBlock,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallDelta,
    ToolUseBlock,
    Usage,
)
from automata.core.providers.reading import clip, count, read_arguments, typed

__all__ = [
    "StreamAccumulator",
    "block_from",
    "citation_from",
    "not_a_message",
    "response_from",
    "turn_extra",
    "usage_from",
]

_USAGE_FIELDS: Final = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_tokens", "cache_read_input_tokens"),
    ("cache_write_tokens", "cache_creation_input_tokens"),
)

# Fields of the modelled block types that the core block holds itself.
_MODELLED: Final[Mapping[str, frozenset[str]]] = {
    "text": frozenset({"type", "text"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "tool_use": frozenset({"type", "id", "name", "input"}),
}
_DEFAULTS: Final[Mapping[str, object]] = {"caller": {"type": "direct"}}

# --------------------------------------------------------------------------- usage


def _field(raw: Any, name: str) -> object:
    if isinstance(raw, Mapping):
        return raw.get(name)
    return getattr(raw, name, None)


def _iterations(raw: Any) -> list[Any] | None:
    iterations = _field(raw, "iterations")
    if isinstance(iterations, list) and iterations:
        return iterations
    return None


def usage_extra(raw: Any) -> dict[str, Any]:
    """`Usage.extra` for a usage's `server_tool_use` (the server tools' request counts:
    `{"anthropic": {"server_tool_use": {"web_search_requests": 1}}}`), its counts
    that are not 0 alone; `{}` when there are none."""
    tools = _field(raw, "server_tool_use")
    if tools is None:
        return {}
    if not isinstance(tools, Mapping):
        tools = tools.to_dict(mode="json") if hasattr(tools, "to_dict") else {}
    counts = {name: count(value) for name, value in tools.items() if count(value)}
    return {PROVIDER: {"server_tool_use": counts}} if counts else {}


def usage_from(raw: Any) -> Usage:
    """Core usage from an SDK `Usage` / `MessageDeltaUsage` (or None): the sum over
    `iterations` when the API itemizes them, else the top-level counts; the server
    tools' request counts in `extra` (`usage_extra`)."""
    parts = _iterations(raw) or [raw]
    return Usage(
        **{core: sum(count(_field(part, wire)) for part in parts) for core, wire in _USAGE_FIELDS},
        extra=usage_extra(raw),
    )


def _stream_usage(start: Any, delta: Any) -> Usage:
    """A stream's usage: `message_delta`'s (cumulative) counts, each falling back to
    `message_start`'s when the delta leaves it out; itemized iterations win."""
    if _iterations(delta) is not None:
        return usage_from(delta)
    if delta is None and _iterations(start) is not None:
        return usage_from(start)
    values = {}
    for core, wire in _USAGE_FIELDS:
        later = _field(delta, wire)
        values[core] = count(later if later is not None else _field(start, wire))
    later_tools = _field(delta, "server_tool_use") is not None
    return Usage(**values, extra=usage_extra(delta if later_tools else start))


# -------------------------------------------------------------------------- blocks


def _data(block: Any) -> dict[str, Any]:
    """A block (SDK model or dict) as the JSON the API sent. A modelled block that
    carries nothing else is read field by field (the common case, and much cheaper
    than the SDK's `to_dict`)."""
    if isinstance(block, Mapping):
        return dict(block)
    modelled = _MODELLED.get(getattr(block, "type", None))  # type: ignore[arg-type]
    fields: set[str] | None = getattr(block, "model_fields_set", None)
    if (
        modelled is not None
        and fields is not None
        and fields <= modelled
        and not getattr(block, "__pydantic_extra__", None)
    ):
        return {name: getattr(block, name) for name in fields}
    data: dict[str, Any] = block.to_dict(warnings=False)
    return data


def _extra(data: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    """The fields of `data` the core block does not model, under this provider's
    name; None when there are none. Nulls and the API's defaults (a tool call's
    `caller: {"type": "direct"}`) carry nothing and are left out."""
    kept = {
        k: v
        for k, v in data.items()
        if k not in _MODELLED[kind] and v is not None and _DEFAULTS.get(k) != v
    }
    return {PROVIDER: kept} if kept else None


# Each citation type's span: its first and last character, page or content block.
_SPANS: Final[Mapping[str, tuple[str, str]]] = {
    "char_location": ("start_char_index", "end_char_index"),
    "page_location": ("start_page_number", "end_page_number"),
    "content_block_location": ("start_block_index", "end_block_index"),
    "search_result_location": ("start_block_index", "end_block_index"),
}


def citation_from(raw: Mapping[str, Any]) -> Citation:
    """A `Citation` for one citation object as the API sent it (kept whole as `raw`)."""
    kind = raw.get("type")
    kind = kind if isinstance(kind, str) else ""
    start, end = _SPANS.get(kind, ("", ""))
    return Citation(
        kind=kind,
        provider=PROVIDER,
        cited_text=typed(raw.get("cited_text"), str),
        document_index=typed(raw.get("document_index"), int),
        document_title=typed(raw.get("document_title"), str),
        start=typed(raw.get(start), int),
        end=typed(raw.get(end), int),
        url=typed(raw.get("url") or raw.get("source"), str),
        title=typed(raw.get("title"), str),
        raw=dict(raw),
    )


def _text_block(data: Mapping[str, Any]) -> TextBlock:
    """A text block; a non-empty list of citation objects becomes typed citations, any
    other `citations` value stays in `extra` as received."""
    cited = data.get("citations")
    if isinstance(cited, list) and cited and all(isinstance(c, Mapping) for c in cited):
        rest = {k: v for k, v in data.items() if k != "citations"}
        citations = tuple(citation_from(c) for c in cited)
        return TextBlock(text=data["text"], citations=citations, extra=_extra(rest, "text"))
    return TextBlock(text=data["text"], extra=_extra(data, "text"))


def arguments_from(value: object) -> tuple[dict[str, Any], str | None]:
    """A tool call's `input` as received: the object, or `{}` and why it is not one."""
    if isinstance(value, dict):
        return value, None
    return {}, f"arguments are not a JSON object: {clip(json.dumps(value))}"


def _tool_use(data: Mapping[str, Any], arguments: tuple[dict[str, Any], str | None]) -> Block:
    value, error = arguments
    return ToolUseBlock(
        id=data["id"],
        name=data["name"],
        input=value,
        input_error=error,
        extra=_extra(data, "tool_use"),
    )


def _modelled(data: Mapping[str, Any]) -> Block:
    """The core block for the JSON of one content block (unknown kinds are raw)."""
    kind = data.get("type")
    if kind == "text":
        return _text_block(data)
    if kind == "thinking":
        return ThinkingBlock(
            thinking=data["thinking"],
            signature=data.get("signature") or "",
            extra=_extra(data, "thinking"),
        )
    if kind == "tool_use":
        return _tool_use(data, arguments_from(data.get("input")))
    return RawBlock(provider=PROVIDER, data=dict(data))


def block_from(block: Any) -> Block:
    """A core block for one SDK content block (unknown kinds are kept raw)."""
    return _modelled(_data(block))


def turn_extra(container: Any) -> dict[str, Any] | None:
    """The `Message.extra` of a reply whose top-level `container` (code execution's
    sandbox: its `id` and `expires_at`) is `container`, kept as received so the next
    call can reuse it; None when there is none."""
    if container is None:
        return None
    if isinstance(container, Mapping):
        return {PROVIDER: {"container": dict(container)}}
    # The SDK's model reads `expires_at` as a datetime: dump it back as JSON.
    return {PROVIDER: {"container": container.to_dict(mode="json")}}


def not_a_message(body: object, content_type: str | None = None) -> ProviderError:
    """The error for a whole reply that is not a Messages API message (a proxy's
    `text/plain` page, a JSON list, ...): what came, quoted, and its content type when
    known. Not retryable."""
    kind = f" ({content_type})" if content_type else ""
    return ProviderError(
        f"{PROVIDER}: the reply is not a message{kind}: {body!r:.80}", provider=PROVIDER
    )


def response_from(message: Any) -> ModelResponse:
    """A `ModelResponse` for an SDK `Message` returned by a non-streaming call; a
    reply the SDK could not read as one (it hands on a body that is not a JSON object
    as it is) is `not_a_message`."""
    if isinstance(message, str | list | int | float | bool) or message is None:
        raise not_a_message(message)
    raw_stop = message.stop_reason or ""
    return ModelResponse(
        message=Message(
            role="assistant",
            content=tuple(block_from(b) for b in message.content),
            extra=turn_extra(getattr(message, "container", None)),
        ),
        stop_reason=map_stop_reason(raw_stop),
        usage=usage_from(getattr(message, "usage", None)),
        raw_stop_reason=raw_stop,
        model=message.model or "",
    )


# -------------------------------------------------------------------------- stream


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
            return _modelled(data)
        if self.kind == "tool_use":
            text = "".join(self.json)
            arguments = read_arguments(text) if text else arguments_from(data.get("input"))
            return _tool_use(data, arguments)
        if self.json:
            # Server tool calls stream their input like tool_use does.
            value, error = read_arguments("".join(self.json))
            if error is not None:
                raise ProviderError(f"{PROVIDER}: {self.kind} block: {error}", provider=PROVIDER)
            data["input"] = value
        return RawBlock(provider=PROVIDER, data=data)


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


class StreamAccumulator:
    """Folds Messages API stream events into deltas and one final `ModelResponse`.

    `feed` returns the deltas to hand on (at most one per event; empty when the event
    carries none). `finished` turns true at `message_stop`; `response()` is only valid
    then. Implements `automata.core.providers.StreamAssembler`. A delta that a known
    block type does not take raises `ProviderError` (see the module docstring).
    """

    def __init__(self) -> None:
        self._blocks: dict[int, _Pending] = {}
        self._done: dict[int, Block] = {}
        self._start_usage: Any = None
        self._delta_usage: Any = None
        self._stop_reason = ""
        self._model = ""
        self._container: object = None
        self.finished = False

    def _delta(self, pending: _Pending, delta: Any) -> tuple[Delta, ...]:
        delta_kind = delta.type
        kind = pending.kind
        field = _TEXT_FIELDS.get(delta_kind)
        if field is not None and type(getattr(delta, field, None)) not in _TEXT_TYPES:
            raise ProviderError(
                f"{PROVIDER}: a {delta_kind} whose {field} is not a string", provider=PROVIDER
            )
        if kind == "text" and delta_kind == "text_delta":
            if delta.text:
                pending.parts.append(delta.text)
                return (TextDelta(delta.text),)
        elif kind == "thinking" and delta_kind == "thinking_delta":
            if delta.thinking:
                pending.parts.append(delta.thinking)
                return (ThinkingDelta(delta.thinking),)
        elif delta_kind == "input_json_delta" and kind not in ("text", "thinking"):
            fragment = delta.partial_json
            if fragment:
                pending.json.append(fragment)
                if kind == "tool_use":
                    data = pending.data
                    return (ToolCallDelta(data.get("id") or "", data.get("name") or "", fragment),)
        elif kind == "thinking" and delta_kind == "signature_delta":
            pending.data["signature"] = (pending.data.get("signature") or "") + (
                delta.signature or ""
            )
        elif kind == "text" and delta_kind == "citations_delta":
            citations = pending.data.get("citations")
            citation = _data(delta.citation)
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
        kind = event.type
        if kind == "content_block_delta":
            index: Any = getattr(event, "index", None)
            pending = self._blocks.get(index)
            if pending is None:
                raise ProviderError(
                    f"{PROVIDER}: a content_block_delta for block {index!r}, which is not open",
                    provider=PROVIDER,
                )
            return self._delta(pending, event.delta)
        if kind == "content_block_start":
            pending = _Pending(_data(event.content_block))
            self._blocks[event.index] = pending
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
            pending = self._blocks.pop(event.index, None)
            if pending is not None:
                self._done[event.index] = pending.finish()
            return _NOTHING
        if kind == "message_start":
            message = event.message
            self._start_usage = getattr(message, "usage", None)
            self._model = getattr(message, "model", None) or ""
            self._container = getattr(message, "container", None)
        elif kind == "message_delta":
            usage = getattr(event, "usage", None)
            if usage is not None:
                self._delta_usage = usage
            delta = getattr(event, "delta", None)
            stop_reason = getattr(delta, "stop_reason", None)
            if stop_reason:
                self._stop_reason = stop_reason
            container = getattr(delta, "container", None)
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
            usage=_stream_usage(self._start_usage, self._delta_usage),
            raw_stop_reason=self._stop_reason,
            model=self._model,
        )
