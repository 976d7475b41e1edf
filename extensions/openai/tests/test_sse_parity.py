"""The default path reads a stream's bytes exactly as the SDK's `AsyncStream` does
(`SSEParitySuite`, its SDK side through `chat.completions.create`), on the Chat
Completions wire's corners: named events (Assistants names too), CR line ends, a
comment alone, data split over two lines."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import ClassVar

from automata_wire_testing import WireServer
from automata_wire_testing.sse_parity import SSEParitySuite

from automata.core.providers import RetryPolicy
from automata.openai import OpenAIProvider

from . import replies
from .older_client import through_create

ANSWER = replies.completion("Snow.")
CHUNK = json.dumps(
    {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": {"content": "EVIL"}, "finish_reason": None}],
    }
).encode()


class TestOpenAISSEParity(SSEParitySuite):
    events = replies.stream_events(ANSWER)  # role, 2 content deltas, finish, usage, [DONE]
    before_content = 1
    after_content = 2
    corners: ClassVar[Mapping[str, bytes]] = {
        "an empty event name": b"event: \ndata: " + CHUNK + b"\n\n",
        "a named event": b"event: message\ndata: " + CHUNK + b"\n\n",
        "an Assistants event name": b"event: thread.message\ndata: " + CHUNK + b"\n\n",
        "a comment alone": b": keepalive\n\n",
        "CR line ends": b"data: " + CHUNK + b"\r\r",
        "data split over two lines": b'data: {"id": "x",\ndata: "choices": []}\n\n',
    }

    def provider(self, server: WireServer, *, raw_body: bool) -> OpenAIProvider:
        """The default path, or (not `raw_body`) through `chat.completions.create`,
        whose stream the SDK's `AsyncStream` reads."""
        build = OpenAIProvider if raw_body else through_create
        return build(
            "gpt-test",
            api_key="k",
            base_url=f"{server.base_url}/v1",
            retry_policy=RetryPolicy.never(),
        )
