"""Mapping between automata's blocks and the OpenAI Chat Completions wire format.

Outbound, `build_params` turns a `ModelRequest` into the keyword arguments of
`AsyncOpenAI.chat.completions.create`, sending back what a compatible server needs
from the blocks' `extra["openai"]` (see `automata.openai._reply`); inbound,
`response_from` (from `automata.openai._reply`) and `StreamAccumulator` (from
`automata.openai._reply_stream`) turn completions' and chunks' JSON back into
blocks. The request is never changed; nested values of it (schemas, tool inputs)
may be shared with the params, which are only read.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from automata.core.providers import (
    Block,
    DocumentBlock,
    ImageBlock,
    Message,
    ModelRequest,
    ProviderError,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from automata.openai._reply import (
    FINISH_REASONS,
    PROVIDER,
    all_kept,
    kept,
    map_finish_reason,
    response_from,
)
from automata.openai._reply_stream import StreamAccumulator

ERROR_PREFIX: Final = "error: "
"""Put before a failed tool result's text: a tool message has no error flag."""

__all__ = [
    "ERROR_PREFIX",
    "FINISH_REASONS",
    "PROVIDER",
    "StreamAccumulator",
    "WireSettings",
    "build_params",
    "convert_messages",
    "map_finish_reason",
    "response_from",
]


# --------------------------------------------------------------------------- outbound


@dataclass(frozen=True, slots=True)
class WireSettings:
    """Provider-level choices that shape the request."""

    model: str
    system_role: str = "system"
    max_tokens_field: str = "max_completion_tokens"
    reasoning_effort: str | None = None
    stream_usage: bool = True


def _image_url(block: ImageBlock) -> dict[str, Any]:
    if block.data is not None:
        encoded = base64.b64encode(block.data).decode("ascii")
        url = f"data:{block.media_type};base64,{encoded}"
    else:
        url = block.url or ""
    return {"type": "image_url", "image_url": {"url": url}}


_FILE_NAMES: Final[Mapping[str, str]] = {
    "application/pdf": "document.pdf",
    "text/plain": "document.txt",
}


def _document(block: DocumentBlock) -> list[dict[str, Any]]:
    """A document as content parts: its `context` as a text part (Chat Completions has
    no field for it), then a `file` part carrying the document inline as a data URL,
    named by its title. `citations` has no Chat Completions counterpart; OpenAI's
    citations are its own (`annotations`). A document by URL cannot be sent: Chat
    Completions takes files inline or by uploaded file id only, and the provider
    fetches nothing."""
    if block.url is not None:
        raise ProviderError(
            f"{PROVIDER}: Chat Completions takes documents inline only, not by URL "
            f"({block.url}); pass the document's bytes (DocumentBlock.pdf(data))",
            provider=PROVIDER,
        )
    media_type = block.media_type or "text/plain"
    data = block.data if block.data is not None else (block.text or "").encode("utf-8")
    encoded = base64.b64encode(data).decode("ascii")
    name = block.title or _FILE_NAMES.get(media_type, "document")
    part = {
        "type": "file",
        "file": {"filename": name, "file_data": f"data:{media_type};base64,{encoded}"},
    }
    if block.context:
        return [{"type": "text", "text": block.context}, part]
    return [part]


def _attachments(blocks: Iterable[Block]) -> tuple[list[dict[str, Any]], str]:
    """The images and documents among a tool result's blocks as user content parts,
    and what they are, in words ("an image", "2 images and a document")."""
    parts: list[dict[str, Any]] = []
    images = documents = 0
    for block in blocks:
        if isinstance(block, ImageBlock):
            parts.append(_image_url(block))
            images += 1
        elif isinstance(block, DocumentBlock):
            parts.extend(_document(block))
            documents += 1
    counted = [
        f"{n} {noun}s" if n > 1 else f"a{'n' if noun == 'image' else ''} {noun}"
        for n, noun in ((images, "image"), (documents, "document"))
        if n
    ]
    return parts, " and ".join(counted)


def _arguments(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _text_of(blocks: Iterable[Block]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock) and b.text)


class _Builder:
    """Accumulates wire messages, keeping every tool message right after the
    assistant turn that asked for it: images a tool returned wait until the run of
    tool messages ends, then go out as one user message."""

    def __init__(self, system_role: str) -> None:
        self.system_role = system_role
        self.messages: list[dict[str, Any]] = []
        self._deferred: list[dict[str, Any]] = []

    def _flush(self) -> None:
        if self._deferred:
            self.messages.append({"role": "user", "content": self._deferred})
            self._deferred = []

    def add(self, message: dict[str, Any]) -> None:
        self._flush()
        self.messages.append(message)

    def tool_result(self, block: ToolResultBlock) -> None:
        text = _text_of(block.content)
        attached, count = _attachments(block.content)
        if attached:
            note = f"[the tool returned {count}, attached in the next user message]"
            text = f"{text}\n{note}" if text else note
            documents = any(isinstance(b, DocumentBlock) for b in block.content)
            what = "Files" if documents else "Images"
            self._deferred.append(
                {"type": "text", "text": f"{what} returned by tool call {block.tool_use_id}:"}
            )
            self._deferred.extend(attached)
        if block.is_error:
            text = ERROR_PREFIX + text
        # Tool messages follow their assistant turn directly: never flush before one.
        self.messages.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": text})

    def finish(self) -> list[dict[str, Any]]:
        self._flush()
        return self.messages


def _user_parts(blocks: Iterable[Block]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            if block.text:
                parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append(_image_url(block))
        elif isinstance(block, DocumentBlock):
            parts.extend(_document(block))
        elif isinstance(block, RawBlock) and block.provider == PROVIDER:
            # An OpenAI content part the core does not model (audio, file, ...).
            parts.append(dict(block.data))
    return parts


def _call(block: ToolUseBlock) -> dict[str, Any]:
    """A tool call as the model wrote it: unreadable arguments go back verbatim, and
    the call's kept vendor fields (Gemini's `extra_content`) with it."""
    arguments = kept(block, "arguments") if block.input_error is not None else None
    if not isinstance(arguments, str):
        arguments = _arguments(block.input)
    wire: dict[str, Any] = {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": arguments},
    }
    fields = kept(block, "call") if block.extra else None
    if isinstance(fields, dict):
        wire.update(fields)
    return wire


def _reasoning(message: Message, wire: dict[str, Any]) -> None:
    """Reasoning a compatible server needs back: DeepSeek's `reasoning_content`,
    OpenRouter's `reasoning_details`, and the message's kept vendor fields (Gemini's
    `extra_content`). Thinking read from no such field is not sent."""
    for block in message.content:
        if not isinstance(block, ThinkingBlock) or not block.extra:
            continue
        if kept(block, "field") == "reasoning_content":
            wire["reasoning_content"] = wire.get("reasoning_content", "") + block.thinking
        details = kept(block, "reasoning_details")
        if isinstance(details, list):
            wire.setdefault("reasoning_details", []).extend(details)
    fields = all_kept(message.content, "message")
    if "extra_content" in fields:
        wire["extra_content"] = fields["extra_content"]


def _assistant(message: Message) -> dict[str, Any] | None:
    text = ""
    calls: list[dict[str, Any]] = []
    vendor = False
    for b in message.content:
        if isinstance(b, TextBlock):
            text += b.text
        elif isinstance(b, ToolUseBlock):
            calls.append(_call(b))
        if getattr(b, "extra", None):
            vendor = True
    if not text and not calls:
        return None  # only thinking or foreign blocks: nothing OpenAI can take
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = calls
    if vendor:
        _reasoning(message, wire)
    return wire


def convert_messages(messages: Sequence[Message], *, system_role: str) -> list[dict[str, Any]]:
    """Chat Completions messages for a transcript.

    Thinking blocks and other providers' raw blocks are left out (Chat Completions
    cannot take them back). Tool results become `tool` messages, a failed one with
    its text prefixed `error: `; images and documents a tool returned follow in a user
    message. A document by URL raises `ProviderError` (Chat Completions cannot take one).
    """
    builder = _Builder(system_role)
    for message in messages:
        if message.role == "system":
            text = _text_of(message.content)
            if text:
                builder.add({"role": system_role, "content": text})
        elif message.role == "assistant":
            wire = _assistant(message)
            if wire is not None:
                builder.add(wire)
        else:
            rest: list[Block] = []
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    builder.tool_result(block)
                else:
                    rest.append(block)
            parts = _user_parts(rest)
            if parts:
                single_text = len(parts) == 1 and parts[0]["type"] == "text"
                builder.add({"role": "user", "content": parts[0]["text"] if single_text else parts})
    return builder.finish()


def _tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": dict(t.input_schema),
            },
        }
        for t in tools
    ]


def _tool_choice(choice: str) -> str | dict[str, Any]:
    if choice == "any":
        return "required"
    if choice in ("auto", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def effort_for_budget(budget: int) -> str | None:
    """A reasoning effort for a thinking token budget (OpenAI takes no budgets)."""
    if budget <= 0:
        return None
    if budget < 2048:
        return "low"
    if budget < 8192:
        return "medium"
    return "high"


_SCHEMA_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def build_params(request: ModelRequest, settings: WireSettings) -> dict[str, Any]:
    """The `chat.completions.create` keyword arguments for `request` (without `stream`)."""
    options = request.options
    params: dict[str, Any] = {
        "model": settings.model,
        "messages": convert_messages(request.messages, system_role=settings.system_role),
    }
    if request.tools:
        params["tools"] = _tools(request.tools)
        if options.tool_choice is not None:
            params["tool_choice"] = _tool_choice(options.tool_choice)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if options.max_tokens is not None:
        params[settings.max_tokens_field] = options.max_tokens
    if options.stop_sequences is not None:
        params["stop"] = list(options.stop_sequences)
    effort = settings.reasoning_effort
    if effort is None and options.thinking_budget is not None:
        effort = effort_for_budget(options.thinking_budget)
    if effort is not None:
        params["reasoning_effort"] = effort
    schema = request.output_schema
    if schema is not None:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": _SCHEMA_NAME.sub("_", schema.name)[:64] or "output",
                "schema": dict(schema.schema),
                "strict": schema.strict_compatible,
            },
        }
    return params
