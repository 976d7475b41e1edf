"""automata.ui: the stream protocols front ends speak, served from automata agents.

- `ui_message_stream(agent, request)`: an agent run as the Vercel AI SDK's UI message
  stream (what `useChat` reads), approvals and client-side tools included.
- `ui_message_thread_stream(service, thread_id, request)`: a durable thread's turn
  as the same stream; approvals answer the thread's interactions.
- `agui_stream(agent, request)`: an agent run as AG-UI events (what CopilotKit and
  `@ag-ui/client` read), encoded with the official `ag-ui-protocol` encoder.
- `agui_thread_stream(service, request)`: a durable thread's turn as AG-UI events;
  interrupts answer the thread's approvals and questions.

Each returns a Starlette response, so a Starlette or FastAPI handler returns it in
one line. Bodies are read within `UILimits` and refused with typed errors (413, 400).
See docs/ui-protocols.md.
"""

from automata.ui._agui import agui_stream
from automata.ui._agui_threads import agui_thread_stream
from automata.ui._errors import (
    InvalidRequestBodyError,
    RequestBodyTooLargeError,
    StreamOverflowError,
    UIProtocolError,
)
from automata.ui._limits import UILimits
from automata.ui._run_plan import ClientTool
from automata.ui._vercel import ui_message_stream
from automata.ui._vercel_threads import ui_message_thread_stream

__all__ = [
    "ClientTool",
    "InvalidRequestBodyError",
    "RequestBodyTooLargeError",
    "StreamOverflowError",
    "UILimits",
    "UIProtocolError",
    "agui_stream",
    "agui_thread_stream",
    "ui_message_stream",
    "ui_message_thread_stream",
]
