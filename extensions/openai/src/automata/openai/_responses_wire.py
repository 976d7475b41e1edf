"""A `ModelRequest` as the keyword arguments of `AsyncOpenAI.responses.create`.

The transcript becomes `input` items, in order: system messages in place (role
`system`, or `developer`); user content as a `message` of `input_text`,
`input_image` (data URL or URL), documents as `input_file` (see `document_parts`)
and, from raw blocks of this wire, any other part (`input_file` by id, ...); each tool
result as a `function_call_output` (a failed one's text starts with `error: `; images,
documents and raw parts of this wire it returned go in its output as `input_image`,
`input_file` and their own parts, in the result's order);
each assistant block as the item it was read from, sent back as kept (see
`automata.openai._responses_reply`): reasoning items verbatim (with their
`encrypted_content`), text as its `message` item (the parts of one item together, with
its id and status), function calls with their ids. Assistant text and calls this wire
did not read go as a plain assistant message and a `function_call` without an item
id; thinking it did not read, and other providers' raw blocks, are left out.

The request is never changed; nested values of it (schemas, tool inputs, kept items)
may be shared with the params, which are only read.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from automata.core.providers import (
    Block,
    DocumentBlock,
    ImageBlock,
    Message,
    ModelRequest,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from automata.openai._reply import PROVIDER
from automata.openai._responses_reply import WIRE
from automata.openai._wire import _FILE_NAMES, _SCHEMA_NAME, ERROR_PREFIX, effort_for_budget

__all__ = [
    "ResponsesSettings",
    "build_params",
    "convert_input",
    "document_parts",
    "last_response_id",
]


@dataclass(frozen=True, slots=True)
class ResponsesSettings:
    """Provider-level choices that shape the request."""

    model: str
    system_role: str = "system"
    reasoning_effort: str | None = None
    reasoning_summary: str | None = "auto"
    store: bool | None = None
    use_previous_response_id: bool = False


def _kept(block: Block) -> dict[str, Any]:
    """What this wire kept on a block (empty when nothing)."""
    extra = block.extra if isinstance(block, TextBlock | ThinkingBlock | ToolUseBlock) else None
    mine = extra.get(WIRE) if extra else None
    return mine if isinstance(mine, dict) else {}


def _image(block: ImageBlock) -> dict[str, Any]:
    if block.data is not None:
        url = f"data:{block.media_type};base64,{base64.b64encode(block.data).decode('ascii')}"
    else:
        url = block.url or ""
    return {"type": "input_image", "image_url": url, "detail": "auto"}


def document_parts(block: DocumentBlock) -> list[dict[str, Any]]:
    """A document as input parts: its `context` as an `input_text` part (the wire has
    no field for it), then an `input_file`. A document by URL is `file_url` (the API
    fetches it; named by its title when it has one); inline bytes and plain text are
    `file_data`, a `data:<media type>;base64,...` URL, named by the title or
    `document.pdf` / `document.txt`. `citations` has no Responses counterpart: the
    API's citations are its own annotations."""
    file: dict[str, Any] = {"type": "input_file"}
    if block.url is not None:
        if block.title:
            file["filename"] = block.title
        file["file_url"] = block.url
    else:
        media_type = block.media_type or "text/plain"
        data = block.data if block.data is not None else (block.text or "").encode("utf-8")
        encoded = base64.b64encode(data).decode("ascii")
        file["filename"] = block.title or _FILE_NAMES.get(media_type, "document")
        file["file_data"] = f"data:{media_type};base64,{encoded}"
    if block.context:
        return [{"type": "input_text", "text": block.context}, file]
    return [file]


def _text_of(blocks: Iterable[Block]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock) and b.text)


def _tool_output(block: ToolResultBlock) -> dict[str, Any]:
    """A tool result's `function_call_output`: its text alone as a string (its text
    blocks joined by newlines); with images, documents or raw parts of this wire
    (`input_file` by id, ...), a list of parts in the result's own order (adjacent
    text blocks as one `input_text`). A failed result's text starts with `error: `
    (a part of its own when the result does not start with text)."""
    parts: list[dict[str, Any]] = []
    texts: list[str] = []
    attached = False
    for part in block.content:
        if isinstance(part, TextBlock):
            if part.text:
                texts.append(part.text)
            continue
        if isinstance(part, ImageBlock):
            found = [_image(part)]
        elif isinstance(part, DocumentBlock):
            found = document_parts(part)
        elif isinstance(part, RawBlock) and part.provider == WIRE:
            found = [dict(part.data)]
        else:
            continue
        if texts:
            parts.append({"type": "input_text", "text": "\n".join(texts)})
            texts = []
        parts.extend(found)
        attached = True
    if not attached:
        text = "\n".join(texts)
        output: str | list[dict[str, Any]] = ERROR_PREFIX + text if block.is_error else text
        return {"type": "function_call_output", "call_id": block.tool_use_id, "output": output}
    if texts:
        parts.append({"type": "input_text", "text": "\n".join(texts)})
    if block.is_error:
        first = parts[0]
        if first["type"] == "input_text":
            parts[0] = {**first, "text": ERROR_PREFIX + first["text"]}
        else:
            parts.insert(0, {"type": "input_text", "text": ERROR_PREFIX})
    return {"type": "function_call_output", "call_id": block.tool_use_id, "output": parts}


def _annotations(block: TextBlock) -> list[Any]:
    """A text part's annotations as received: its citations' `raw`, or those kept in
    `extra` by transcripts written before citations were typed."""
    kept = _kept(block).get("annotations")
    if isinstance(kept, list):
        return kept
    return [c.raw for c in block.citations if c.provider == PROVIDER and c.raw is not None]


class _Input:
    """Accumulates input items; the parts of one user turn, and the text parts of one
    assistant message item, go out together."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self._parts: list[dict[str, Any]] = []
        self._message: dict[str, Any] | None = None  # the assistant message being built

    def flush(self) -> None:
        if self._parts:
            parts = self._parts
            single = len(parts) == 1 and parts[0]["type"] == "input_text"
            self.items.append({"role": "user", "content": parts[0]["text"] if single else parts})
            self._parts = []
        self._message = None

    def add(self, item: dict[str, Any]) -> None:
        self.flush()
        self.items.append(item)

    def user_block(self, block: Block) -> None:
        if isinstance(block, TextBlock):
            if block.text:
                self._parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            self._parts.append(_image(block))
        elif isinstance(block, DocumentBlock):
            self._parts.extend(document_parts(block))
        elif isinstance(block, ToolResultBlock):
            self.add(_tool_output(block))
        elif isinstance(block, RawBlock) and block.provider == WIRE:
            self._parts.append(dict(block.data))

    def assistant_text(self, block: TextBlock) -> None:
        kept = _kept(block)
        item = kept.get("item")
        if not isinstance(item, dict) or not item.get("id"):
            if block.text:  # text this wire did not read: a plain assistant message
                self.add({"role": "assistant", "content": block.text})
            return
        if kept.get("part") == "refusal":
            part: dict[str, Any] = {"type": "refusal", "refusal": block.text}
        else:
            part = {"type": "output_text", "text": block.text, "annotations": _annotations(block)}
        message = self._message
        if message is None or message.get("id") != item["id"]:
            self.flush()
            message = {"type": "message", "role": "assistant", "status": "completed", **item}
            message["content"] = []
            self.items.append(message)
            self._message = message
        message["content"].append(part)

    def assistant_block(self, block: Block) -> None:
        if isinstance(block, TextBlock):
            self.assistant_text(block)
        elif isinstance(block, ThinkingBlock):
            item = _kept(block).get("item")
            if isinstance(item, dict):
                self.add(dict(item))
        elif isinstance(block, ToolUseBlock):
            self.add(_call(block))
        elif isinstance(block, RawBlock) and block.provider == WIRE:
            self.add(dict(block.data))


def _call(block: ToolUseBlock) -> dict[str, Any]:
    """A function call as the model wrote it: unreadable arguments go back verbatim,
    with the item's kept fields (its id and status)."""
    kept = _kept(block)
    arguments = kept.get("arguments") if block.input_error is not None else None
    if not isinstance(arguments, str):
        arguments = json.dumps(block.input, separators=(",", ":"), ensure_ascii=False)
    item = kept.get("item")
    call: dict[str, Any] = {"type": "function_call"}
    if isinstance(item, dict):
        call.update(item)
    call.update(call_id=block.id, name=block.name, arguments=arguments)
    return call


def convert_input(messages: Iterable[Message], *, system_role: str) -> list[dict[str, Any]]:
    """The `input` items for a transcript (see the module docstring)."""
    built = _Input()
    for message in messages:
        if message.role == "system":
            text = _text_of(message.content)
            if text:
                built.add({"role": system_role, "content": text})
        elif message.role == "assistant":
            built.flush()
            for block in message.content:
                built.assistant_block(block)
        else:
            built.flush()
            for block in message.content:
                built.user_block(block)
    built.flush()
    return built.items


def last_response_id(messages: Sequence[Message]) -> tuple[str, int]:
    """The id of the latest reply this wire read in the transcript, and the position
    of its message (`("", -1)` when there is none)."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if message.role != "assistant":
            continue
        for block in message.content:
            response_id = _kept(block).get("response")
            if isinstance(response_id, str) and response_id:
                return response_id, position
    return "", -1


def _tools(tools: Iterable[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": dict(t.input_schema),
            "strict": False,
        }
        for t in tools
    ]


def _tool_choice(choice: str) -> str | dict[str, Any]:
    if choice == "any":
        return "required"
    if choice in ("auto", "none"):
        return choice
    return {"type": "function", "name": choice}


def build_params(request: ModelRequest, settings: ResponsesSettings) -> dict[str, Any]:
    """The `responses.create` keyword arguments for `request` (without `stream`).
    `stop_sequences` has no Responses parameter and is not sent."""
    options = request.options
    messages: Sequence[Message] = request.messages
    params: dict[str, Any] = {"model": settings.model}
    if settings.use_previous_response_id:
        response_id, position = last_response_id(messages)
        if response_id:
            params["previous_response_id"] = response_id
            messages = messages[position + 1 :]
    params["input"] = convert_input(messages, system_role=settings.system_role)
    if request.tools:
        params["tools"] = _tools(request.tools)
        if options.tool_choice is not None:
            params["tool_choice"] = _tool_choice(options.tool_choice)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    if options.max_tokens is not None:
        params["max_output_tokens"] = options.max_tokens
    effort = settings.reasoning_effort
    if effort is None and options.thinking_budget is not None:
        effort = effort_for_budget(options.thinking_budget)
    if effort is not None:
        reasoning = {"effort": effort}
        if settings.reasoning_summary is not None:
            reasoning["summary"] = settings.reasoning_summary
        params["reasoning"] = reasoning
    if settings.store is not None:
        params["store"] = settings.store
        if not settings.store:
            params["include"] = ["reasoning.encrypted_content"]
    schema = request.output_schema
    if schema is not None:
        params["text"] = {
            "format": {
                "type": "json_schema",
                "name": _SCHEMA_NAME.sub("_", schema.name)[:64] or "output",
                "schema": dict(schema.schema),
                "strict": schema.strict_compatible,
            }
        }
    return params
