"""The Amazon Bedrock runtime's streamed reply: AWS event-stream frames.

`POST /model/<model>/invoke-with-response-stream` answers with
`application/vnd.amazon.eventstream`: binary frames (a prelude with the lengths and
its CRC32, typed headers, a payload, the frame's CRC32), each a `chunk` event whose
JSON payload carries one Messages stream event, base64-encoded, in `bytes`. An
`exception` frame reports an error mid-stream. `stream_reply` plays such a body on a
`WireServer`, one frame at a time.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from collections.abc import Iterable, Mapping
from typing import Any, Final

from automata_wire_testing._server import Reply

__all__ = ["CONTENT_TYPE", "chunk_frame", "exception_frame", "frame", "stream_reply"]

CONTENT_TYPE: Final = "application/vnd.amazon.eventstream"
_STRING: Final = 7
"""The header value type of a string (the only one Bedrock's frames use)."""


def frame(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event-stream frame with these string `headers` and `payload`."""
    encoded = b"".join(
        struct.pack(">B", len(name.encode()))
        + name.encode()
        + struct.pack(">BH", _STRING, len(value.encode()))
        + value.encode()
        for name, value in headers.items()
    )
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + encoded + payload
    return message + struct.pack(">I", binascii.crc32(message))


def chunk_frame(event: Mapping[str, Any]) -> bytes:
    """The `chunk` frame carrying one Messages stream event (`{"type": ...}`)."""
    data = base64.b64encode(json.dumps(event).encode()).decode()
    return frame(
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"},
        json.dumps({"bytes": data}).encode(),
    )


def exception_frame(kind: str, message: str) -> bytes:
    """An `exception` frame (e.g. `throttlingException`) with its message."""
    return frame(
        {
            ":exception-type": kind,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"message": message}).encode(),
    )


def stream_reply(events: Iterable[Mapping[str, Any] | bytes]) -> Reply:
    """A Bedrock stream reply: each Messages event as its `chunk` frame (bytes are sent
    as they are, e.g. an `exception_frame`)."""
    frames = [event if isinstance(event, bytes) else chunk_frame(event) for event in events]
    return Reply(events=frames, headers={"content-type": CONTENT_TYPE})
