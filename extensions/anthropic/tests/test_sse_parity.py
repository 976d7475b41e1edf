"""The fast path reads a stream's bytes exactly as the SDK's `AsyncStream` does: the
same bytes, served by a real local HTTP server, come to the same outcome (the same
deltas and reply, or the same error after the same deltas) with `fast_path=True` and
with `fast_path=False`, including the event-stream corners a server can exploit."""

from __future__ import annotations

import json

import pytest
from automata_wire_testing import Reply, WireServer, ask, stream_outcome

from automata.anthropic import AnthropicProvider
from automata.core import Message, TextDelta
from automata.core.providers import ModelResponse, RetryPolicy

from . import replies

ANSWER = replies.message([{"type": "text", "text": "Snow."}])
EVENTS = replies.stream_events(ANSWER)  # message_start, ping, block start, 2 deltas, ...
SMUGGLED = json.dumps(
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "EVIL"}}
).encode()

CORNERS = {
    "an empty event name": b"event: \ndata: " + SMUGGLED + b"\n\n",
    "an event name with no value": b"event:\ndata: " + SMUGGLED + b"\n\n",
    "an unnamed event": b"data: " + SMUGGLED + b"\n\n",
    "an invalid UTF-8 comment": b": \xff\xfe keepalive\n\n",
    "an invalid UTF-8 unknown field": b"note: \xc3\n\n",
    "an invalid UTF-8 id": b"id: \xe2\x82\n\n",
    "an id alone": b"id: 7\n\n",
    "a retry alone": b"retry: 1000\n\n",
    "CR line ends": b"event: ping\rdata: {}\r\r",
    "a NUL in an id": b"id: a\x00b\n\n",
}


def providers(server: WireServer) -> tuple[AnthropicProvider, AnthropicProvider]:
    def build(fast: bool) -> AnthropicProvider:
        return AnthropicProvider(
            "claude-test",
            api_key="k",
            base_url=server.base_url,
            cache_prompt=False,
            fast_path=fast,
            retry_policy=RetryPolicy.never(),
        )

    return build(True), build(False)


@pytest.mark.parametrize("where", [2, 4], ids=["before-content", "after-content"])
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


async def test_an_event_with_an_empty_name_is_not_read_as_content(server: WireServer) -> None:
    server.always(Reply(events=[*EVENTS[:3], CORNERS["an empty event name"], *EVENTS[3:]]))
    fast, _sdk = providers(server)
    try:
        outcome = await stream_outcome(fast, ask(Message.user("Weather?")))
    finally:
        await fast.aclose()
        await _sdk.aclose()
    texts = [item.text for item in outcome if isinstance(item, TextDelta)]
    assert texts == ["Sn", "ow."]
    final = outcome[-2]
    assert isinstance(final, ModelResponse)
    assert final.message.text == "Snow."
