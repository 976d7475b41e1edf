"""What the Gemini API sends back, as automata's blocks: the one reader of this wire's
JSON (a whole `GenerateContentResponse`, or each chunk of a stream, through `Parts`).

- **Parts become blocks in order.** A `text` part is a `TextBlock`, a `thought` part a
  `ThinkingBlock` (its `thoughtSignature` the block's `signature`), a `functionCall`
  part a `ToolUseBlock` (its `args` the input; a call the server sent without an `id`
  gets `call_<n>`, marked so that it is never sent back as an id). Consecutive text
  (or thought) parts are one block, as a stream splits them, until a part carrying a
  signature closes it; an empty part that only carries a signature (how a stream ends)
  signs the block before it. Every other part kind (`executableCode`,
  `codeExecutionResult`, `inlineData` a model made, kinds this version does not know)
  is a `RawBlock` kept as received and sent back as is.
- **Nothing a part carries is dropped.** A part's fields that its block does not model
  (`thoughtSignature` on a call or a text, `videoMetadata`, ...) are kept in the
  block's `extra["google"]["part"]`, verbatim, and sent back with it.
- **The candidate's metadata is kept.** `groundingMetadata` (Google Search),
  `urlContextMetadata`, `citationMetadata`, `safetyRatings` and `finishMessage` go in
  `Message.extra["google"]`, as does the reply's `promptFeedback`; the API takes none
  of them back in a request, so they are not sent.
- **Stop reasons keep the vendor's.** `finishReason` maps onto `StopReason` (`STOP`
  with a function call is `TOOL_USE`; `SAFETY`, `RECITATION`, `BLOCKLIST`, ... are
  `CONTENT_FILTER`), and a prompt refused whole (`promptFeedback.blockReason`, no
  candidate) is `CONTENT_FILTER`; `raw_stop_reason` is the vendor's value as sent.
- **Usage is what is billed.** `promptTokenCount` counts cached tokens too, so
  `input_tokens` is prompt minus `cachedContentTokenCount` plus
  `toolUsePromptTokenCount` (tool results the server fed back, billed as input);
  `output_tokens` is `candidatesTokenCount` plus `thoughtsTokenCount`, and
  `reasoning_tokens` the latter; `toolUsePromptTokenCount` is also in
  `Usage.extra["google"]`.
- **A reply of the wrong shape is an error saying so** (`not_a_reply`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from automata.core.providers import (
    Block,
    Message,
    ModelResponse,
    ProviderError,
    RawBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)
from automata.core.providers.reading import clip, count
from automata.google._wire import PROVIDER

__all__ = [
    "FINISH_REASONS",
    "Parts",
    "map_stop_reason",
    "not_a_reply",
    "response_from",
    "usage_from",
]

FINISH_REASONS: Final[Mapping[str, StopReason]] = {
    "STOP": StopReason.END_TURN,
    "MAX_TOKENS": StopReason.MAX_TOKENS,
    "SAFETY": StopReason.CONTENT_FILTER,
    "RECITATION": StopReason.CONTENT_FILTER,
    "LANGUAGE": StopReason.CONTENT_FILTER,
    "BLOCKLIST": StopReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": StopReason.CONTENT_FILTER,
    "SPII": StopReason.CONTENT_FILTER,
    "IMAGE_SAFETY": StopReason.CONTENT_FILTER,
    "IMAGE_PROHIBITED_CONTENT": StopReason.CONTENT_FILTER,
    "IMAGE_RECITATION": StopReason.CONTENT_FILTER,
    "MODEL_ARMOR": StopReason.CONTENT_FILTER,
    "JAILBREAK": StopReason.CONTENT_FILTER,
    "MALFORMED_FUNCTION_CALL": StopReason.ERROR,
    "UNEXPECTED_TOOL_CALL": StopReason.ERROR,
    "TOO_MANY_TOOL_CALLS": StopReason.ERROR,
    "MISSING_THOUGHT_SIGNATURE": StopReason.ERROR,
    "MALFORMED_RESPONSE": StopReason.ERROR,
}
"""Gemini's `finishReason` (and `promptFeedback.blockReason`) values as core stop
reasons; any other (`OTHER`, `FINISH_REASON_UNSPECIFIED`, a new one) is UNKNOWN."""

_CANDIDATE_METADATA: Final = (
    "groundingMetadata",
    "urlContextMetadata",
    "citationMetadata",
    "safetyRatings",
    "finishMessage",
)
_SIGNATURE: Final = "thoughtSignature"


def map_stop_reason(raw: str, *, called: bool = False) -> StopReason:
    """The core stop reason for a `finishReason`; a turn that `called` a function and
    stopped is TOOL_USE (Gemini says `STOP` for both)."""
    if raw == "STOP" and called:
        return StopReason.TOOL_USE
    return FINISH_REASONS.get(raw, StopReason.UNKNOWN)


def not_a_reply(body: object, detail: str = "") -> ProviderError:
    """The error for a body that is not a `GenerateContentResponse`. Not retryable."""
    why = f" ({detail})" if detail else ""
    return ProviderError(
        f"{PROVIDER}: the reply is not a GenerateContentResponse{why}: {body!r:.80}",
        provider=PROVIDER,
    )


def usage_from(raw: object) -> Usage:
    """Core usage for a `usageMetadata` object (or None): see the module docstring."""
    if type(raw) is not dict:
        return Usage()
    get = raw.get
    prompt = count(get("promptTokenCount"))
    cached = count(get("cachedContentTokenCount"))
    tool_prompt = count(get("toolUsePromptTokenCount"))
    thoughts = count(get("thoughtsTokenCount"))
    return Usage(
        input_tokens=max(prompt - cached, 0) + tool_prompt,
        output_tokens=count(get("candidatesTokenCount")) + thoughts,
        cache_read_tokens=cached,
        reasoning_tokens=thoughts,
        extra={PROVIDER: {"toolUsePromptTokenCount": tool_prompt}} if tool_prompt else {},
    )


def _kept(part: Mapping[str, Any], modelled: frozenset[str]) -> dict[str, Any] | None:
    kept = {k: v for k, v in part.items() if k not in modelled and v is not None}
    return {PROVIDER: {"part": kept}} if kept else None


_TEXT_FIELDS: Final = frozenset({"text", "thought"})
_THOUGHT_FIELDS: Final = frozenset({"text", "thought", _SIGNATURE})


class _Open:
    """A text or thought block being joined from consecutive parts."""

    __slots__ = ("fields", "signed", "texts", "thought")

    def __init__(self, thought: bool) -> None:
        self.thought = thought
        self.texts: list[str] = []
        self.fields: dict[str, Any] = {}
        self.signed = False

    def block(self) -> Block:
        text = "".join(self.texts)
        if self.thought:
            signature = self.fields.get(_SIGNATURE)
            rest = {k: v for k, v in self.fields.items() if k != _SIGNATURE}
            return ThinkingBlock(
                thinking=text,
                signature=signature if isinstance(signature, str) else "",
                extra={PROVIDER: {"part": rest}} if rest else None,
            )
        return TextBlock(
            text=text, extra={PROVIDER: {"part": self.fields}} if self.fields else None
        )


class Parts:
    """Folds the parts of one candidate, whole or a chunk at a time, into blocks (by the
    rules of the module docstring). `add` takes one part and returns the text it adds
    (`("text", ...)`, `("thought", ...)`) or the call it makes (`("call", block)`), or
    None; `blocks()` is every block so far."""

    def __init__(self) -> None:
        self._done: list[Block] = []
        self._open: _Open | None = None
        self.calls = 0

    def _close(self) -> None:
        if self._open is not None:
            self._done.append(self._open.block())
            self._open = None

    def add(self, part: object) -> tuple[str, Any] | None:
        if type(part) is not dict:
            raise not_a_reply(part, "a part is not an object")
        text = part.get("text")
        if type(text) is str and "functionCall" not in part:
            return self._text(part, text)
        self._close()
        call = part.get("functionCall")
        if call is not None:
            block = self._call(part, call)
            self._done.append(block)
            return ("call", block)
        self._done.append(RawBlock(provider=PROVIDER, data=dict(part)))
        return None

    def _text(self, part: dict[str, Any], text: str) -> tuple[str, Any] | None:
        thought = part.get("thought") is True
        signature = part.get(_SIGNATURE)
        extra = {k: v for k, v in part.items() if k not in _TEXT_FIELDS and v is not None}
        current = self._open
        if (
            not text
            and current is not None
            and current.thought == thought
            and not current.signed
            and extra
        ):
            current.fields.update(extra)  # a signature sent after the text it signs
            current.signed = signature is not None
            return None
        if (
            current is None
            or current.thought != thought
            or current.signed
            or (extra.keys() - {_SIGNATURE})
        ):
            self._close()
            current = self._open = _Open(thought)
        current.texts.append(text)
        current.fields.update(extra)
        current.signed = signature is not None
        if not text:
            return None
        return ("thought" if thought else "text", text)

    def _call(self, part: dict[str, Any], call: object) -> ToolUseBlock:
        if type(call) is not dict or type(call.get("name")) is not str:
            raise not_a_reply(call, "a functionCall without a name")
        index = self.calls
        self.calls += 1
        args = call.get("args")
        input_error = None
        if args is None:
            args = {}
        elif type(args) is not dict:
            input_error = f"arguments are not a JSON object: {clip(json.dumps(args))}"
            args = {}
        ident = call.get("id")
        synthetic = not (type(ident) is str and ident)
        kept = {k: v for k, v in part.items() if k != "functionCall" and v is not None}
        google: dict[str, Any] = {}
        if kept:
            google["part"] = kept
        if synthetic:
            google["synthetic_id"] = True
        return ToolUseBlock(
            id=f"call_{index}" if synthetic else ident,
            name=call["name"],
            input=args,
            input_error=input_error,
            extra={PROVIDER: google} if google else None,
        )

    def blocks(self) -> tuple[Block, ...]:
        self._close()
        return tuple(self._done)


def candidate_of(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first candidate of a reply (or chunk), or None when it has none."""
    candidates = data.get("candidates")
    if candidates is None:
        return None
    if type(candidates) is not list:
        raise not_a_reply(candidates, "candidates is not a list")
    if not candidates:
        return None
    first = candidates[0]
    if type(first) is not dict:
        raise not_a_reply(first, "a candidate is not an object")
    return first


def parts_of(candidate: Mapping[str, Any]) -> list[Any]:
    content = candidate.get("content")
    if content is None:
        return []
    if type(content) is not dict:
        raise not_a_reply(content, "a candidate's content is not an object")
    parts = content.get("parts") or []
    if type(parts) is not list:
        raise not_a_reply(parts, "content.parts is not a list")
    return parts


def turn_extra(candidate: Mapping[str, Any] | None, feedback: object) -> dict[str, Any] | None:
    """`Message.extra` for a candidate's metadata and the reply's `promptFeedback`."""
    kept: dict[str, Any] = {}
    if candidate is not None:
        for name in _CANDIDATE_METADATA:
            value = candidate.get(name)
            if value is not None:
                kept[name] = value
    if feedback is not None:
        kept["promptFeedback"] = feedback
    return {PROVIDER: kept} if kept else None


def stop_of(candidate: Mapping[str, Any] | None, feedback: object) -> str:
    """The vendor's reason the reply ended: the candidate's `finishReason`, else the
    prompt's `blockReason`, else ""."""
    if candidate is not None:
        reason = candidate.get("finishReason")
        if type(reason) is str and reason:
            return reason
    if type(feedback) is dict:
        blocked = feedback.get("blockReason")
        if type(blocked) is str and blocked:
            return blocked
    return ""


def finished(data: Mapping[str, Any]) -> bool:
    """Whether a reply (or chunk) ends the reply: its candidate has a `finishReason`,
    or the prompt was blocked (`promptFeedback.blockReason`)."""
    return bool(stop_of(candidate_of(data), data.get("promptFeedback")))


def response_from(data: object) -> ModelResponse:
    """A `ModelResponse` for the JSON of a whole reply. A body with neither candidates
    nor `promptFeedback`, or of the wrong shape, is `not_a_reply`."""
    if type(data) is not dict:
        raise not_a_reply(data)
    candidate = candidate_of(data)
    feedback = data.get("promptFeedback")
    if candidate is None and feedback is None:
        raise not_a_reply(data, "no candidates and no promptFeedback")
    parts = Parts()
    if candidate is not None:
        for part in parts_of(candidate):
            parts.add(part)
    raw_stop = stop_of(candidate, feedback)
    return ModelResponse(
        message=Message(
            role="assistant", content=parts.blocks(), extra=turn_extra(candidate, feedback)
        ),
        stop_reason=_stop(raw_stop, candidate, parts.calls),
        usage=usage_from(data.get("usageMetadata")),
        raw_stop_reason=raw_stop,
        model=data.get("modelVersion") or "",
    )


def _stop(raw: str, candidate: Mapping[str, Any] | None, calls: int) -> StopReason:
    if candidate is None and raw:  # the prompt itself was blocked
        return StopReason.CONTENT_FILTER
    return map_stop_reason(raw, called=calls > 0)
