"""The server's side of the wire: newline-delimited JSON-RPC over a pair of byte
streams, screened before the SDK's connection sees a message.

The SDK's connection takes any object with `send`, `receive` and `close` as its
message transport. Its own stdio transport hands on whatever a line decodes to, and a
line that is not a JSON-RPC object (`[]`, `null`, `1`, a batch) or carries an id that
cannot be a dictionary key kills its receive loop, and with it the server. This one
answers such lines itself, as JSON-RPC 2.0 says, and reads on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp import RequestError

__all__ = ["ScreenedWire", "screen"]

Message = dict[str, Any]


def _error(request_id: object, error: RequestError) -> Message:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error_obj()}


def _invalid(request_id: object, reason: str) -> Message:
    return _error(request_id, RequestError.invalid_request({"reason": reason}))


def _usable_id(value: object) -> bool:
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def _has_answerable_id(message: dict[str, Any]) -> bool:
    return message.get("id") is not None and _usable_id(message["id"])


def _screen_object(message: dict[str, Any]) -> Message | None:
    """The error answering `message`, or None when the SDK can take it."""
    if "id" in message and not _usable_id(message["id"]):
        return _invalid(None, "an id is a string, a number or null")
    request_id = message.get("id")
    if "method" in message:
        if not isinstance(message["method"], str):
            return _invalid(request_id, "the method is not a string")
        return None
    if "id" not in message:
        return _invalid(None, "neither a request, a notification nor a response")
    return None


def screen(line: bytes) -> tuple[Message | None, list[Message]]:
    """Read one line: the message for the SDK (or None) and the answers to write back
    for what it cannot take. Invalid JSON is a parse error; a value that is not an
    object is an invalid request (a batch: one error for each request in it that has
    an id, else one for the batch); so are an object whose id is not a string, number
    or null, a non-string method, and an object that is neither a request, a
    notification nor a response. Errors without a usable id carry id null. A line
    nested too deeply to decode (past the interpreter's recursion limit) is a parse
    error too."""
    try:
        value = json.loads(line)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        return None, [_error(None, RequestError.parse_error({"reason": str(exc)}))]
    except RecursionError:
        reason = "the line is nested too deeply to decode"
        return None, [_error(None, RequestError.parse_error({"reason": reason}))]
    if isinstance(value, dict):
        refusal = _screen_object(value)
        return (value, []) if refusal is None else (None, [refusal])
    if isinstance(value, list):
        reason = "batches are not served: send one request per line"
        answers = [
            _invalid(item["id"], reason)
            for item in value
            if isinstance(item, dict) and "method" in item and _has_answerable_id(item)
        ]
        return None, answers or [_invalid(None, reason)]
    return None, [_invalid(None, f"a message is a JSON object, not {type(value).__name__}")]


class ScreenedWire:
    """The SDK's message transport over `reader` and `writer`: `receive` returns the next
    message the SDK can take (None at end of input), answering the lines it cannot
    (see `screen`) on the way; `send` writes one message as one line, in call order.
    Lines longer than the reader's limit are read whole, as the SDK's own transport
    does. `close` stops sending; the streams stay their owner's."""

    __slots__ = ("_closed", "_reader", "_writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._closed = False

    async def send(self, message: Message) -> None:
        if self._closed:
            raise ConnectionError("the connection is closed")
        self._writer.write(json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n")
        await self._writer.drain()

    async def receive(self) -> Message | None:
        while True:
            line = await self._read_line()
            if not line:
                return None
            if not line.strip():
                continue
            message, answers = screen(line)
            for answer in answers:
                await self.send(answer)
            if message is not None:
                return message

    async def close(self) -> None:
        self._closed = True

    async def _read_line(self) -> bytes:
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    chunks.append(await self._reader.readuntil(b"\n"))
                    return b"".join(chunks)
                except asyncio.LimitOverrunError as exc:
                    chunks.append(await self._reader.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            chunks.append(exc.partial)
            return b"".join(chunks)
