"""The call deadline and the stream idle limit, with the Anthropic wire's shapes: a
`ping` flood after content must not hold a run past its deadline."""

from __future__ import annotations

from automata_wire_testing import Responder, sse_event
from automata_wire_testing.deadlines import DeadlineSuite

from . import replies


class TestAnthropicDeadlines(DeadlineSuite):
    provider_name = "anthropic"
    events_before_content = 3  # message_start, ping, content_block_start
    keepalive = sse_event("ping", {"type": "ping"})

    def answer(self, text: str) -> Responder:
        return replies.reply(replies.message([{"type": "text", "text": text}]))

    def stream_events(self, text: str) -> list[bytes]:
        return replies.stream_events(replies.message([{"type": "text", "text": text}]))
