"""Test scaffolding shared by automata's provider extensions and `bench/` (a workspace
member that is never published).

A local HTTP server that plays back scripted vendor replies (`WireServer`), the SSE
encodings vendors use, recorded traffic loaded as replies, and pytest fixtures for
provider tests (`automata_wire_testing.fixtures`). What is vendor-specific (the JSON
and SSE shapes of each API) stays with each extension's tests, except the Responses
wire (`automata_wire_testing.responses`), which `bench/` speaks too.
"""

from automata_wire_testing._calls import (
    ask,
    final_response,
    sent_body,
    stream_items,
    stream_outcome,
    tool_message,
)
from automata_wire_testing._json_server import JSONRequest, JSONServer
from automata_wire_testing._recordings import (
    Interaction,
    RecordingChecks,
    load_recording,
    replay,
    replayed_error,
)
from automata_wire_testing._server import (
    DroppedConnection,
    PathSwitch,
    Received,
    Reply,
    Responder,
    WireServer,
    unreachable_url,
)
from automata_wire_testing._serving import serving
from automata_wire_testing._sse import halves, sse_data, sse_event

__all__ = [
    "DroppedConnection",
    "Interaction",
    "JSONRequest",
    "JSONServer",
    "PathSwitch",
    "Received",
    "RecordingChecks",
    "Reply",
    "Responder",
    "WireServer",
    "ask",
    "final_response",
    "halves",
    "load_recording",
    "replay",
    "replayed_error",
    "sent_body",
    "serving",
    "sse_data",
    "sse_event",
    "stream_items",
    "stream_outcome",
    "tool_message",
    "unreachable_url",
]
