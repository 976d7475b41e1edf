"""The errors an MCP connection raises, and the warning it gives."""

from __future__ import annotations

from automata.core import AutomataError

__all__ = ["MCPConnectionError", "MCPDuplicateToolWarning", "MCPToolError"]


class MCPConnectionError(AutomataError, ConnectionError):
    """The server could not be reached, or the connection to it is gone (its process
    exited, its HTTP endpoint stopped answering, or `async with` has ended). Raised by
    `async with server:` when the handshake fails, and by a tool call on a dead or closed
    connection; the agent's loop shows it to the model as an error result and goes on."""


class MCPToolError(AutomataError):
    """The server answered a tool call with a protocol error (an unknown tool, invalid
    parameters, an internal error). The loop shows it to the model as an error result."""


class MCPDuplicateToolWarning(UserWarning):
    """The server listed two or more tools under one name. The first is kept and the
    later ones are left out (a call names a tool, so the server can only ever run one
    of them under that name). Turn it into an error to refuse such servers:
    `warnings.simplefilter("error", MCPDuplicateToolWarning)`."""
