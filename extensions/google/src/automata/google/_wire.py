"""Automata's blocks as the Gemini API's `generateContent` reads them (requests).

`build_body` turns a `ModelRequest` into the JSON body of
`models/{model}:generateContent` (and `:streamGenerateContent`): `contents`,
`systemInstruction`, `tools`, `toolConfig` and `generationConfig`, in the wire's own
camelCase, as the Gemini API reference and the SDK's `google.genai.types` define them.
The same body serves the Gemini API and Vertex AI. Nothing of the request (or of a
`RawBlock`'s data, or a block's `extra`) is changed by what is sent. Replies are read in
`_reading.py`.

What goes back is what came: a part's fields that the core does not model (its
`thoughtSignature` first of all) are kept in the block's `extra["google"]["part"]` and
sent with it as received, so each call of a parallel turn keeps its own signature; raw
blocks (server-side tool parts: `executableCode`, `codeExecutionResult`, and any part
kind this version does not know) are sent as they came.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
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

__all__ = ["PROVIDER", "ServerTools", "WireSettings", "build_body", "part_fields"]

PROVIDER: Final = "google"

_TOOL_MODES: Final[Mapping[str, str]] = {"auto": "AUTO", "any": "ANY", "none": "NONE"}


@dataclass(frozen=True, slots=True)
class ServerTools:
    """The Gemini API's own tools, run on Google's side: `google_search` (grounding
    with Google Search), `code_execution` (a Python sandbox), `url_context` (pages the
    prompt names, read). Each is sent as its empty config object, beside the function
    declarations."""

    google_search: bool = False
    code_execution: bool = False
    url_context: bool = False

    def wire(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        if self.google_search:
            tools.append({"googleSearch": {}})
        if self.code_execution:
            tools.append({"codeExecution": {}})
        if self.url_context:
            tools.append({"urlContext": {}})
        return tools


@dataclass(frozen=True, slots=True)
class WireSettings:
    """Provider-level choices that shape the body."""

    max_tokens: int | None = None
    include_thoughts: bool = True
    server_tools: ServerTools = ServerTools()
    safety_settings: tuple[Mapping[str, str], ...] = ()


def part_fields(block: TextBlock | ThinkingBlock | ToolUseBlock) -> Mapping[str, Any]:
    """The part-level fields this provider kept on `block` when it read it (its
    `thoughtSignature`, ...), or nothing."""
    extra = block.extra.get(PROVIDER) if block.extra else None
    part = extra.get("part") if isinstance(extra, dict) else None
    return part if isinstance(part, dict) else {}


def _synthetic_id(block: ToolUseBlock) -> bool:
    """Whether `block.id` was made up by the reader (the server sent the call without
    an id): such an id is never sent back."""
    extra = block.extra.get(PROVIDER) if block.extra else None
    return isinstance(extra, dict) and extra.get("synthetic_id") is True


def _with_part_fields(
    part: dict[str, Any], block: TextBlock | ThinkingBlock | ToolUseBlock
) -> dict[str, Any]:
    for key, value in part_fields(block).items():
        part.setdefault(key, value)
    return part


def _blob(media_type: str, data: bytes) -> dict[str, Any]:
    return {"inlineData": {"mimeType": media_type, "data": base64.b64encode(data).decode()}}


def _media(block: ImageBlock | DocumentBlock) -> dict[str, Any] | None:
    """Inline bytes as `inlineData`, a URL as `fileData` (a Files API or `gs://` URI, or
    a public URL the API fetches), a document given as text as a text part."""
    if isinstance(block, DocumentBlock) and block.text is not None:
        title = f"{block.title}\n\n" if block.title else ""
        return {"text": title + block.text}
    if block.data is not None:
        return _blob(block.media_type, block.data)
    if block.url is not None:
        file_data: dict[str, Any] = {"fileUri": block.url}
        if block.media_type:
            file_data["mimeType"] = block.media_type
        return {"fileData": file_data}
    return None


@dataclass(frozen=True, slots=True)
class _Call:
    name: str
    send_id: bool


def _function_response(block: ToolResultBlock, call: _Call) -> list[dict[str, Any]]:
    """The `functionResponse` part for a tool result (its text as `output`, or as
    `error` for a failed call, as the API reference asks), then any image or document
    it returned as parts of their own."""
    texts: list[str] = []
    media: list[dict[str, Any]] = []
    for item in block.content:
        if isinstance(item, TextBlock):
            texts.append(item.text)
        elif isinstance(item, ImageBlock | DocumentBlock):
            part = _media(item)
            if part is not None:
                media.append(part)
        elif isinstance(item, RawBlock) and item.provider == PROVIDER:
            media.append(dict(item.data))
    key = "error" if block.is_error else "output"
    response: dict[str, Any] = {"name": call.name, "response": {key: "".join(texts)}}
    if call.send_id:
        response["id"] = block.tool_use_id
    return [{"functionResponse": response}, *media]


def _model_part(block: Block) -> dict[str, Any] | None:
    """One block of a `model` turn on the wire, or None when Gemini must not see it."""
    if isinstance(block, TextBlock):
        if not block.text and not part_fields(block):
            return None
        return _with_part_fields({"text": block.text}, block)
    if isinstance(block, ToolUseBlock):
        call: dict[str, Any] = {"name": block.name, "args": block.input}
        if not _synthetic_id(block):
            call["id"] = block.id
        return _with_part_fields({"functionCall": call}, block)
    if isinstance(block, ThinkingBlock):
        # Gemini's own thoughts only (signed, or read by this provider): another
        # vendor's reasoning means nothing here.
        if not block.signature and not part_fields(block):
            return None
        part: dict[str, Any] = {"text": block.thinking, "thought": True}
        if block.signature:
            part["thoughtSignature"] = block.signature
        return _with_part_fields(part, block)
    if isinstance(block, RawBlock):
        return dict(block.data) if block.provider == PROVIDER else None
    return None  # images and documents are input only


def _user_part(block: Block) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"text": block.text} if block.text else None
    if isinstance(block, ImageBlock | DocumentBlock):
        return _media(block)
    if isinstance(block, RawBlock):
        return dict(block.data) if block.provider == PROVIDER else None
    return None


def _system_text(message: Message) -> str:
    return "".join(b.text for b in message.content if isinstance(b, TextBlock))


def _unknown_call(call_id: str) -> ProviderError:
    return ProviderError(
        f"{PROVIDER}: a tool result for call {call_id!r}, which no earlier turn of the "
        "transcript made (Gemini's functionResponse must name the function)",
        provider=PROVIDER,
    )


def convert_messages(
    messages: Sequence[Message],
) -> tuple[list[str], list[dict[str, Any]]]:
    """Split a transcript into system instruction texts and `contents`.

    Leading system messages become the system instruction; a later one is passed on
    as user text (Gemini has no mid-conversation system turn). Assistant turns are
    `model` turns; tool results become `functionResponse` parts of a `user` turn, in
    the order of the calls they answer; consecutive turns of the same role are merged.
    """
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    calls: dict[str, _Call] = {}
    order: dict[str, int] = {}
    leading = True
    for message in messages:
        if message.role == "system" and leading:
            text = _system_text(message)
            if text:
                system.append(text)
            continue
        leading = False
        parts: list[dict[str, Any]] = []
        if message.role == "assistant":
            role = "model"
            for block in message.content:
                if isinstance(block, ToolUseBlock):
                    calls[block.id] = _Call(block.name, not _synthetic_id(block))
                    order[block.id] = len(order)
                wired = _model_part(block)
                if wired is not None:
                    parts.append(wired)
        elif message.role == "system":
            role = "user"
            text = _system_text(message)
            parts = [{"text": text}] if text else []
        else:
            role = "user"
            results = [b for b in message.content if isinstance(b, ToolResultBlock)]
            results.sort(key=lambda r: order.get(r.tool_use_id, len(order)))
            for result in results:
                call = calls.get(result.tool_use_id)
                if call is None:
                    raise _unknown_call(result.tool_use_id)
                parts.extend(_function_response(result, call))
            for block in message.content:
                wired = None if isinstance(block, ToolResultBlock) else _user_part(block)
                if wired is not None:
                    parts.append(wired)
        if not parts:
            continue
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})
    return system, contents


def _declarations(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    return {
        "functionDeclarations": [
            {
                "name": t.name,
                "description": t.description,
                "parametersJsonSchema": dict(t.input_schema),
            }
            for t in tools
        ]
    }


def _tool_config(choice: str) -> dict[str, Any]:
    mode = _TOOL_MODES.get(choice)
    if mode is not None:
        return {"functionCallingConfig": {"mode": mode}}
    return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [choice]}}


def build_body(request: ModelRequest, settings: WireSettings) -> dict[str, Any]:
    """The `generateContent` JSON body for `request`."""
    system, contents = convert_messages(request.messages)
    config: dict[str, Any] = {}
    # `generationConfig` second, and always: where `models.generate_content` puts it,
    # so that the SDK's public path sends these very bytes (see `_public.py`).
    body: dict[str, Any] = {"contents": contents, "generationConfig": config}
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    tools = settings.server_tools.wire()
    if request.tools:
        tools.insert(0, _declarations(request.tools))
    if tools:
        body["tools"] = tools
    options = request.options
    if request.tools and options.tool_choice is not None:
        body["toolConfig"] = _tool_config(options.tool_choice)
    if settings.safety_settings:
        body["safetySettings"] = [dict(s) for s in settings.safety_settings]
    max_tokens = options.max_tokens if options.max_tokens is not None else settings.max_tokens
    if max_tokens is not None:
        config["maxOutputTokens"] = max_tokens
    if options.temperature is not None:
        config["temperature"] = options.temperature
    if options.stop_sequences is not None:
        config["stopSequences"] = list(options.stop_sequences)
    if options.thinking_budget is not None:
        thinking: dict[str, Any] = {"thinkingBudget": options.thinking_budget}
        if settings.include_thoughts and options.thinking_budget != 0:
            thinking["includeThoughts"] = True
        config["thinkingConfig"] = thinking
    if request.output_schema is not None:
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = dict(request.output_schema.schema)
    return body
