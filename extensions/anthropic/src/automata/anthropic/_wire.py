"""Automata's blocks as the Anthropic Messages API reads them (requests).

`build_params` turns a `ModelRequest` into the keyword arguments of
`AsyncAnthropic.messages.create`. Everything is plain dicts on the way out: nothing
of the request (or of a RawBlock's data, or a block's `extra`) is shared with, or
changed by, what is sent. Replies are read in `_reading.py`.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from automata.core.providers import (
    Block,
    CallOptions,
    DocumentBlock,
    ImageBlock,
    Message,
    ModelRequest,
    RawBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

PROVIDER: Final = "anthropic"

STOP_REASONS: Final[Mapping[str, StopReason]] = {
    "end_turn": StopReason.END_TURN,
    "stop_sequence": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "refusal": StopReason.CONTENT_FILTER,
    # A server tool loop hit its iteration limit; the agent loop sends the turn back
    # as it is to continue it (docs/loop.md, L92).
    "pause_turn": StopReason.PAUSED,
}

_EPHEMERAL: Final = {"type": "ephemeral"}
# Block types a cache breakpoint may sit on (thinking blocks cannot carry one).
_CACHEABLE: Final = frozenset({"text", "image", "document", "tool_use", "tool_result"})


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


def _document(block: DocumentBlock) -> dict[str, Any]:
    """A `document` block: a base64 or URL source for a PDF, a text source for a
    plain-text document (also one given as UTF-8 `text/plain` bytes, which the API
    takes only as text); `title`, `context` and `citations` only when set."""
    text = block.text
    if text is None and block.data is not None and block.media_type == "text/plain":
        with contextlib.suppress(UnicodeDecodeError):  # else sent as is, for the API to judge
            text = block.data.decode("utf-8")
    if text is not None:
        source: dict[str, Any] = {"type": "text", "media_type": "text/plain", "data": text}
    elif block.data is not None:
        source = {
            "type": "base64",
            "media_type": block.media_type,
            "data": base64.b64encode(block.data).decode("ascii"),
        }
    else:
        source = {"type": "url", "url": block.url}
    wire: dict[str, Any] = {"type": "document", "source": source}
    if block.title is not None:
        wire["title"] = block.title
    if block.context is not None:
        wire["context"] = block.context
    if block.citations:
        wire["citations"] = {"enabled": True}
    return wire


def _text(block: TextBlock) -> dict[str, Any]:
    """A `text` block with the citations this provider read for it, each exactly as
    received (another provider's citations mean nothing here and are left out)."""
    wire: dict[str, Any] = {"type": "text", "text": block.text}
    cited = [c.raw for c in block.citations if c.provider == PROVIDER and c.raw is not None]
    if cited:
        wire["citations"] = cited
    return _with_extra(wire, block)


def _tool_result(block: ToolResultBlock) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for item in block.content:
        if isinstance(item, TextBlock):
            if item.text:
                content.append({"type": "text", "text": item.text})
        elif isinstance(item, ImageBlock):
            content.append(_image(item))
        elif isinstance(item, DocumentBlock):
            content.append(_document(item))
        elif isinstance(item, RawBlock) and item.provider == PROVIDER:
            content.append(dict(item.data))
    wire: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id}
    if len(content) == 1 and content[0]["type"] == "text":
        wire["content"] = content[0]["text"]  # the API's shorthand for one text block
    elif content:
        wire["content"] = content
    wire["is_error"] = block.is_error
    return wire


def _with_extra(
    wire: dict[str, Any], block: TextBlock | ThinkingBlock | ToolUseBlock
) -> dict[str, Any]:
    """`wire` plus the fields this provider kept on the block when it read it (text
    citations, ...), never overriding what the block models. The values are the
    block's own (shared, not copied: nothing here changes them)."""
    extra = block.extra.get(PROVIDER) if block.extra else None
    if isinstance(extra, dict):
        for key, value in extra.items():
            wire.setdefault(key, value)
    return wire


def _block(block: Block, *, assistant: bool) -> dict[str, Any] | None:
    """One block on the wire, or None when Anthropic must not (or cannot) see it."""
    if isinstance(block, TextBlock):
        # The API rejects empty text blocks; an empty one carries nothing anyway.
        if not block.text:
            return None
        return _text(block)
    if isinstance(block, ToolUseBlock):
        wire = {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
        return _with_extra(wire, block)
    if isinstance(block, ToolResultBlock):
        return _tool_result(block)
    if isinstance(block, ThinkingBlock):
        # Only signed thinking can be replayed; an unsigned block (another vendor's,
        # or a hand-written one) would be rejected, so it stays in the transcript only.
        if assistant and block.signature:
            wire = {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
            return _with_extra(wire, block)
        return None
    if isinstance(block, ImageBlock):
        return None if assistant else _image(block)
    if isinstance(block, DocumentBlock):
        return None if assistant else _document(block)
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


def container_id(messages: Sequence[Message]) -> str | None:
    """The id of the code execution container the latest reply that named one ran in
    (kept in its `Message.extra`, see `_reading.turn_extra`), to send as the request's
    `container` so a follow-up reuses its files; None when no reply named one."""
    for message in reversed(messages):
        extra = message.extra
        if extra is None or message.role != "assistant":
            continue
        mine = extra.get(PROVIDER)
        container = mine.get("container") if isinstance(mine, dict) else None
        ident = container.get("id") if isinstance(container, dict) else None
        if isinstance(ident, str) and ident:
            return ident
    return None


def build_params(request: ModelRequest, settings: WireSettings) -> dict[str, Any]:
    """The `messages.create` keyword arguments for `request` (without `stream`)."""
    system, messages = convert_messages(request.messages)
    options: CallOptions = request.options
    params: dict[str, Any] = {"model": settings.model, "messages": messages}
    container = container_id(request.messages)
    if container is not None:
        params["container"] = container

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
