"""`MCPTool`: one tool of an MCP server, as an automata `Tool`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp import types as mcp_types

from automata.core import ToolContext, ToolResult

if TYPE_CHECKING:
    from automata.mcp._server import MCPServer

__all__ = ["MCPTool"]


@dataclass(frozen=True, slots=True)
class MCPTool:
    """A tool offered by an MCP server. `name` is the server's name for it behind
    `prefix`; `description` and `input_schema` are the server's, unchanged (a missing
    description is ""). `execute` calls the tool on the server under its own name; the
    agent's `ToolPolicy` bounds the call like any other tool's."""

    server: MCPServer = field(repr=False)
    definition: mcp_types.Tool = field(repr=False)
    prefix: str = ""

    @property
    def name(self) -> str:
        return self.prefix + self.definition.name

    @property
    def description(self) -> str:
        return self.definition.description or ""

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return self.definition.input_schema

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult:
        return await self.server.call(self.definition.name, arguments, context=context)
