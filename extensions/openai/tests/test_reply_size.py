"""A reply's decoded size is capped (`max_reply_bytes`) on both paths, for the client
the provider builds: an OpenAI-compatible third party is not a trusted server, and a
small gzip body can expand a thousandfold. The cases are `ReplySizeSuite`'s, on the
Chat Completions wire's shapes."""

from __future__ import annotations

from typing import Any

from automata_wire_testing.reply_size import ReplySizeSuite

from . import replies


class TestOpenAIReplySize(ReplySizeSuite):
    provider_name = "openai"

    def answer(self) -> dict[str, Any]:
        return replies.completion("Snow.")

    def stream_events(self, body: dict[str, Any]) -> list[bytes]:
        return replies.stream_events(body)
