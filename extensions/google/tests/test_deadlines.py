"""The call deadline and the stream idle limit, with the Gemini wire's shapes: bytes
that carry no chunk after content must not hold a run past its deadline."""

from __future__ import annotations

from automata_wire_testing import Responder
from automata_wire_testing import gemini as wire
from automata_wire_testing.deadlines import DeadlineSuite


class TestGoogleDeadlines(DeadlineSuite):
    provider_name = "google"
    events_before_content = 0  # the first chunk carries text
    # Blank lines: bytes on the wire that the SDK's reader reads as no chunk (it takes
    # an SSE comment line for a chunk of JSON, and fails on it).
    keepalive = b"\n"

    def answer(self, text: str) -> Responder:
        return wire.answer(wire.response([{"text": text}]))

    def stream_events(self, text: str) -> list[bytes]:
        return wire.stream_events(wire.response([{"text": text}]))
