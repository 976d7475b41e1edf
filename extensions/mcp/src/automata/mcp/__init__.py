"""Model Context Protocol for automata, on the official `mcp` SDK.

Use an MCP server's tools in an agent::

    from automata.core import Agent
    from automata.mcp import MCPServer

    async with MCPServer.stdio("mcp-server-time") as time_server:
        agent = Agent(provider, tools=await time_server.tools(prefix="time_"))
        result = await agent.run("What time is it in Tokyo?")

and serve automata tools to any MCP client with `serve_stdio(tools, name=...)` or
`streamable_http_app(tools, name=...)` (both built on `serve_tools`).
"""

from automata.mcp._catalog import MCPPrompt, MCPPromptArgument, MCPResource, MCPResourceContents
from automata.mcp._elicitation import (
    Elicitation,
    ElicitationHandler,
    ElicitationReply,
    approve_elicitations,
)
from automata.mcp._elicitation_questions import (
    CallAnswerLike,
    CallAsker,
    ask_elicitations,
)
from automata.mcp._errors import MCPConnectionError, MCPDuplicateToolWarning, MCPToolError
from automata.mcp._progress import MCPProgress, ProgressHandler
from automata.mcp._serve import serve_stdio, serve_tools, streamable_http_app
from automata.mcp._server import MCPServer
from automata.mcp._tool import MCPTool
from automata.mcp._tool_server import MCPToolServer

__all__ = [
    "CallAnswerLike",
    "CallAsker",
    "Elicitation",
    "ElicitationHandler",
    "ElicitationReply",
    "MCPConnectionError",
    "MCPDuplicateToolWarning",
    "MCPProgress",
    "MCPPrompt",
    "MCPPromptArgument",
    "MCPResource",
    "MCPResourceContents",
    "MCPServer",
    "MCPTool",
    "MCPToolError",
    "MCPToolServer",
    "ProgressHandler",
    "approve_elicitations",
    "ask_elicitations",
    "serve_stdio",
    "serve_tools",
    "streamable_http_app",
]
