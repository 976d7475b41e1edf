"""Reading Chat Completions replies as core blocks: the one reader of this wire.

`response_from` reads a whole chat completion's JSON object; `_reply_stream.py` folds
a stream's chunks (their JSON objects) into the same reply model (`_Reply`), by the
same rules. Whatever path a reply came by (the raw reply's JSON, or the SDK's models
of `chat.completions.create` dumped to the JSON they were read from, see `json_of`),
it is read here. Both read the variants compatible servers send (see
docs/providers.md, "OpenAI-compatible servers checked") and keep what the next turn
must carry back in the blocks' `extra["openai"]`:

- on a `ToolUseBlock`: `"call"`, the tool call's vendor fields (Gemini's
  `extra_content`); `"arguments"`, the arguments exactly as written when they could
  not be read (`input_error` is set then);
- on a `ThinkingBlock`: `"field"`, the message field the reasoning came in
  (`reasoning_content` or `reasoning`); `"reasoning_details"`, OpenRouter's signed
  reasoning entries (a whole message's as sent, each apart; a stream's fragments
  joined per `index`);
- on the reply's first block: `"message"`, the message's own vendor fields (Gemini's
  `extra_content` and `thought_signature`), sent back; `"received"`, those kept but
  not sent back (Groq's `executed_tools`, a whole message's as sent, a stream's
  fragments folded per `index`; its `channel`).

The message's `annotations` (web search `url_citation`s; in a stream, as they arrive
on the deltas) become the text block's `citations`, each kept whole in `raw`.

A body that is not a chat completion, or whose shape is wrong, raises `ProviderError`
with a message saying what was wrong; nothing else escapes.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any, Final

from automata.core.providers import (
    Block,
    Citation,
    Delta,
    Message,
    ModelResponse,
    ProviderError,
    RawBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ThinkingDelta,
    ToolUseBlock,
    reading,
)
from automata.core.providers.reading import clip, read_arguments, typed
from automata.openai._usage import PROVIDER as PROVIDER  # the name every module keys by
from automata.openai._usage import usage_from

FINISH_REASONS: Final[Mapping[str, StopReason]] = {
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}

_REASONING_FIELDS: Final = ("reasoning_content", "reasoning")
_MESSAGE_FIELDS: Final = ("extra_content", "thought_signature")
"""Vendor fields of an assistant message that are kept and sent back (Gemini's thought
signatures)."""
_RECEIVED_FIELDS: Final = ("executed_tools", "channel")
"""Vendor fields of an assistant message that are kept but not sent back (Groq's
server-side tool calls and their results, and the channel it answered on; Groq
refuses message fields it does not take)."""
_CLIP: Final = 200
_CALL_FIELDS: Final = frozenset({"id", "type", "function", "index"})
"""A tool call's fields the SDK models (any other is a vendor field, kept)."""


def json_of(value: object) -> Any:
    """`value` dumped to its JSON by the toolkit's `reading.json_of`; a model nested
    too deep to dump raises `ProviderError` (malformed). How a reply that came through
    the SDK's models reaches the same reader as a raw reply's JSON."""
    try:
        return reading.json_of(value)
    except ValueError as error:
        raise malformed(f"the reply cannot be read as JSON: {error}") from error


def map_finish_reason(raw: str | None, *, has_tool_calls: bool = False) -> StopReason:
    """The core stop reason for a `finish_reason`; UNKNOWN when unrecognised.

    Some compatible servers report `stop` for a turn that made tool calls; the calls
    are whole (their arguments parsed), so that turn maps to TOOL_USE. Some report no
    finish reason at all (`None` or `""`, Snowflake Cortex) for a whole reply: that
    maps to TOOL_USE when the turn made tool calls, else END_TURN.
    """
    if not raw:
        return StopReason.TOOL_USE if has_tool_calls else StopReason.END_TURN
    mapped = FINISH_REASONS.get(raw, StopReason.UNKNOWN)
    if mapped is StopReason.END_TURN and has_tool_calls:
        return StopReason.TOOL_USE
    return mapped


def show(value: object) -> str:
    """`repr(value)`, cut to 80 characters."""
    shown = repr(value)
    return shown if len(shown) <= 80 else f"{shown[:80]}..."


def malformed(detail: str) -> ProviderError:
    """`openai: malformed reply: <detail>`, not retryable."""
    return ProviderError(f"{PROVIDER}: malformed reply: {detail}", provider=PROVIDER)


def new_call_id() -> str:
    """An id for a tool call the server sent without one (Gemini): generated once, it
    is the block's id, so the assistant turn and its tool result carry the same one."""
    return f"call_{uuid.uuid4().hex[:24]}"


def citation_from(annotation: Mapping[str, Any]) -> Citation:
    """A `Citation` for one annotation as received (kept whole as `raw`). Its fields
    are read from the object named by its type (Chat Completions nests them:
    `{"type": "url_citation", "url_citation": {...}}`) or, when there is none, from
    the annotation itself (the Responses API's flat form); `start` and `end` are
    characters of the answer (`start_index`, `end_index`)."""
    kind = annotation.get("type")
    kind = kind if isinstance(kind, str) else ""
    nested = annotation.get(kind)
    body: Mapping[str, Any] = nested if isinstance(nested, Mapping) else annotation
    return Citation(
        kind=kind,
        provider=PROVIDER,
        document_title=typed(body.get("filename"), str),
        start=typed(body.get("start_index"), int),
        end=typed(body.get("end_index"), int),
        url=typed(body.get("url"), str),
        title=typed(body.get("title"), str),
        raw=dict(annotation),
    )


def _text(value: object, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise malformed(f"{what} is not text: {show(value)}")


def _parts(content: list[Any], thinking: list[str], text: list[str]) -> None:
    """Mistral's content chunks: `{"type": "text", "text"}` and `{"type": "thinking",
    "thinking": [<text chunks>]}`, split into thinking and text."""
    for part in content:
        if not isinstance(part, Mapping):
            raise malformed(f"a content part is not an object: {show(part)}")
        kind = part.get("type")
        if kind == "text":
            text.append(_text(part.get("text"), "a text part's text"))
        elif kind == "thinking":
            inner = part.get("thinking")
            if isinstance(inner, list):
                sub: list[str] = []
                _parts(inner, sub, sub)
                thinking.append("".join(sub))
            else:
                thinking.append(_text(inner, "a thinking part's thinking"))
        else:
            raise malformed(f"unknown content part type {kind!r}")


def _content(value: object, thinking: list[str], text: list[str]) -> None:
    if isinstance(value, str):
        text.append(value)
    elif isinstance(value, list):
        _parts(value, thinking, text)
    elif value is not None:
        raise malformed(f"content is neither text nor a list of parts: {show(value)}")


class _Reply:
    """What one assistant message carried, whether read whole or chunk by chunk."""

    __slots__ = (
        "annotations",
        "calls",
        "details",
        "field",
        "message_fields",
        "raw",
        "received",
        "refused",
        "text",
        "thinking",
    )

    def __init__(self) -> None:
        self.thinking: list[str] = []
        self.text: list[str] = []
        self.refused = False
        self.field = ""
        self.details: dict[int, dict[str, Any]] = {}
        self.calls: dict[int, _Call] = {}
        self.message_fields: dict[str, Any] = {}
        self.received: dict[str, Any] = {}
        self.raw: list[RawBlock] = []
        self.annotations: list[dict[str, Any]] = []

    def read_annotations(self, annotations: object) -> None:
        """The message's (or a delta's) `annotations`, added in order."""
        if annotations is None:
            return
        if not isinstance(annotations, list):
            raise malformed(f"annotations is not a list: {show(annotations)}")
        for annotation in annotations:
            if isinstance(annotation, Mapping):
                self.annotations.append(dict(annotation))
            else:
                raise malformed(f"an annotation is not an object: {show(annotation)}")

    def read_extra(self, extra: Mapping[str, Any], out: list[Delta] | None) -> None:
        """Reasoning, annotations and kept vendor fields from a message's JSON (or a
        delta's, with `out` to add the deltas they carry to)."""
        for name in _REASONING_FIELDS:
            value = extra.get(name)
            if isinstance(value, str) and value:
                self.thinking.append(value)
                self.field = self.field or name
                if out is not None:
                    out.append(ThinkingDelta(value))
                break
        details = extra.get("reasoning_details")
        if isinstance(details, list):
            if out is None:
                # A whole message's entries are whole: each is kept apart, as sent,
                # even when several share an `index` (OpenRouter: a summary and an
                # encrypted entry both at 0).
                start = len(self.details)
                for position, entry in enumerate(details):
                    if isinstance(entry, Mapping):
                        self.details[start + position] = dict(entry)
            else:
                for position, entry in enumerate(details):
                    if isinstance(entry, Mapping):
                        self._detail(position, entry)
        for name in _MESSAGE_FIELDS:
            if name in extra:
                self.message_fields[name] = extra[name]
        for name in _RECEIVED_FIELDS:
            if name in extra:
                self._receive(name, extra[name], whole=out is None)
        if "annotations" in extra:
            self.read_annotations(extra["annotations"])

    def _receive(self, name: str, value: Any, *, whole: bool) -> None:
        """Keep a field of `_RECEIVED_FIELDS`: as sent from a whole message; from a
        stream, a list's entries folded per `index` (each field as last sent non-empty),
        anything else as last sent non-empty."""
        if whole:
            self.received[name] = value
        elif isinstance(value, list):
            folded = self.received.setdefault(name, [])
            for position, entry in enumerate(value):
                if not isinstance(entry, Mapping):
                    folded.append(entry)
                    continue
                index = entry.get("index", position)
                kept = next(
                    (e for e in folded if isinstance(e, dict) and e.get("index") == index), None
                )
                if kept is None:
                    folded.append(dict(entry))
                    continue
                for field, part in entry.items():
                    if part not in (None, "") or field not in kept:
                        kept[field] = part
        elif value not in (None, ""):
            self.received[name] = value

    def _detail(self, position: int, entry: Mapping[str, Any]) -> None:
        """Fold a `reasoning_details` entry (or a streamed fragment of one, matched by
        its `index`) in: text fragments are joined, any other field kept as last sent
        non-empty."""
        index = entry.get("index", position)
        key = index if isinstance(index, int) else position
        kept = self.details.setdefault(key, {})
        for name, value in entry.items():
            if name == "text" and isinstance(value, str):
                kept[name] = kept.get(name, "") + value
            elif value not in (None, "") or name not in kept:
                kept[name] = value

    def blocks(self) -> tuple[Block, ...]:
        blocks: list[TextBlock | ThinkingBlock | ToolUseBlock] = []
        if self.thinking or self.details:
            kept: dict[str, Any] = {}
            if self.field:
                kept["field"] = self.field
            if self.details:
                kept["reasoning_details"] = [self.details[k] for k in sorted(self.details)]
            thinking = "".join(self.thinking)
            blocks.append(
                ThinkingBlock(thinking=thinking, extra={PROVIDER: kept} if kept else None)
            )
        joined = "".join(self.text)
        if joined or self.annotations:
            citations = tuple(citation_from(a) for a in self.annotations)
            blocks.append(TextBlock(text=joined, citations=citations))
        blocks.extend(call.block() for _, call in sorted(self.calls.items()))
        raw = self.raw
        if self.message_fields or self.received:
            if not blocks:
                blocks.append(TextBlock(text=""))
            first = blocks[0]
            extra = dict(first.extra or {})
            mine = extra.get(PROVIDER)
            kept_here: dict[str, Any] = dict(mine) if isinstance(mine, dict) else {}
            if self.message_fields:
                kept_here["message"] = self.message_fields
            if self.received:
                kept_here["received"] = self.received
            extra[PROVIDER] = kept_here
            # Validated as every block is (not `model_copy`): a vendor value JSON
            # cannot hold, or nested past what a transcript reads back, is refused here.
            blocks[0] = type(first).model_validate({**dict(first), "extra": extra})
        return (*blocks, *raw) if raw else tuple(blocks)

    def response(self, finish: str, usage: Any, model: str) -> ModelResponse:
        if self.refused:
            stop = StopReason.CONTENT_FILTER
        else:
            has_calls = bool(self.calls)
            stop = map_finish_reason(finish, has_tool_calls=has_calls)
        try:
            return ModelResponse(
                message=Message(role="assistant", content=self.blocks()),
                stop_reason=stop,
                usage=usage_from(usage),
                raw_stop_reason=finish,
                model=model,
            )
        except ValueError as error:  # a value the blocks refuse (pydantic's errors)
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise malformed(first) from error


class _Call:
    __slots__ = ("arguments", "fields", "id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []
        self.fields: dict[str, Any] = {}

    def read(self, call: Mapping[str, Any]) -> None:
        """One tool call's JSON object, or a streamed fragment of one."""
        call_id = call.get("id")
        if call_id:
            self.id = _text(call_id, "a tool call's id")
        function = call.get("function")
        if function is not None:
            if type(function) is not dict:
                raise malformed(f"a tool call's function is not an object: {show(function)}")
            name = function.get("name")
            if name and not self.name:
                self.name = _text(name, "a tool call's name")
            arguments = function.get("arguments")
            if arguments:
                self.arguments.append(_text(arguments, "a tool call's arguments"))
        if not call.keys() <= _CALL_FIELDS:
            self.fields.update((k, v) for k, v in call.items() if k not in _CALL_FIELDS)

    def block(self) -> ToolUseBlock:
        arguments = "".join(self.arguments)
        value, error = read_arguments(arguments)
        kept: dict[str, Any] = {}
        if self.fields:
            kept["call"] = self.fields
        if error is not None:
            kept["arguments"] = arguments
        return ToolUseBlock(
            id=self.id or new_call_id(),
            name=self.name,
            input=value,
            input_error=error,
            extra={PROVIDER: kept} if kept else None,
        )


def _read_calls(reply: _Reply, calls: object) -> None:
    if calls is None:
        return
    if not isinstance(calls, list):
        raise malformed(f"tool_calls is not a list: {show(calls)}")
    for position, call in enumerate(calls):
        if type(call) is not dict:
            raise malformed(f"a tool call is not an object: {show(call)}")
        if call.get("type") not in (None, "function") or call.get("function") is None:
            # Another kind of call (a custom tool's): kept as received.
            reply.raw.append(RawBlock(provider=PROVIDER, data=dict(call)))
            continue
        pending = _Call()
        pending.read(call)
        reply.calls[position] = pending


def response_from(data: object) -> ModelResponse:
    """A `ModelResponse` for a chat completion's JSON object (its first choice). Any
    other body (a proxy's text page, a JSON list) or a completion of the wrong shape
    raises `ProviderError` saying what was wrong."""
    if type(data) is not dict:
        shown = clip(data, 80) if isinstance(data, str) else show(data)
        raise ProviderError(
            f"{PROVIDER}: the reply is not a chat completion: {shown}",
            provider=PROVIDER,
        )
    choices = data.get("choices")
    if not choices:
        raise malformed("no choices")
    if not isinstance(choices, list):
        raise malformed(f"choices is not a list: {show(choices)}")
    choice = choices[0]
    message = choice.get("message") if type(choice) is dict else None
    if type(message) is not dict:
        raise malformed(f"the first choice has no message object: {show(message)}")
    reply = _Reply()
    reply.read_extra(message, None)
    _content(message.get("content"), reply.thinking, reply.text)
    refusal = _text(message.get("refusal"), "refusal")
    if refusal:
        reply.refused = True
        reply.text.append(refusal)
    _read_calls(reply, message.get("tool_calls"))
    finish = _text(choice.get("finish_reason"), "finish_reason")
    model = data.get("model")
    return reply.response(finish, data.get("usage"), model if isinstance(model, str) else "")


def kept(block: Block, key: str) -> Any:
    """What this provider kept under `key` in a block's `extra`, or None."""
    extra = block.extra if isinstance(block, TextBlock | ThinkingBlock | ToolUseBlock) else None
    if not extra:
        return None
    mine = extra.get(PROVIDER)
    return mine.get(key) if isinstance(mine, dict) else None


def all_kept(blocks: Iterable[Block], key: str) -> dict[str, Any]:
    """The `key` dicts kept on `blocks`, merged in order."""
    merged: dict[str, Any] = {}
    for block in blocks:
        value = kept(block, key)
        if isinstance(value, dict):
            merged.update(value)
    return merged
