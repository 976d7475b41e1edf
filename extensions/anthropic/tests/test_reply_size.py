"""A reply's decoded size is capped (`max_reply_bytes`) on both paths, for the client
the provider builds: a proxy in front of the API is not necessarily trusted, and a small
gzip body can expand a thousandfold. The cases are `ReplySizeSuite`'s, on the
Anthropic wire's shapes."""

from __future__ import annotations

from typing import Any

from automata_wire_testing.reply_size import ReplySizeSuite

from . import replies


class TestAnthropicReplySize(ReplySizeSuite):
    provider_name = "anthropic"

    def answer(self) -> dict[str, Any]:
        return replies.message([{"type": "text", "text": "Snow."}])

    def stream_events(self, body: dict[str, Any]) -> list[bytes]:
        return replies.stream_events(body)
