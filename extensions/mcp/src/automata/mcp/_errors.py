"""The errors an MCP connection raises."""

from __future__ import annotations

from automata.core import AutomataError

__all__ = ["MCPConnectionError", "MCPToolError"]


class MCPConnectionError(AutomataError, ConnectionError):
    """The server could not be reached, or the connection to it is gone (its process
    exited, its HTTP endpoint stopped answering, or `async with` has ended). Raised by
    `async with server:` when the handshake fails, and by a tool call on a dead or closed
    connection; the agent's loop shows it to the model as an error result and goes on."""


class MCPToolError(AutomataError):
    """The server answered a tool call with a protocol error (an unknown tool, invalid
    parameters, an internal error). The loop shows it to the model as an error result."""
