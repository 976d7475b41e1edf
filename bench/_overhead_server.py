"""The local server of `provider_overhead.py` (and of the benches built on it): a child
process answering the Messages, Chat Completions, Responses and Gemini wires with the
bench's script: first a tool call, then the answer once the tool's result comes back.

Run as a script it serves on 127.0.0.1 and prints its port; `local_server()` starts it
so for as long as a block runs."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from automata_wire_testing import Reply, WireServer, sse_data, sse_event
from automata_wire_testing import responses as responses_wire

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._hand_loops import TEXT


def _gemini_sides() -> Any:
    """The Gemini case (`bench/_gemini_sides.py`, beside this file)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    return importlib.import_module("_gemini_sides")


def _words(text: str) -> list[str]:
    words = text.split(" ")
    return [w + " " for w in words[:-1]] + [words[-1]]


def _anthropic(body: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
    last = body["messages"][-1]["content"]
    answered = isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)
    if answered:
        content: list[dict[str, Any]] = [{"type": "text", "text": TEXT}]
        stop = "end_turn"
    else:
        content = [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
        ]
        stop = "tool_use"
    usage = {"input_tokens": 120, "output_tokens": 40, "cache_read_input_tokens": 0}
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }

    event = sse_event
    start = {**message, "content": [], "stop_reason": None}
    events = [event("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(content):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": w} for w in _words(block["text"])]
        else:
            opening = {**block, "input": {}}
            raw = json.dumps(block["input"])
            deltas = [
                {"type": "input_json_delta", "partial_json": raw[i : i + 6]}
                for i in range(0, len(raw), 6)
            ]
        events.append(
            event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        events.extend(
            event(
                "content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}
            )
            for d in deltas
        )
        events.append(event("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        event(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": usage},
        )
    )
    events.append(event("message_stop", {"type": "message_stop"}))
    return message, events


def _openai(body: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
    answered = body["messages"][-1]["role"] == "tool"
    message: dict[str, Any] = {"role": "assistant", "content": TEXT if answered else None}
    if not answered:
        message["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
            }
        ]
    finish = "stop" if answered else "tool_calls"
    usage = {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160}
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        data = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": body["model"],
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return sse_data(data)

    events = [chunk({"role": "assistant", "content": ""})]
    if answered:
        events.extend(chunk({"content": w}) for w in _words(TEXT))
    else:
        call = message["tool_calls"][0]
        head = {
            "index": 0,
            "id": call["id"],
            "type": "function",
            "function": {"name": "weather", "arguments": ""},
        }
        events.append(chunk({"tool_calls": [head]}))
        raw = call["function"]["arguments"]
        events.extend(
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": raw[i : i + 6]}}]})
            for i in range(0, len(raw), 6)
        )
    events.append(chunk({}, finish))
    usage_chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": body["model"],
        "choices": [],
        "usage": usage,
    }
    events.append(sse_data(usage_chunk))
    events.append(b"data: [DONE]\n\n")
    return completion, events


def _openai_responses(body: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
    answered = body["input"][-1].get("type") == "function_call_output"
    if answered:
        output = [responses_wire.message(TEXT)]
    else:
        output = [responses_wire.function_call("call_1", "weather", '{"city":"Oslo"}')]
    usage = responses_wire.usage(120, 40)
    whole = responses_wire.response(*output, usage=usage, model=body["model"])
    return whole, responses_wire.stream_events(whole, pieces=_words)


def _reply(build: Callable[[dict[str, Any]], tuple[dict[str, Any], list[bytes]]]) -> Any:
    def respond(body: dict[str, Any]) -> Reply:
        whole, events = build(body)
        return Reply(events=events) if body.get("stream") else Reply(json_body=whole)

    return respond


def serve() -> None:
    """Child process: answer both wires on 127.0.0.1, print the port, serve until
    terminated. Requests are not recorded, and events go out back to back."""
    server = WireServer(record=False, pace=False)
    server.route("/messages", _reply(_anthropic))
    server.route("/responses", _reply(_openai_responses))
    _gemini_sides().add_routes(server)
    server.always(_reply(_openai))
    server.start()
    print(server.port, flush=True)
    threading.Event().wait()


@contextmanager
def local_server() -> Iterator[str]:
    """The local server (`serve`) in a child process, for as long as the block runs:
    yields its base URL."""
    child = subprocess.Popen([sys.executable, __file__], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        yield f"http://127.0.0.1:{child.stdout.readline().strip()}"
    finally:
        child.terminate()
        child.wait()


if __name__ == "__main__":
    serve()
