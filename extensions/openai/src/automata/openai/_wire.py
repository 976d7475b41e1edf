"""Mapping between automata's blocks and the OpenAI Chat Completions wire format.

Outbound, `build_params` turns a `ModelRequest` into the keyword arguments of
`AsyncOpenAI.chat.completions.create`; inbound, `response_from` and
`StreamAccumulator` turn completions and chunks back into blocks. The request is
never changed; nested values of it (schemas, tool inputs) may be shared with the
params, which are only read.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from automata.core.providers import (
    Block,
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

PROVIDER: Final = "openai"

FINISH_REASONS: Final[Mapping[str, StopReason]] = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}

ERROR_PREFIX: Final = "error: "
"""Put before a failed tool result's text: a tool message has no error flag."""

_log = logging.getLogger("automata.openai")


def map_finish_reason(raw: str | None, *, has_tool_calls: bool = False) -> StopReason:
    """The core stop reason for a `finish_reason`; UNKNOWN when unrecognised.

    Some compatible servers report `stop` for a turn that made tool calls; the calls
    are whole (their arguments parsed), so that turn maps to TOOL_USE.
    """
    mapped = FINISH_REASONS.get(raw or "", StopReason.UNKNOWN)
    if mapped is StopReason.END_TURN and has_tool_calls:
        return StopReason.TOOL_USE
    return mapped


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
        images = [_image_url(b) for b in block.content if isinstance(b, ImageBlock)]
        if images:
            count = "an image" if len(images) == 1 else f"{len(images)} images"
            note = f"[the tool returned {count}, attached in the next user message]"
            text = f"{text}\n{note}" if text else note
            self._deferred.append(
                {"type": "text", "text": f"Images returned by tool call {block.tool_use_id}:"}
            )
            self._deferred.extend(images)
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
        elif isinstance(block, RawBlock) and block.provider == PROVIDER:
            # An OpenAI content part the core does not model (audio, file, ...).
            parts.append(dict(block.data))
    return parts


def _assistant(message: Message) -> dict[str, Any] | None:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": _arguments(b.input)},
        }
        for b in message.content
        if isinstance(b, ToolUseBlock)
    ]
    if not text and not calls:
        return None  # only thinking or foreign blocks: nothing OpenAI can take
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = calls
    return wire


def convert_messages(messages: Sequence[Message], *, system_role: str) -> list[dict[str, Any]]:
    """Chat Completions messages for a transcript.

    Thinking blocks and other providers' raw blocks are left out (Chat Completions
    cannot take them back). Tool results become `tool` messages, a failed one with
    its text prefixed `error: `; images a tool returned follow in a user message.
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


# --------------------------------------------------------------------------- inbound


def usage_from(raw: Any) -> Usage | None:
    """Core usage from an SDK `CompletionUsage`: `prompt_tokens` includes cached and
    cache-written tokens, so those are taken out of `input_tokens`."""
    if raw is None:
        return None
    details = getattr(raw, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details is not None else 0
    written = (getattr(details, "cache_write_tokens", None) or 0) if details is not None else 0
    prompt = raw.prompt_tokens or 0
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=raw.completion_tokens or 0,
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )


def _reasoning_of(message: Any) -> str:
    """Reasoning text some compatible servers return beside the answer (as a field the
    SDK does not declare, so it sits in the model's extra fields)."""
    extra = getattr(message, "__pydantic_extra__", None)
    if not extra:
        return ""
    for name in ("reasoning_content", "reasoning"):
        value = extra.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _tool_input(name: str, arguments: str) -> dict[str, Any]:
    if not arguments:
        return {}
    try:
        value = json.loads(arguments)
    except json.JSONDecodeError:
        _log.warning("tool call %s: arguments are not valid JSON: %.200s", name, arguments)
        return {}
    if isinstance(value, dict):
        return value
    _log.warning("tool call %s: arguments are not a JSON object: %.200s", name, arguments)
    return {}


def _assemble(
    reasoning: str, text: str, calls: Iterable[tuple[str, str, str]], raw: Iterable[RawBlock]
) -> tuple[Block, ...]:
    blocks: list[Block] = []
    if reasoning:
        blocks.append(ThinkingBlock(thinking=reasoning))
    if text:
        blocks.append(TextBlock(text=text))
    blocks.extend(
        ToolUseBlock(id=call_id, name=name, input=_tool_input(name, arguments))
        for call_id, name, arguments in calls
    )
    blocks.extend(raw)
    return tuple(blocks)


def _stop(raw_finish: str, blocks: tuple[Block, ...], refused: bool) -> StopReason:
    if refused:
        return StopReason.CONTENT_FILTER
    has_calls = any(isinstance(b, ToolUseBlock) for b in blocks)
    return map_finish_reason(raw_finish, has_tool_calls=has_calls)


def response_from(completion: Any) -> ModelResponse:
    """A `ModelResponse` for an SDK `ChatCompletion` (its first choice)."""
    if not completion.choices:
        raise ValueError("the completion has no choices")
    choice = completion.choices[0]
    message = choice.message
    refusal = message.refusal or ""
    calls: list[tuple[str, str, str]] = []
    raw: list[RawBlock] = []
    for call in message.tool_calls or ():
        function = getattr(call, "function", None)
        if call.type == "function" and function is not None:
            calls.append((call.id, function.name, function.arguments or ""))
        else:
            raw.append(RawBlock(provider=PROVIDER, data=call.to_dict()))
    blocks = _assemble(_reasoning_of(message), (message.content or "") + refusal, calls, raw)
    raw_finish = choice.finish_reason or ""
    return ModelResponse(
        message=Message(role="assistant", content=blocks),
        stop_reason=_stop(raw_finish, blocks, bool(refusal)),
        usage=usage_from(completion.usage),
        raw_stop_reason=raw_finish,
        model=completion.model or "",
    )


class _PendingCall:
    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []


class StreamAccumulator:
    """Folds chat completion chunks into deltas and one final `ModelResponse`.

    `feed` returns the deltas a chunk carries (thinking before text; empty when it
    carries none). The stream is whole once a finish reason was seen (`finished`);
    the usage chunk, when asked for, comes after it. Implements
    `automata.core.providers.StreamAssembler`.
    """

    def __init__(self) -> None:
        self._reasoning: list[str] = []
        self._text: list[str] = []
        self._refused = False
        self._calls: dict[int, _PendingCall] = {}
        self._finish = ""
        self._usage: Any = None
        self._model = ""
        self.finished = False

    def feed(self, chunk: Any) -> list[Delta]:
        if chunk.usage is not None:
            self._usage = chunk.usage
        if chunk.model and not self._model:
            self._model = chunk.model
        out: list[Delta] = []
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta is not None:
                reasoning = _reasoning_of(delta)
                if reasoning:
                    self._reasoning.append(reasoning)
                    out.append(ThinkingDelta(reasoning))
                text = delta.content
                if text:
                    self._text.append(text)
                    out.append(TextDelta(text))
                refusal = getattr(delta, "refusal", None)
                if refusal:
                    self._refused = True
                    self._text.append(refusal)
                    out.append(TextDelta(refusal))
                for fragment in delta.tool_calls or ():
                    pending = self._calls.setdefault(fragment.index, _PendingCall())
                    if fragment.id:
                        pending.id = fragment.id
                    function = fragment.function
                    if function is not None:
                        if function.name and not pending.name:
                            pending.name = function.name
                        if function.arguments:
                            pending.arguments.append(function.arguments)
            if choice.finish_reason:
                self._finish = choice.finish_reason
                self.finished = True
        return out

    def response(self) -> ModelResponse:
        calls = [(c.id, c.name, "".join(c.arguments)) for _, c in sorted(self._calls.items())]
        blocks = _assemble("".join(self._reasoning), "".join(self._text), calls, ())
        return ModelResponse(
            message=Message(role="assistant", content=blocks),
            stop_reason=_stop(self._finish, blocks, self._refused),
            usage=usage_from(self._usage),
            raw_stop_reason=self._finish,
            model=self._model,
        )
