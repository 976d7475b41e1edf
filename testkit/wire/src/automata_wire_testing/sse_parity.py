"""The default path (the raw body read by `SSEStream`) reads a stream's bytes exactly as
the SDK's `AsyncStream` does, written once as tests: the same bytes, served by a real
local HTTP server, come to the same outcome (the same deltas and reply, or the same
error after the same deltas) on the default path (`raw_body=True`) and through the
SDK's `create` and its stream objects (`raw_body=False`).

Subclass `SSEParitySuite` in a test module as `Test<Vendor>SSEParity`, give it the
events of one streamed reply, where its content starts, the event-stream corners of
the vendor's wire (`corners`; the corners every wire shares are added), and how to
build the vendor's provider on the local server; `server` comes from
`automata_wire_testing.fixtures`. Each corner is sent before the content and after it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from automata.core import Message
from automata.core.providers import SDKProvider
from automata_wire_testing._calls import ask, stream_outcome
from automata_wire_testing._server import Reply, WireServer

__all__ = ["SHARED_CORNERS", "SSEParitySuite"]

SHARED_CORNERS: Mapping[str, bytes] = {
    "an invalid UTF-8 comment": b": \xff\xfe keepalive\n\n",
    "an invalid UTF-8 unknown field": b"note: \xc3\n\n",
    "an id alone": b"id: 7\n\n",
    "a retry alone": b"retry: 1000\n\n",
}
"""Corners that mean nothing on any vendor's wire (a comment, an unknown field, an
`id`, a `retry`), some of them invalid UTF-8."""


class SSEParitySuite(ABC):
    """Both paths to the same outcome on every corner; a vendor fills in its wire."""

    events: ClassVar[list[bytes]]
    """The SSE events of one streamed reply."""
    before_content: ClassVar[int]
    """An index into `events` before the first content delta."""
    after_content: ClassVar[int]
    """An index into `events` after the first content delta."""
    corners: ClassVar[Mapping[str, bytes]]
    """The vendor's own corners, by name (added to `SHARED_CORNERS`)."""

    @abstractmethod
    def provider(self, server: WireServer, *, raw_body: bool) -> SDKProvider[Any]:
        """The vendor's provider on `server`, on the path asked for, never retrying."""

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "corner" in metafunc.fixturenames:
            names = [*SHARED_CORNERS, *self.corners]
            metafunc.parametrize("corner", names, ids=names)
        if "where" in metafunc.fixturenames:
            metafunc.parametrize(
                "where",
                [self.before_content, self.after_content],
                ids=["before-content", "after-content"],
            )

    async def test_both_paths_come_to_the_same_outcome(
        self, server: WireServer, corner: str, where: int
    ) -> None:
        sent = {**SHARED_CORNERS, **self.corners}[corner]
        server.always(Reply(events=[*self.events[:where], sent, *self.events[where:]]))
        fast = self.provider(server, raw_body=True)
        sdk = self.provider(server, raw_body=False)
        request = ask(Message.user("Weather?"))
        try:
            assert await stream_outcome(fast, request) == await stream_outcome(sdk, request)
        finally:
            await fast.aclose()
            await sdk.aclose()
