"""What the Anthropic Messages API sends back, as automata's blocks: the one reader of
this wire's JSON.

`response_from` reads a whole reply's JSON object; `_stream.StreamAccumulator` folds a
streamed one's events, by the same block and usage readers. Whatever path a reply came
by (the raw reply's JSON, or the SDK's models dumped to the JSON they were read from,
see `json_of`), it is read here, by the same rules:

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
- **A reply of the wrong shape is an error saying so**: a body that is not an object
  is `not_a_message`; a content block that is not an object, or a known block without
  its fields, fails the reply (the agent loop's `ProviderError`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from automata.anthropic._wire import PROVIDER, map_stop_reason
from automata.core.providers import (
    Block,
    Citation,
    Message,
    ModelResponse,
    ProviderError,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from automata.core.providers.reading import clip, count, json_of, typed

__all__ = [
    "arguments_from",
    "block_from",
    "citation_from",
    "json_of",
    "not_a_message",
    "object_of",
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


def object_of(value: object, what: str) -> dict[str, Any]:
    """`value` when it is a JSON object; else a `TypeError` naming `what` it should
    have been (the provider reports it as a malformed reply)."""
    if type(value) is dict:
        return value
    raise TypeError(f"{what} is not an object: {value!r:.80}")


# --------------------------------------------------------------------------- usage


def _get(raw: object, name: str) -> object:
    return raw.get(name) if type(raw) is dict else None


def _iterations(raw: object) -> list[Any] | None:
    iterations = _get(raw, "iterations")
    if type(iterations) is list and iterations:
        return iterations
    return None


def usage_extra(raw: object) -> dict[str, Any]:
    """`Usage.extra` for a usage's `server_tool_use` (the server tools' request counts:
    `{"anthropic": {"server_tool_use": {"web_search_requests": 1}}}`), its counts
    that are not 0 alone; `{}` when there are none."""
    tools = _get(raw, "server_tool_use")
    if type(tools) is not dict:
        return {}
    counts = {name: count(value) for name, value in tools.items() if count(value)}
    return {PROVIDER: {"server_tool_use": counts}} if counts else {}


def usage_from(raw: object) -> Usage:
    """Core usage for a `usage` object (or None): the sum over `iterations` when the
    API itemizes them, else the top-level counts; the server tools' request counts in
    `extra` (`usage_extra`)."""
    if type(raw) is not dict:
        return Usage()
    parts = _iterations(raw)
    if parts is None:
        get = raw.get
        return Usage(
            input_tokens=count(get("input_tokens")),
            output_tokens=count(get("output_tokens")),
            cache_read_tokens=count(get("cache_read_input_tokens")),
            cache_write_tokens=count(get("cache_creation_input_tokens")),
            extra=usage_extra(raw) if "server_tool_use" in raw else {},
        )
    return Usage(
        **{core: sum(count(_get(part, wire)) for part in parts) for core, wire in _USAGE_FIELDS},
        extra=usage_extra(raw),
    )


def stream_usage(start: object, delta: object) -> Usage:
    """A stream's usage: `message_delta`'s (cumulative) counts, each falling back to
    `message_start`'s when the delta leaves it out; itemized iterations win."""
    if _iterations(delta) is not None:
        return usage_from(delta)
    if delta is None and _iterations(start) is not None:
        return usage_from(start)
    values = {}
    for core, wire in _USAGE_FIELDS:
        later = _get(delta, wire)
        values[core] = count(later if later is not None else _get(start, wire))
    later_tools = _get(delta, "server_tool_use") is not None
    return Usage(**values, extra=usage_extra(delta if later_tools else start))


# -------------------------------------------------------------------------- blocks


def _extra(data: Mapping[str, Any], kind: str) -> dict[str, Any] | None:
    """The fields of `data` the core block does not model, under this provider's
    name; None when there are none. Nulls and the API's defaults (a tool call's
    `caller: {"type": "direct"}`) carry nothing and are left out."""
    modelled = _MODELLED[kind]
    if len(data) <= len(modelled) and data.keys() <= modelled:
        return None  # the common case: nothing else
    kept = {
        k: v
        for k, v in data.items()
        if k not in modelled and v is not None and _DEFAULTS.get(k) != v
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


def tool_use(data: Mapping[str, Any], arguments: tuple[dict[str, Any], str | None]) -> Block:
    """The `ToolUseBlock` for a `tool_use` block's JSON, with its `arguments` read."""
    value, error = arguments
    return ToolUseBlock(
        id=data["id"],
        name=data["name"],
        input=value,
        input_error=error,
        extra=_extra(data, "tool_use"),
    )


def block_from(data: dict[str, Any]) -> Block:
    """The core block for the JSON object of one content block (unknown kinds are
    kept raw, as received)."""
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
        return tool_use(data, arguments_from(data.get("input")))
    return RawBlock(provider=PROVIDER, data=dict(data))


def turn_extra(container: object) -> dict[str, Any] | None:
    """The `Message.extra` of a reply whose top-level `container` (code execution's
    sandbox: its `id` and `expires_at`) is `container`, kept as received so the next
    call can reuse it; None when there is none."""
    if type(container) is not dict:
        return None
    return {PROVIDER: {"container": dict(container)}}


def not_a_message(body: object, content_type: str | None = None) -> ProviderError:
    """The error for a whole reply that is not a Messages API message (a proxy's
    `text/plain` page, a JSON list, ...): what came, quoted, and its content type when
    known. Not retryable."""
    kind = f" ({content_type})" if content_type else ""
    return ProviderError(
        f"{PROVIDER}: the reply is not a message{kind}: {body!r:.80}", provider=PROVIDER
    )


def response_from(data: object, content_type: str | None = None) -> ModelResponse:
    """A `ModelResponse` for the JSON of a whole reply (`type: "message"`). A body
    that is not an object is `not_a_message` (naming the reply's `content_type` when
    known); a malformed message raises the error its reading met."""
    if type(data) is not dict:
        raise not_a_message(data, content_type)
    raw_stop = data.get("stop_reason") or ""
    return ModelResponse(
        message=Message(
            role="assistant",
            content=tuple(block_from(object_of(b, "a content block")) for b in data["content"]),
            extra=turn_extra(data.get("container")),
        ),
        stop_reason=map_stop_reason(raw_stop),
        usage=usage_from(data.get("usage")),
        raw_stop_reason=raw_stop,
        model=data.get("model") or "",
    )
