"""Chat Completions replies read straight from their JSON (the fast path), into the
same blocks `_reply.py` reads from the SDK's models.

`response_from_json` reads a whole completion's JSON object; `JsonStreamAccumulator`
folds chunks given as JSON objects; `stream_decoder` turns the server-sent events of a
response into those objects (ending at `[DONE]`, raising the SDK's `APIError` for an
error sent inside the stream). The rules of `_reply.py` hold here too (what is kept
in `extra["openai"]`, what is malformed): both paths share its reply model, and the
provider tests run on both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import httpx2

from automata.core.providers import (
    SKIP,
    Delta,
    Message,
    ModelResponse,
    RawBlock,
    StopReason,
    TextDelta,
    ToolCallDelta,
    Usage,
)
from automata.core.providers.reading import count
from automata.openai._errors import StreamErrorEvent
from automata.openai._reply import (
    PROVIDER,
    StreamAccumulator,
    _Call,
    _content,
    _Reply,
    _text,
    malformed,
    map_finish_reason,
    new_call_id,
    show,
)
from automata.openai._usage import USAGE_FIELDS, usage_extra

__all__ = ["JsonStreamAccumulator", "response_from_json", "stream_decoder", "usage_from_json"]

_CALL_FIELDS: Final = frozenset({"id", "type", "function", "index"})
"""A tool call's fields the SDK models (any other is a vendor field, kept)."""
_DELTA_FIELDS: Final = frozenset({"content", "function_call", "refusal", "role", "tool_calls"})
"""A chunk delta's fields the SDK models (any other may carry reasoning or vendor fields)."""


def usage_from_json(raw: object) -> Usage | None:
    """Core usage from a `usage` object, as `_reply.usage_from` reads the SDK's:
    cached and cache-written tokens taken out of `input_tokens`, the reasoning part of
    `completion_tokens` as `reasoning_tokens`, other fields in `extra["openai"]`; None
    when it is not an object."""
    if type(raw) is not dict:
        return None
    details = raw.get("prompt_tokens_details")
    if type(details) is dict:
        cached = count(details.get("cached_tokens"))
        written = count(details.get("cache_write_tokens"))
    else:
        cached = written = 0
    prompt = count(raw.get("prompt_tokens"))
    output = raw.get("completion_tokens_details")
    kept = (
        None
        if raw.keys() <= USAGE_FIELDS
        else {k: v for k, v in raw.items() if k not in USAGE_FIELDS}
    )
    return Usage(
        input_tokens=max(prompt - cached - written, 0),
        output_tokens=count(raw.get("completion_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=written,
        reasoning_tokens=count(output.get("reasoning_tokens")) if type(output) is dict else 0,
        extra=usage_extra(kept),
    )


class _JsonCall(_Call):
    __slots__ = ()

    def read(self, call: Any) -> None:
        """One tool call's JSON object, or a streamed fragment of one."""
        call_id = call.get("id")
        if call_id:
            self.id = _text(call_id, "a tool call's id")
        function = call.get("function")
        if function is not None:
            name = function.get("name")
            if name and not self.name:
                self.name = _text(name, "a tool call's name")
            arguments = function.get("arguments")
            if arguments:
                self.arguments.append(_text(arguments, "a tool call's arguments"))
        if not call.keys() <= _CALL_FIELDS:
            self.fields.update((k, v) for k, v in call.items() if k not in _CALL_FIELDS)


def _response(reply: _Reply, finish: str, usage: object, model: str) -> ModelResponse:
    """`_Reply.response`, with usage read from JSON."""
    if reply.refused:
        stop = StopReason.CONTENT_FILTER
    else:
        stop = map_finish_reason(finish, has_tool_calls=bool(reply.calls))
    try:
        return ModelResponse(
            message=Message(role="assistant", content=reply.blocks()),
            stop_reason=stop,
            usage=usage_from_json(usage),
            raw_stop_reason=finish,
            model=model,
        )
    except ValueError as error:  # a value the blocks refuse (pydantic's errors)
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise malformed(first) from error


def response_from_json(data: dict[str, Any]) -> ModelResponse:
    """A `ModelResponse` for a chat completion's JSON object (its first choice).
    Raises on a body of another shape (the provider then reads it through the SDK)."""
    choices = data["choices"]
    message = choices[0]["message"]
    reply = _Reply()
    reply.read_extra(message, None)
    _content(message.get("content"), reply.thinking, reply.text)
    refusal = _text(message.get("refusal"), "refusal")
    if refusal:
        reply.refused = True
        reply.text.append(refusal)
    calls = message.get("tool_calls")
    if calls is not None:
        for position, call in enumerate(calls):
            if call.get("type") not in (None, "function"):
                # Another kind of call (a custom tool's): kept as received.
                reply.raw.append(RawBlock(provider=PROVIDER, data=dict(call)))
                continue
            if "function" not in call:  # the SDK's reading decides what that raises
                raise malformed("a function tool call without its function")
            pending = _JsonCall()
            pending.read(call)
            reply.calls[position] = pending
    finish = _text(choices[0].get("finish_reason"), "finish_reason")
    model = data.get("model")
    return _response(reply, finish, data.get("usage"), model if isinstance(model, str) else "")


def stream_decoder(response: httpx2.Response) -> Callable[[str | None, str], Any]:
    """The `SSEStream` decoder for a Chat Completions stream, as the SDK's stream reads
    it: each event's data is a chunk's JSON (an event named `thread.*` is wrapped as
    the SDK wraps it, in an object without choices); `[DONE]` ends the stream (what
    follows is skipped); a chunk carrying `error` raises the SDK's `APIError` for it
    (a `StreamErrorEvent`, keeping the usage the chunk carried)."""
    done = False

    def decode(event: str | None, data: str) -> Any:
        nonlocal done
        if done:
            return SKIP
        if data.startswith("[DONE]"):
            done = True
            return SKIP
        chunk = json.loads(data)
        if event is not None and event.startswith("thread."):
            # The SDK reads an Assistants event as `{"data": ..., "event": ...}`: a
            # chunk without choices, so carrying nothing (no text can come in this way).
            return {"data": chunk, "event": event}
        if type(chunk) is dict and chunk.get("error"):
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else None
            if not message or not isinstance(message, str):
                message = "An error occurred during streaming"
            usage = usage_from_json(chunk.get("usage"))
            raise StreamErrorEvent(message, response.request, body=error, usage=usage)
        return chunk

    return decode


class JsonStreamAccumulator(StreamAccumulator):
    """`StreamAccumulator` for chunks given as JSON objects instead of the SDK's
    models: the same deltas, the same final `ModelResponse`, the same errors."""

    def feed(self, chunk: Any) -> list[Delta]:
        if type(chunk) is not dict:
            raise malformed(f"a chunk is not a chat completion chunk: {show(chunk)}")
        choices = chunk.get("choices") or ()
        usage = chunk.get("usage")
        if usage is not None:
            self._usage = usage
            if not choices:
                self.finished = True
        model = chunk.get("model")
        if model and not self._model and isinstance(model, str):
            self._model = model
        if not isinstance(choices, list | tuple):
            raise malformed(f"a chunk's choices is not a list: {show(choices)}")
        out: list[Delta] = []
        reply = self._reply
        for choice in choices:
            if type(choice) is not dict:
                raise malformed(f"a chunk's choice is not an object: {show(choice)}")
            if choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta")
            if delta is not None:
                if type(delta) is not dict:
                    raise malformed(f"a chunk's delta is not an object: {show(delta)}")
                if not delta.keys() <= _DELTA_FIELDS:
                    reply.read_extra(delta, out)
                text = delta.get("content")
                if text:
                    if isinstance(text, str):
                        reply.text.append(text)
                        out.append(TextDelta(text))
                    else:
                        self._parts(text, out)
                refusal = delta.get("refusal")
                if refusal:
                    reply.refused = True
                    reply.text.append(_text(refusal, "refusal"))
                    out.append(TextDelta(refusal))
                tool_calls = delta.get("tool_calls")
                if tool_calls:
                    self._json_fragments(tool_calls, out)
            finish = choice.get("finish_reason")
            if finish:
                self._finish = _text(finish, "finish_reason")
                self.finished = True
        return out

    def _json_fragments(self, fragments: object, out: list[Delta]) -> None:
        if not isinstance(fragments, list):
            raise malformed(f"tool_calls is not a list: {show(fragments)}")
        calls = self._reply.calls
        for fragment in fragments:
            if type(fragment) is not dict:
                raise malformed(f"a tool call fragment is not an object: {show(fragment)}")
            index = fragment.get("index")
            if index is None:
                # No index (some servers): a fragment naming a call starts a new one,
                # any other continues the last.
                function = fragment.get("function")
                name = function.get("name") if type(function) is dict else None
                named = fragment.get("id") or name
                index = max(calls, default=-1) + (1 if named or not calls else 0)
            elif not isinstance(index, int):
                raise malformed(f"a tool call fragment's index is not a number: {show(index)}")
            pending = calls.get(index)
            if pending is None:
                pending = calls[index] = _JsonCall()
            written = len(pending.arguments)
            pending.read(fragment)
            if len(pending.arguments) > written:
                if not pending.id:  # the final block must carry the id the deltas named
                    pending.id = new_call_id()
                out.append(ToolCallDelta(pending.id, pending.name, pending.arguments[-1]))

    def response(self) -> ModelResponse:
        return _response(self._reply, self._finish, self._usage, self._model)
