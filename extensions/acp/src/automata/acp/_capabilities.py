"""The `initialize` answer: only what the server implements."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from acp import PROTOCOL_VERSION
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    PromptCapabilities,
)

__all__ = ["initialize_response"]


def _version() -> str:
    try:
        return version("automata-ai-acp")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "0+unknown"


def initialize_response(
    name: str, protocol_version: int, *, load_session: bool
) -> InitializeResponse:
    """The client's protocol version (or the SDK's, if lower), no authentication, text
    and resource-link prompts only, no MCP transports, and `loadSession` only when a
    thread service backs the sessions."""
    return InitializeResponse(
        protocol_version=min(protocol_version, PROTOCOL_VERSION),
        agent_capabilities=AgentCapabilities(
            load_session=load_session,
            prompt_capabilities=PromptCapabilities(
                image=False, audio=False, embedded_context=False
            ),
            mcp_capabilities=McpCapabilities(http=False, sse=False),
        ),
        auth_methods=[],
        agent_info=Implementation(name=name, version=_version()),
    )
