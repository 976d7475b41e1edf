"""A raw post's stream reads its bytes exactly as the SDK's `AsyncStream` does
(`SSEParitySuite`), on the Anthropic wire's corners: named events, an event name left
empty, CR line ends, a NUL in an id. The suite's `raw_body=False` side is the path
through `messages.create` (a client whose `post` does not take raw requests)."""

from __future__ import annotations

import json

from automata_wire_testing import Reply, WireServer, ask, stream_outcome
from automata_wire_testing.sse_parity import SSEParitySuite

from automata.anthropic import AnthropicProvider
from automata.core import Message, TextDelta
from automata.core.providers import ModelResponse, RetryPolicy

from . import replies
from .conftest import through_create

ANSWER = replies.message([{"type": "text", "text": "Snow."}])
EVENTS = replies.stream_events(ANSWER)  # message_start, ping, block start, 2 deltas, ...
SMUGGLED = json.dumps(
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "EVIL"}}
).encode()

CORNERS = {
    "an empty event name": b"event: \ndata: " + SMUGGLED + b"\n\n",
    "an event name with no value": b"event:\ndata: " + SMUGGLED + b"\n\n",
    "an unnamed event": b"data: " + SMUGGLED + b"\n\n",
    "an invalid UTF-8 id": b"id: \xe2\x82\n\n",
    "CR line ends": b"event: ping\rdata: {}\r\r",
    "a NUL in an id": b"id: a\x00b\n\n",
}


class TestAnthropicSSEParity(SSEParitySuite):
    events = EVENTS
    before_content = 2
    after_content = 4
    corners = CORNERS

    def provider(self, server: WireServer, *, raw_body: bool) -> AnthropicProvider:
        provider_class = AnthropicProvider if raw_body else through_create
        return provider_class(
            "claude-test",
            api_key="k",
            base_url=server.base_url,
            cache_prompt=False,
            retry_policy=RetryPolicy.never(),
        )

    async def test_an_event_with_an_empty_name_is_not_read_as_content(
        self, server: WireServer
    ) -> None:
        server.always(Reply(events=[*EVENTS[:3], CORNERS["an empty event name"], *EVENTS[3:]]))
        fast = self.provider(server, raw_body=True)
        try:
            outcome = await stream_outcome(fast, ask(Message.user("Weather?")))
        finally:
            await fast.aclose()
        texts = [item.text for item in outcome if isinstance(item, TextDelta)]
        assert texts == ["Sn", "ow."]
        final = outcome[-2]
        assert isinstance(final, ModelResponse)
        assert final.message.text == "Snow."
