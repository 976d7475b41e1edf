"""Mapping between automata's blocks and the Anthropic Messages API wire format.

Outbound, `build_params` turns a `ModelRequest` into the keyword arguments of
`AsyncAnthropic.messages.create`; inbound, `message_from_content` and
`StreamAccumulator` turn what the API sends back into blocks. Everything is plain
dicts on the way out: nothing of the request (or of a RawBlock's data) is shared
with, or changed by, what is sent.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from automata.core.providers import (
    Block,
    CallOptions,
    Delta,
    ImageBlock,
    Message,
    ModelRequest,
    ModelResponse,
    RawBlock,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)

PROVIDER: Final = "anthropic"

STOP_REASONS: Final[Mapping[str, StopReason]] = {
    "end_turn": StopReason.END_TURN,
    "stop_sequence": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "refusal": StopReason.CONTENT_FILTER,
    # A server tool loop hit its iteration limit; the turn must be sent back to
    # continue, which the agent loop does not do, so the reply is not whole.
    "pause_turn": StopReason.INCOMPLETE,
}

_EPHEMERAL: Final = {"type": "ephemeral"}
# Block types a cache breakpoint may sit on (thinking blocks cannot carry one).
_CACHEABLE: Final = frozenset({"text", "image", "tool_use", "tool_result"})


def map_stop_reason(raw: str | None) -> StopReason:
    """The core stop reason for an Anthropic `stop_reason`; UNKNOWN when unrecognised."""
    return STOP_REASONS.get(raw or "", StopReason.UNKNOWN)


# --------------------------------------------------------------------------- outbound


@dataclass(frozen=True, slots=True)
class WireSettings:
    """Provider-level choices that shape the request."""

    model: str
    max_tokens: int
    cache_prompt: bool
    cache_conversation: bool
    thinking_mode: str = "enabled"
    effort: str | None = None
    sampling_params: bool = False


def _image(block: ImageBlock) -> dict[str, Any]:
    if block.data is not None:
        source: dict[str, Any] = {
            "type": "base64",
            "media_type": block.media_type,
            "data": base64.b64encode(block.data).decode("ascii"),
        }
    else:
        source = {"type": "url", "url": block.url}
    return {"type": "image", "source": source}


def _tool_result(block: ToolResultBlock) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for item in block.content:
        if isinstance(item, TextBlock):
            if item.text:
                content.append({"type": "text", "text": item.text})
        elif isinstance(item, ImageBlock):
            content.append(_image(item))
        elif isinstance(item, RawBlock) and item.provider == PROVIDER:
            content.append(dict(item.data))
    wire: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id}
    if len(content) == 1 and content[0]["type"] == "text":
        wire["content"] = content[0]["text"]  # the API's shorthand for one text block
    elif content:
        wire["content"] = content
    wire["is_error"] = block.is_error
    return wire


def _block(block: Block, *, assistant: bool) -> dict[str, Any] | None:
    """One block on the wire, or None when Anthropic must not (or cannot) see it."""
    if isinstance(block, TextBlock):
        # The API rejects empty text blocks; an empty one carries nothing anyway.
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        return _tool_result(block)
    if isinstance(block, ThinkingBlock):
        # Only signed thinking can be replayed; an unsigned block (another vendor's,
        # or a hand-written one) would be rejected, so it stays in the transcript only.
        if assistant and block.signature:
            return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
        return None
    if isinstance(block, ImageBlock):
        return None if assistant else _image(block)
    if isinstance(block, RawBlock):
        # Another provider's raw block means nothing here and is left out.
        return dict(block.data) if block.provider == PROVIDER else None
    return None  # pragma: no cover - Block is a closed union


def _system_text(message: Message) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextBlock))


def convert_messages(
    messages: Sequence[Message],
) -> tuple[list[str], list[dict[str, Any]]]:
    """Split a transcript into system prompt parts and alternating wire messages.

    Leading system messages become the system prompt; a system message later in the
    conversation is passed on as user text (Anthropic has no mid-conversation system
    turn). A `tool` message becomes a user turn of tool_result blocks, and consecutive
    turns of the same wire role are merged, so a user message after tool results
    joins the same user turn, after the results.
    """
    system: list[str] = []
    wire: list[dict[str, Any]] = []
    leading = True
    for message in messages:
        if message.role == "system" and leading:
            text = _system_text(message)
            if text:
                system.append(text)
            continue
        leading = False
        assistant = message.role == "assistant"
        role = "assistant" if assistant else "user"
        if message.role == "system":
            text = _system_text(message)
            content = [{"type": "text", "text": text}] if text else []
        else:
            content = [
                wired
                for block in message.content
                if (wired := _block(block, assistant=assistant)) is not None
            ]
        if not content:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(content)
        else:
            wire.append({"role": role, "content": content})
    return system, wire


def _mark_last_cacheable(wire: list[dict[str, Any]]) -> None:
    for message in reversed(wire):
        for block in reversed(message["content"]):
            if block.get("type") in _CACHEABLE and "cache_control" not in block:
                block["cache_control"] = _EPHEMERAL
                return


def _plain_text_as_strings(wire: list[dict[str, Any]]) -> None:
    """Send a turn whose whole content is one plain text block as a string: the API
    reads both forms alike, and the string is cheaper to copy and send. A block that
    carries `cache_control` keeps its form (so this runs after cache marking)."""
    for message in wire:
        content = message["content"]
        if len(content) == 1:
            only = content[0]
            if only["type"] == "text" and len(only) == 2:
                message["content"] = only["text"]


def _tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "input_schema": dict(t.input_schema)}
        for t in tools
    ]


def _tool_choice(choice: str) -> dict[str, Any]:
    if choice in ("auto", "any", "none"):
        return {"type": choice}
    return {"type": "tool", "name": choice}


def build_params(request: ModelRequest, settings: WireSettings) -> dict[str, Any]:
    """The `messages.create` keyword arguments for `request` (without `stream`)."""
    system, messages = convert_messages(request.messages)
    options: CallOptions = request.options
    params: dict[str, Any] = {"model": settings.model, "messages": messages}

    budget = options.thinking_budget
    max_tokens = options.max_tokens
    if max_tokens is None:
        # The budget is part of max_tokens, so leave room for an answer after it.
        max_tokens = settings.max_tokens + (budget or 0)
    params["max_tokens"] = max_tokens
    if budget:
        if settings.thinking_mode == "adaptive":
            params["thinking"] = {"type": "adaptive"}
        else:
            params["thinking"] = {"type": "enabled", "budget_tokens": budget}

    tools = _tools(request.tools)
    if system:
        if settings.cache_prompt:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": s} for s in system]
            blocks[-1]["cache_control"] = _EPHEMERAL
            params["system"] = blocks
        else:
            params["system"] = "\n\n".join(system)
    elif settings.cache_prompt and tools:
        tools[-1]["cache_control"] = _EPHEMERAL
    if tools:
        params["tools"] = tools
        if options.tool_choice is not None:
            params["tool_choice"] = _tool_choice(options.tool_choice)
    if settings.cache_conversation:
        _mark_last_cacheable(messages)
    _plain_text_as_strings(messages)

    if options.temperature is not None and settings.sampling_params:
        # API version 2026-10-21 (the SDK's default) rejects sampling parameters and the
        # SDK no longer accepts them; they go in the raw body for older API versions.
        params["extra_body"] = {"temperature": options.temperature}
    if options.stop_sequences is not None:
        params["stop_sequences"] = list(options.stop_sequences)
    output_config: dict[str, Any] = {}
    if settings.effort is not None:
        output_config["effort"] = settings.effort
    if request.output_schema is not None:
        output_config["format"] = {
            "type": "json_schema",
            "schema": dict(request.output_schema.schema),
        }
    if output_config:
        params["output_config"] = output_config
    return params


# --------------------------------------------------------------------------- inbound


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def usage_from(raw: Any) -> Usage:
    """Core usage from an SDK `Usage`/`MessageDeltaUsage` (missing counts are 0)."""
    return Usage(
        input_tokens=_int(getattr(raw, "input_tokens", 0)),
        output_tokens=_int(getattr(raw, "output_tokens", 0)),
        cache_read_tokens=_int(getattr(raw, "cache_read_input_tokens", 0)),
        cache_write_tokens=_int(getattr(raw, "cache_creation_input_tokens", 0)),
    )


def _raw(block: Any) -> RawBlock:
    data = block.to_dict() if hasattr(block, "to_dict") else dict(block)
    return RawBlock(provider=PROVIDER, data=data)


def block_from(block: Any) -> Block:
    """A core block for one SDK content block (unknown kinds are kept raw)."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return TextBlock(text=block.text)
    if kind == "thinking":
        return ThinkingBlock(thinking=block.thinking, signature=block.signature or "")
    if kind == "tool_use":
        return ToolUseBlock(id=block.id, name=block.name, input=_object(block.input))
    return _raw(block)


def _object(value: object) -> dict[str, Any]:
    # Tool input is always a JSON object on this API; anything else carries nothing.
    return value if isinstance(value, dict) else {}


def response_from(message: Any) -> ModelResponse:
    """A `ModelResponse` for an SDK `Message` returned by a non-streaming call."""
    raw_stop = message.stop_reason or ""
    return ModelResponse(
        message=Message(role="assistant", content=tuple(block_from(b) for b in message.content)),
        stop_reason=map_stop_reason(raw_stop),
        usage=usage_from(message.usage),
        raw_stop_reason=raw_stop,
        model=message.model or "",
    )


class _Pending:
    """One content block being assembled from stream events."""

    __slots__ = ("json", "kind", "parts", "signature", "start")

    def __init__(self, kind: str, start: Any) -> None:
        self.kind = kind
        self.start = start
        self.parts: list[str] = []
        self.json: list[str] = []
        self.signature = ""

    def finish(self) -> Block:
        if self.kind == "text":
            return TextBlock(text="".join(self.parts))
        if self.kind == "thinking":
            return ThinkingBlock(thinking="".join(self.parts), signature=self.signature)
        if self.kind == "tool_use":
            arguments = "".join(self.json)
            value = json.loads(arguments) if arguments else self.start.input
            return ToolUseBlock(id=self.start.id, name=self.start.name, input=_object(value))
        raw = _raw(self.start)
        if self.json:
            # Server tool calls stream their input like tool_use does.
            data = dict(raw.data)
            data["input"] = json.loads("".join(self.json))
            return RawBlock(provider=PROVIDER, data=data)
        return raw


_NOTHING: Final[tuple[Delta, ...]] = ()


class StreamAccumulator:
    """Folds Messages API stream events into deltas and one final `ModelResponse`.

    `feed` returns the deltas to hand on (at most one per event; empty when the event
    carries none). `finished` turns true at `message_stop`; `response()` is only valid
    then. Implements `automata.core.providers.StreamAssembler`.
    """

    def __init__(self) -> None:
        self._blocks: dict[int, _Pending] = {}
        self._done: dict[int, Block] = {}
        self._start_usage: Any = None
        self._delta_usage: Any = None
        self._stop_reason = ""
        self._model = ""
        self.finished = False

    def feed(self, event: Any) -> tuple[Delta, ...]:
        kind = event.type
        if kind == "content_block_delta":
            pending = self._blocks.get(event.index)
            if pending is None:
                return _NOTHING
            delta = event.delta
            delta_kind = delta.type
            if delta_kind == "text_delta":
                if delta.text:
                    pending.parts.append(delta.text)
                    return (TextDelta(delta.text),)
            elif delta_kind == "thinking_delta":
                if delta.thinking:
                    pending.parts.append(delta.thinking)
                    return (ThinkingDelta(delta.thinking),)
            elif delta_kind == "input_json_delta":
                if delta.partial_json:
                    pending.json.append(delta.partial_json)
            elif delta_kind == "signature_delta":
                pending.signature += delta.signature
            return _NOTHING
        if kind == "content_block_start":
            block = event.content_block
            pending = _Pending(block.type, block)
            self._blocks[event.index] = pending
            initial = getattr(block, "text", None) if block.type == "text" else None
            if block.type == "thinking":
                initial = block.thinking
                pending.signature = block.signature or ""
            if initial:
                pending.parts.append(initial)
                return (TextDelta(initial),) if block.type == "text" else (ThinkingDelta(initial),)
            return _NOTHING
        if kind == "content_block_stop":
            pending = self._blocks.pop(event.index, None)
            if pending is not None:
                self._done[event.index] = pending.finish()
            return _NOTHING
        if kind == "message_start":
            self._start_usage = event.message.usage
            self._model = event.message.model or ""
        elif kind == "message_delta":
            self._delta_usage = event.usage
            if event.delta.stop_reason:
                self._stop_reason = event.delta.stop_reason
        elif kind == "message_stop":
            self.finished = True
        return _NOTHING

    def _usage(self) -> Usage:
        start, delta = self._start_usage, self._delta_usage
        # message_delta counts are cumulative and win when present.
        values = {}
        for field, wire in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read_tokens", "cache_read_input_tokens"),
            ("cache_write_tokens", "cache_creation_input_tokens"),
        ):
            later = getattr(delta, wire, None)
            value = later if later is not None else getattr(start, wire, None)
            values[field] = _int(value)
        return Usage(**values)

    def response(self) -> ModelResponse:
        # Blocks never stopped (should not happen after message_stop) are kept too.
        for index, pending in self._blocks.items():
            self._done[index] = pending.finish()
        self._blocks.clear()
        blocks = tuple(self._done[i] for i in sorted(self._done))
        return ModelResponse(
            message=Message(role="assistant", content=blocks),
            stop_reason=map_stop_reason(self._stop_reason),
            usage=self._usage(),
            raw_stop_reason=self._stop_reason,
            model=self._model,
        )
