"""A streaming server for `scale_sessions.py`: both wires, held and paced on command.

Run as a child process (`python bench/_scale_server.py`): it prints its port, then
answers every POST with a streamed reply on plain asyncio sockets (HTTP/1.1, chunked,
keep-alive), `/messages` in the Anthropic Messages wire and anything else in the
OpenAI Chat Completions wire. A reply sends its opening events and one text delta at
once, waits until the server is released, then sends `deltas` more text deltas one
`interval` apart (each reply starts at a random offset within the first interval, so
the load is even), then its closing events. Each text delta is the server's
`time.monotonic_ns()` when it wrote the delta, and a space: the same clock as the
client's (CLOCK_MONOTONIC, one per machine), so the client reads each event's latency
from its text.

Commands, one per line on stdin: `hold` (replies to requests arriving from now on
wait for the next `go`), `go` (release them), `pace INTERVAL DELTAS`.

It is purpose-built rather than the `WireServer` of `testkit/wire` because the wire
server builds a reply's events before sending them (so they cannot carry the time they
were written) and cannot be held and released from another process.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

Events = tuple[bytes, Callable[[str], bytes], bytes]
"""A reply's opening events, how one text delta is written, and its closing events."""

HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
    b"transfer-encoding: chunked\r\ncache-control: no-cache\r\n\r\n"
)


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _data(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def anthropic_events(model: str) -> Events:
    usage = {"input_tokens": 120, "output_tokens": 40}
    start: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    opening = _event("message_start", {"type": "message_start", "message": start}) + _event(
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    )
    prefix = b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'

    def delta(text: str) -> bytes:
        return prefix + b'"delta":{"type":"text_delta","text":"' + text.encode() + b'"}}\n\n'

    closing = (
        _event("content_block_stop", {"type": "content_block_stop", "index": 0})
        + _event(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        )
        + _event("message_stop", {"type": "message_stop"})
    )
    return opening, delta, closing


def openai_events(model: str) -> Events:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _data({**head, "choices": [choice]})

    opening = chunk({"role": "assistant", "content": ""})
    before, after = chunk({"content": "\x00"}).split(b"\\u0000")

    def delta(text: str) -> bytes:
        return before + text.encode() + after

    usage = {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160}
    closing = (
        chunk({}, "stop") + _data({**head, "choices": [], "usage": usage}) + b"data: [DONE]\n\n"
    )
    return opening, delta, closing


def _chunked(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


class Control:
    """What the commands set: the gate replies wait at, and the pace."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.interval = 0.01
        self.deltas = 3
        self.random = random.Random(21)

    def command(self, line: str) -> None:
        words = line.split()
        if words == ["hold"]:
            self.gate = asyncio.Event()
        elif words == ["go"]:
            self.gate.set()
        elif words and words[0] == "pace":
            self.interval, self.deltas = float(words[1]), int(words[2])


class Connection(asyncio.Protocol):
    """One keep-alive connection: requests one after another, each answered in a task."""

    def __init__(self, control: Control) -> None:
        self.control = control
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        head = self.buffer[:end].decode("latin-1")
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if len(self.buffer) < end + 4 + length:
            return
        body = json.loads(self.buffer[end + 4 : end + 4 + length] or b"{}")
        self.buffer = self.buffer[end + 4 + length :]
        path = head.split(" ", 2)[1]
        build = anthropic_events if path.endswith("/messages") else openai_events
        asyncio.get_running_loop().create_task(self.reply(build(str(body.get("model", "m")))))

    async def reply(self, events: Events) -> None:
        transport = self.transport
        assert transport is not None
        control = self.control
        gate, interval, deltas = control.gate, control.interval, control.deltas
        opening, delta, closing = events
        transport.write(HEAD + _chunked(opening + delta(f"{time.monotonic_ns()} ")))
        await gate.wait()
        await asyncio.sleep(control.random.uniform(0, interval))
        for _ in range(deltas):
            if transport.is_closing():
                return
            transport.write(_chunked(delta(f"{time.monotonic_ns()} ")))
            await asyncio.sleep(interval)
        if not transport.is_closing():
            transport.write(_chunked(closing) + b"0\r\n\r\n")


async def main() -> None:
    loop = asyncio.get_running_loop()
    control = Control()
    server = await loop.create_server(
        lambda: Connection(control), "127.0.0.1", 0, backlog=4096, reuse_address=True
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        control.command(line.decode())
    server.close()


if __name__ == "__main__":
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError):  # pragma: no cover - not on this platform
        pass
    asyncio.run(main())
