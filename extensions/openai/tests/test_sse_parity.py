"""The fast path reads a stream's bytes exactly as the SDK's `AsyncStream` does: the
same bytes, served by a real local HTTP server, come to the same outcome (the same
deltas and reply, or the same error after the same deltas) with `fast_path=True` and
with `fast_path=False`, including the event-stream corners a server can exploit."""

from __future__ import annotations

import json

import pytest
from automata_wire_testing import Reply, WireServer, ask, stream_outcome

from automata.core import Message
from automata.core.providers import RetryPolicy
from automata.openai import OpenAIProvider

from . import replies

ANSWER = replies.completion("Snow.")
EVENTS = replies.stream_events(ANSWER)  # role, 2 content deltas, finish, usage, [DONE]
CHUNK = json.dumps(
    {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": {"content": "EVIL"}, "finish_reason": None}],
    }
).encode()

CORNERS = {
    "an empty event name": b"event: \ndata: " + CHUNK + b"\n\n",
    "a named event": b"event: message\ndata: " + CHUNK + b"\n\n",
    "an Assistants event name": b"event: thread.message\ndata: " + CHUNK + b"\n\n",
    "an invalid UTF-8 comment": b": \xff\xfe keepalive\n\n",
    "an invalid UTF-8 unknown field": b"note: \xc3\n\n",
    "an id alone": b"id: 7\n\n",
    "a retry alone": b"retry: 1000\n\n",
    "a comment alone": b": keepalive\n\n",
    "CR line ends": b"data: " + CHUNK + b"\r\r",
    "data split over two lines": b'data: {"id": "x",\ndata: "choices": []}\n\n',
}


def providers(server: WireServer) -> tuple[OpenAIProvider, OpenAIProvider]:
    def build(fast: bool) -> OpenAIProvider:
        return OpenAIProvider(
            "gpt-test",
            api_key="k",
            base_url=f"{server.base_url}/v1",
            fast_path=fast,
            retry_policy=RetryPolicy.never(),
        )

    return build(True), build(False)


@pytest.mark.parametrize("where", [1, 2], ids=["before-content", "after-content"])
@pytest.mark.parametrize("corner", list(CORNERS), ids=list(CORNERS))
async def test_both_paths_come_to_the_same_outcome(
    server: WireServer, corner: str, where: int
) -> None:
    events = [*EVENTS[:where], CORNERS[corner], *EVENTS[where:]]
    server.always(Reply(events=events))
    fast, sdk = providers(server)
    request = ask(Message.user("Weather?"))
    try:
        assert await stream_outcome(fast, request) == await stream_outcome(sdk, request)
    finally:
        await fast.aclose()
        await sdk.aclose()
