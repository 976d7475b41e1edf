"""The call deadline and the stream idle limit, with the OpenAI wire's shapes: SSE
comments (`: keepalive`) after content must not hold a run past its deadline."""

from __future__ import annotations

from automata_wire_testing import Responder
from automata_wire_testing.deadlines import DeadlineSuite

from . import replies


class TestOpenAIDeadlines(DeadlineSuite):
    provider_name = "openai"
    events_before_content = 1  # the role chunk
    events_after_end = 2  # the usage chunk, [DONE]
    keepalive = b": keepalive\n\n"

    def answer(self, text: str) -> Responder:
        return replies.reply(replies.completion(text))

    def stream_events(self, text: str) -> list[bytes]:
        return replies.stream_events(replies.completion(text))
