"""Folding a Chat Completions stream: its chunks' JSON objects into deltas and one
final `ModelResponse`, the one stream folder of this wire.

`stream_decoder` turns a response's server-sent events into chunk objects (ending at
`[DONE]`, raising the SDK's `APIError` for an error sent inside the stream);
`StreamAccumulator` folds chunk objects, whether they came that way or as the SDK's
chunk models of `chat.completions.create` dumped to their JSON (`_reply.json_of`).
The chunks fill the reply model of `_reply.py`, so what is kept in `extra["openai"]`
and what is malformed are the rules of a whole reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

import httpx2

from automata.core.providers import (
    SKIP,
    Delta,
    ModelResponse,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from automata.openai._errors import StreamErrorEvent
from automata.openai._reply import (
    _Call,
    _content,
    _Reply,
    _text,
    json_of,
    malformed,
    new_call_id,
    show,
)
from automata.openai._usage import usage_from

__all__ = ["ModelChunksAssembler", "StreamAccumulator", "stream_decoder"]

_DELTA_FIELDS: Final = frozenset({"content", "function_call", "refusal", "role", "tool_calls"})
"""A chunk delta's fields the SDK models (any other may carry reasoning or vendor fields)."""


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
            usage = usage_from(chunk.get("usage"))
            raise StreamErrorEvent(message, response.request, body=error, usage=usage)
        return chunk

    return decode


class StreamAccumulator:
    """Folds chat completion chunks (JSON objects) into deltas and one final
    `ModelResponse`.

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
                    self._fragments(tool_calls, out)
            finish = choice.get("finish_reason")
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
                pending = calls[index] = _Call()
            written = len(pending.arguments)
            pending.read(fragment)
            if len(pending.arguments) > written:
                if not pending.id:  # the final block must carry the id the deltas named
                    pending.id = new_call_id()
                out.append(ToolCallDelta(pending.id, pending.name, pending.arguments[-1]))

    def response(self) -> ModelResponse:
        return self._reply.response(self._finish, self._usage, self._model)


class ModelChunksAssembler(StreamAccumulator):
    """`StreamAccumulator` for the SDK's chunk models (a stream of
    `chat.completions.create`): each chunk is dumped to its JSON (`json_of`) and
    folded by the same rules."""

    def feed(self, chunk: Any) -> list[Delta]:
        return super().feed(json_of(chunk))
