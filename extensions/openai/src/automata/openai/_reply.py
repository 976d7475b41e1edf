"""Reading Chat Completions replies (whole, or streamed chunk by chunk) as core blocks.

`response_from` reads an SDK `ChatCompletion`; `StreamAccumulator` folds
`ChatCompletionChunk`s. Both read the variants compatible servers send (see
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
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    ToolCallDelta,
    ToolUseBlock,
)
from automata.core.providers.reading import clip, read_arguments, typed
from automata.openai._usage import PROVIDER as PROVIDER  # the name every module keys by
from automata.openai._usage import usage_from
from openai.types.chat import ChatCompletion, ChatCompletionChunk

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
            elif hasattr(annotation, "to_dict"):
                self.annotations.append(annotation.to_dict(warnings=False))
            else:
                raise malformed(f"an annotation is not an object: {show(annotation)}")

    def read_extra(self, extra: Mapping[str, Any], out: list[Delta] | None) -> None:
        """Reasoning and kept vendor fields from a message's (or delta's) extras."""
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
        if "annotations" in extra:  # a streamed delta's (the SDK does not model them)
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

    def read(self, call: Any) -> None:
        """One tool call object, or a streamed fragment of one."""
        call_id = getattr(call, "id", None)
        if call_id:
            self.id = _text(call_id, "a tool call's id")
        function = getattr(call, "function", None)
        if function is not None:
            name = getattr(function, "name", None)
            if name and not self.name:
                self.name = _text(name, "a tool call's name")
            arguments = getattr(function, "arguments", None)
            if arguments:
                self.arguments.append(_text(arguments, "a tool call's arguments"))
        extra = getattr(call, "__pydantic_extra__", None)
        if extra:
            self.fields.update((k, v) for k, v in extra.items() if k != "index")

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
        if isinstance(call, str | int | float | list | dict) or call is None:
            raise malformed(f"a tool call is not an object: {show(call)}")
        if getattr(call, "type", None) not in (None, "function") or call.function is None:
            # Another kind of call (a custom tool's): kept as received.
            reply.raw.append(RawBlock(provider=PROVIDER, data=call.to_dict()))
            continue
        pending = _Call()
        pending.read(call)
        reply.calls[position] = pending


def response_from(completion: Any) -> ModelResponse:
    """A `ModelResponse` for an SDK `ChatCompletion` (its first choice)."""
    if not isinstance(completion, ChatCompletion):
        shown = clip(completion, 80) if isinstance(completion, str) else show(completion)
        raise ProviderError(
            f"{PROVIDER}: the reply is not a chat completion: {shown}",
            provider=PROVIDER,
        )
    choices = completion.choices
    if not choices:
        raise malformed("no choices")
    if not isinstance(choices, list):
        raise malformed(f"choices is not a list: {show(choices)}")
    message = getattr(choices[0], "message", None)
    if message is None or isinstance(message, str | int | float | list | dict):
        raise malformed(f"the first choice has no message object: {show(message)}")
    reply = _Reply()
    extra = message.__pydantic_extra__
    if extra:
        reply.read_extra(extra, None)
    _content(message.content, reply.thinking, reply.text)
    refusal = _text(message.refusal, "refusal")
    if refusal:
        reply.refused = True
        reply.text.append(refusal)
    _read_calls(reply, message.tool_calls)
    reply.read_annotations(getattr(message, "annotations", None))
    finish = _text(getattr(choices[0], "finish_reason", None), "finish_reason")
    model = completion.model
    return reply.response(finish, completion.usage, model if isinstance(model, str) else "")


class StreamAccumulator:
    """Folds chat completion chunks into deltas and one final `ModelResponse`.

    `feed` returns the deltas a chunk carries (thinking before text; empty when it
    carries none). The stream is whole (`finished`) once a finish reason was seen, or,
    from a server that sends none (Snowflake Cortex), once the usage chunk (no
    choices, asked for with `stream_options.include_usage`) arrived. A chunk of the
    wrong shape raises `ProviderError`. Implements
    `automata.core.providers.StreamAssembler`.
    """

    def __init__(self) -> None:
        self._reply = _Reply()
        self._finish = ""
        self._usage: Any = None
        self._model = ""
        self.finished = False

    def feed(self, chunk: Any) -> list[Delta]:
        if not isinstance(chunk, ChatCompletionChunk):
            raise malformed(f"a chunk is not a chat completion chunk: {show(chunk)}")
        choices = chunk.choices or ()
        if chunk.usage is not None:
            self._usage = chunk.usage
            if not choices:
                self.finished = True
        if chunk.model and not self._model and isinstance(chunk.model, str):
            self._model = chunk.model
        if not isinstance(choices, list | tuple):
            raise malformed(f"a chunk's choices is not a list: {show(choices)}")
        out: list[Delta] = []
        reply = self._reply
        for choice in choices:
            if isinstance(choice, str | int | float | list | dict) or choice is None:
                raise malformed(f"a chunk's choice is not an object: {show(choice)}")
            if getattr(choice, "index", 0) not in (0, None):
                continue
            delta = getattr(choice, "delta", None)
            if delta is not None:
                if isinstance(delta, str | int | float | list | dict):
                    raise malformed(f"a chunk's delta is not an object: {show(delta)}")
                extra = delta.__pydantic_extra__
                if extra:
                    reply.read_extra(extra, out)
                text = delta.content
                if text:
                    if isinstance(text, str):
                        reply.text.append(text)
                        out.append(TextDelta(text))
                    else:
                        self._parts(text, out)
                refusal = delta.refusal
                if refusal:
                    reply.refused = True
                    reply.text.append(_text(refusal, "refusal"))
                    out.append(TextDelta(refusal))
                if delta.tool_calls:
                    self._fragments(delta.tool_calls, out)
            finish = getattr(choice, "finish_reason", None)
            if finish:
                self._finish = _text(finish, "finish_reason")
                self.finished = True
        return out

    def _parts(self, content: object, out: list[Delta]) -> None:
        thinking: list[str] = []
        text: list[str] = []
        _content(content, thinking, text)
        for part in thinking:
            self._reply.thinking.append(part)
            out.append(ThinkingDelta(part))
        for part in text:
            self._reply.text.append(part)
            out.append(TextDelta(part))

    def _fragments(self, fragments: object, out: list[Delta]) -> None:
        if not isinstance(fragments, list):
            raise malformed(f"tool_calls is not a list: {show(fragments)}")
        calls = self._reply.calls
        for fragment in fragments:
            if isinstance(fragment, str | int | float | list | dict) or fragment is None:
                raise malformed(f"a tool call fragment is not an object: {show(fragment)}")
            index = fragment.index
            if index is None:
                # No index (some servers): a fragment naming a call starts a new one,
                # any other continues the last.
                named = fragment.id or getattr(fragment.function, "name", None)
                index = max(calls, default=-1) + (1 if named or not calls else 0)
            elif not isinstance(index, int):
                raise malformed(f"a tool call fragment's index is not a number: {show(index)}")
            pending = calls.get(index)
            if pending is None:
                pending = calls[index] = _Call()
            written = len(pending.arguments)
            pending.read(fragment)
            if len(pending.arguments) > written:
                if not pending.id:  # the final block must carry the id the deltas named
                    pending.id = new_call_id()
                out.append(ToolCallDelta(pending.id, pending.name, pending.arguments[-1]))

    def response(self) -> ModelResponse:
        return self._reply.response(self._finish, self._usage, self._model)


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
