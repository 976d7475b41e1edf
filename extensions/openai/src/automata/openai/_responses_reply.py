"""Reading Responses API replies (a whole response's JSON, or its stream events' JSON)
as core blocks: the one reader of this wire.

`response_from` reads a whole response's JSON object; `ResponsesAssembler` folds
stream events given as JSON objects. Whatever path a reply came by (the raw reply's
JSON, or the SDK's models dumped to the JSON they were read from, see `json_of`), it is
read here, by the same rules.

Each output item becomes blocks, in output order, and keeps under
`extra["openai-responses"]` what the next turn must send back (`WIRE` names the key):

- a `reasoning` item: a `ThinkingBlock` whose text is the item's summary texts joined
  by a blank line (its `reasoning_text` content when it has no summary), keeping the
  whole item (`"item"`: id, summary, `encrypted_content`, ...) to send back verbatim;
- a `message` item: one `TextBlock` per part (a `refusal` part's text too, marked
  `"part": "refusal"`), keeping the item's fields but its content (`"item"`: id,
  status, ...). A part's `annotations` (`url_citation`, `file_citation`,
  `container_file_citation`, `file_path`) are the block's `citations`, each kept
  whole as its `raw`, which is what goes back; in a stream, the annotations of
  `response.output_text.annotation.added` fill a part the final response left
  without them. A part's `logprobs`, when there are some, are kept as received
  (`"logprobs"`), not sent back;
- a `function_call` item: a `ToolUseBlock` whose id is the `call_id`, keeping the
  item's other fields (`"item"`: its id, status, ...) and, when they cannot be read
  as a JSON object, the arguments as written (`"arguments"`, with `input_error` set);
- any other item (web search, file search, custom tool calls, ...): a
  `RawBlock(provider="openai-responses")`, the item as received.

The reply's first block also keeps the response's id (`"response"`), for
`previous_response_id`. A reply of the wrong shape raises `ProviderError` saying what
was wrong; nothing else escapes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
    Usage,
)
from automata.core.providers.reading import clip, count, read_arguments
from automata.openai._reply import PROVIDER, citation_from, json_of, malformed, show

__all__ = [
    "WIRE",
    "ModelEventsAssembler",
    "ResponsesAssembler",
    "StreamFailure",
    "citations",
    "json_of",
    "map_status",
    "response_from",
]

WIRE: Final = "openai-responses"
"""The key this wire's fields are kept under in blocks' `extra`, and the `provider`
of its raw blocks: Responses items are not Chat Completions messages, so neither
provider sends the other's."""

THINKING_SEPARATOR: Final = "\n\n"
"""Put between the summary texts of one reasoning item."""

INCOMPLETE_REASONS: Final[Mapping[str, StopReason]] = {
    "max_output_tokens": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}

StreamFailure = Callable[[str, str], ProviderError]
"""Builds the error for a failure reported inside a stream, from its code and message."""


def map_status(status: str, reason: str, *, has_tool_calls: bool) -> StopReason:
    """The core stop reason for a response's `status` (and, when incomplete, its
    `incomplete_details.reason`)."""
    if status == "completed":
        return StopReason.TOOL_USE if has_tool_calls else StopReason.END_TURN
    if status == "incomplete":
        return INCOMPLETE_REASONS.get(reason, StopReason.INCOMPLETE)
    return StopReason.UNKNOWN


def _object(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if type(value) is dict else {}


def usage_from(raw: object) -> Usage | None:
    """Core usage from a response's `usage` object (None when it is not one):
    `input_tokens` includes cached and cache-written tokens, so those are taken out;
    `output_tokens` includes the reasoning tokens, reported as `reasoning_tokens` too.
    Counts that are not integers read as 0."""
    if type(raw) is not dict:
        return None
    details = _object(raw.get("input_tokens_details"))
    cached = count(details.get("cached_tokens"))
    written = count(details.get("cache_write_tokens"))
    return Usage(
        input_tokens=max(count(raw.get("input_tokens")) - cached - written, 0),
        output_tokens=count(raw.get("output_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=count(_object(raw.get("output_tokens_details")).get("reasoning_tokens")),
    )


def _text(value: object, what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise malformed(f"{what} is not text: {show(value)}")


def _fields(item: Mapping[str, Any], *left_out: str) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in left_out and v is not None}


def _thinking(item: Mapping[str, Any]) -> ThinkingBlock:
    summary = item.get("summary") or []
    texts = [_text(s.get("text"), "a reasoning summary") for s in summary if isinstance(s, dict)]
    if not texts:
        content = item.get("content") or []
        texts = ["".join(_text(c.get("text"), "reasoning text") for c in content)]
    return ThinkingBlock(thinking=THINKING_SEPARATOR.join(texts), extra={WIRE: {"item": item}})


Streamed = Mapping[tuple[int, int], list[Any]]
"""Annotations a stream announced, by output index and content index."""


def citations(annotations: object) -> tuple[Citation, ...]:
    """The `Citation`s of a part's `annotations` (the Responses API's flat form)."""
    if annotations is None:
        return ()
    if not isinstance(annotations, list):
        raise malformed(f"annotations is not a list: {show(annotations)}")
    read: list[Citation] = []
    for annotation in annotations:
        if not isinstance(annotation, Mapping):
            raise malformed(f"an annotation is not an object: {show(annotation)}")
        read.append(citation_from(annotation))
    return tuple(read)


def _texts(item: Mapping[str, Any], out: list[Block], streamed: Mapping[int, list[Any]]) -> bool:
    """The blocks of a message item (`streamed`: annotations announced for its parts,
    by content index); whether it refused."""
    content = item.get("content")
    if not isinstance(content, list):
        raise malformed(f"a message's content is not a list: {show(content)}")
    fields = _fields(item, "content")
    refused = False
    for index, part in enumerate(content):
        if not isinstance(part, dict):
            raise malformed(f"a content part is not an object: {show(part)}")
        kept: dict[str, Any] = {"item": fields}
        if part.get("type") == "refusal":
            refused = True
            kept["part"] = "refusal"
            out.append(TextBlock(text=_text(part.get("refusal"), "a refusal"), extra={WIRE: kept}))
            continue
        text = _text(part.get("text"), "a text part's text")
        logprobs = part.get("logprobs")
        if logprobs:  # asked for with `include=["message.output_text.logprobs"]`
            kept["logprobs"] = logprobs
        cited = citations(part.get("annotations") or streamed.get(index))
        out.append(TextBlock(text=text, citations=cited, extra={WIRE: kept}))
    return refused


def _call(item: Mapping[str, Any]) -> ToolUseBlock:
    arguments = _text(item.get("arguments"), "a function call's arguments")
    value, error = read_arguments(arguments)
    kept: dict[str, Any] = {"item": _fields(item, "type", "call_id", "name", "arguments")}
    if error is not None:
        kept["arguments"] = arguments
    call_id = _text(item.get("call_id"), "a function call's call_id")
    if not call_id:
        raise malformed(f"a function call has no call_id: {clip(str(item), 80)}")
    return ToolUseBlock(
        id=call_id,
        name=_text(item.get("name"), "a function call's name"),
        input=value,
        input_error=error,
        extra={WIRE: kept},
    )


def read_output(
    items: list[Any], response_id: str, streamed: Streamed | None = None
) -> tuple[tuple[Block, ...], bool, bool]:
    """The blocks of a response's output items; whether it called functions; whether
    it refused. `streamed` are the annotations a stream announced."""
    blocks: list[Block] = []
    calls = refused = False
    for position, item in enumerate(items):
        if type(item) is not dict:
            raise malformed(f"an output item is not an object: {show(item)}")
        kind = item.get("type")
        if kind == "reasoning":
            blocks.append(_thinking(item))
        elif kind == "message":
            announced = {c: a for (o, c), a in (streamed or {}).items() if o == position}
            refused = _texts(item, blocks, announced) or refused
        elif kind == "function_call":
            blocks.append(_call(item))
            calls = True
        else:
            blocks.append(RawBlock(provider=WIRE, data=item))
    if response_id:
        _keep_response_id(blocks, response_id)
    return tuple(blocks), calls, refused


def _keep_response_id(blocks: list[Block], response_id: str) -> None:
    """Keep the response's id on the first block that keeps fields (none when the
    reply holds only raw items)."""
    for position, block in enumerate(blocks):
        if isinstance(block, TextBlock | ThinkingBlock | ToolUseBlock):
            mine = (block.extra or {}).get(WIRE)
            kept = dict(mine) if isinstance(mine, dict) else {}
            kept["response"] = response_id
            blocks[position] = block.model_copy(update={"extra": {WIRE: kept}})
            return


def response_from(
    reply: object, items: list[Any] | None = None, streamed: Streamed | None = None
) -> ModelResponse:
    """A `ModelResponse` for a response's JSON object (a whole reply, or the one a
    stream ended with). `items`, when given, are used in place of an empty `output` (a
    server whose final event leaves the output out); `streamed` annotations fill the
    text parts left without any. Anything but an object raises `ProviderError` naming
    what came instead."""
    if type(reply) is not dict:
        shown = clip(reply, 80) if isinstance(reply, str) else show(reply)
        raise ProviderError(f"{PROVIDER}: the reply is not a response: {shown}", provider=PROVIDER)
    output = reply.get("output")
    if not isinstance(output, list):
        raise malformed(f"no output list: {show(output)}")
    status = _text(reply.get("status"), "status") or "completed"
    if status == "failed":
        message = _object(reply.get("error")).get("message")
        detail = _text(message, "an error message") or "no reason given"
        raise ProviderError(f"{PROVIDER}: the response failed: {detail}", provider=PROVIDER)
    response_id = _text(reply.get("id"), "id")
    try:
        blocks, calls, refused = read_output(output or items or [], response_id, streamed)
    except (ValueError, AttributeError, TypeError) as error:  # pydantic's errors, bad nesting
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise malformed(first) from error
    details = reply.get("incomplete_details")
    reason = _text(_object(details).get("reason"), "incomplete reason")
    stop = (
        StopReason.CONTENT_FILTER if refused else map_status(status, reason, has_tool_calls=calls)
    )
    model = reply.get("model")
    return ModelResponse(
        message=Message(role="assistant", content=blocks),
        stop_reason=stop,
        usage=usage_from(reply.get("usage")),
        raw_stop_reason=reason if status == "incomplete" and reason else status,
        model=model if isinstance(model, str) else "",
    )


def _index(event: dict[str, Any], what: str) -> int:
    index = event.get(what)
    if type(index) is not int:
        raise malformed(f"an event's {what} is not a number: {show(index)}")
    return index


class ResponsesAssembler:
    """Folds Responses stream events, given as JSON objects, into deltas and one final
    `ModelResponse`.

    Text, refusal, reasoning summary (a blank line between the summaries of one item)
    and reasoning text deltas, and function call argument deltas (`ToolCallDelta`
    with the call's `call_id`), in stream order. The stream is whole (`finished`) at
    `response.completed` or `response.incomplete`, whose response is the final reply,
    read by `response_from` (with the items of `response.output_item.done` when it
    leaves its output out). `response.failed` and `error` events raise the error
    `fail` builds; an event that is not an object, or a delta of the wrong shape, is a
    malformed reply. Events of other types are skipped. Implements
    `automata.core.providers.StreamAssembler`.
    """

    __slots__ = ("_annotations", "_calls", "_done", "_fail", "_final", "_summaries", "finished")

    def __init__(self, fail: StreamFailure) -> None:
        self._fail = fail
        self._calls: dict[int, tuple[str, str]] = {}
        self._summaries: dict[int, int] = {}
        self._done: dict[int, Any] = {}
        self._annotations: dict[tuple[int, int], list[Any]] = {}
        self._final: Any = None
        self.finished = False

    def feed(self, event: Any) -> list[Delta]:
        if type(event) is not dict:
            raise malformed(f"a stream event is not an object: {show(event)}")
        kind = event.get("type")
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            delta = _text(event.get("delta"), "a text delta")
            return [TextDelta(delta)] if delta else []
        if kind == "response.function_call_arguments.delta":
            delta = _text(event.get("delta"), "an arguments delta")
            at = _index(event, "output_index")
            call = self._calls.get(at)
            if call is None:
                raise malformed(f"arguments for an unknown call at {at!r}")
            return [ToolCallDelta(call[0], call[1], delta)] if delta else []
        if kind == "response.reasoning_summary_text.delta":
            return self._summary(event)
        if kind == "response.reasoning_text.delta":
            delta = _text(event.get("delta"), "a reasoning delta")
            return [ThinkingDelta(delta)] if delta else []
        if kind == "response.output_item.added":
            item = _object(event.get("item"))
            if item.get("type") == "function_call":
                call_id = _text(item.get("call_id"), "a function call's call_id")
                name = _text(item.get("name"), "a function name")
                self._calls[_index(event, "output_index")] = (call_id, name)
        elif kind == "response.output_item.done":
            self._done[_index(event, "output_index")] = event.get("item")
        elif kind == "response.output_text.annotation.added":
            self._annotation(event)
        elif kind == "response.completed" or kind == "response.incomplete":
            self._final = event.get("response")
            self.finished = True
        elif kind == "response.failed":
            error = _object(_object(event.get("response")).get("error"))
            code = _text(error.get("code"), "an error code")
            message = _text(error.get("message"), "an error message")
            raise self._fail(code, message or "the response failed")
        elif kind == "error":
            code = _text(event.get("code"), "an error code")
            raise self._fail(code, _text(event.get("message"), "an error message"))
        return []

    def _summary(self, event: dict[str, Any]) -> list[Delta]:
        delta = _text(event.get("delta"), "a summary delta")
        index, summary = _index(event, "output_index"), event.get("summary_index")
        seen = self._summaries.get(index, 0)
        out: list[Delta] = []
        if type(summary) is int and summary > seen:
            # The summaries of one item are joined by a blank line, as in the reply.
            out.extend(ThinkingDelta(THINKING_SEPARATOR) for _ in range(summary - seen))
            self._summaries[index] = summary
        if delta:
            out.append(ThinkingDelta(delta))
        return out

    def _annotation(self, event: dict[str, Any]) -> None:
        annotation = event.get("annotation")
        if annotation is None:
            return
        if type(annotation) is not dict:
            raise malformed(f"an annotation is not an object: {show(annotation)}")
        key = (_index(event, "output_index"), _index(event, "content_index"))
        self._annotations.setdefault(key, []).append(annotation)

    def response(self) -> ModelResponse:
        done = [self._done[k] for k in sorted(self._done)]
        return response_from(self._final, done, self._annotations)


class ModelEventsAssembler(ResponsesAssembler):
    """`ResponsesAssembler` for the SDK's event models (a stream of
    `responses.create`): each event is dumped to its JSON (`json_of`) and folded by
    the same rules."""

    __slots__ = ()

    def feed(self, event: Any) -> list[Delta]:
        return super().feed(json_of(event))
