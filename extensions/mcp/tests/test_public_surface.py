"""The public surface of `automata.mcp` is its `__all__`, pinned here. Every other module
is private, and the package ships its type information."""

from __future__ import annotations

import pkgutil
from importlib import resources

import automata.mcp

PUBLIC = [
    "MCPConnectionError",
    "MCPDuplicateToolWarning",
    "MCPServer",
    "MCPTool",
    "MCPToolError",
    "serve_stdio",
    "serve_tools",
    "streamable_http_app",
]


def test_all_is_exactly_the_documented_surface() -> None:
    assert automata.mcp.__all__ == PUBLIC


def test_every_module_in_the_package_is_private() -> None:
    modules = [info.name for info in pkgutil.iter_modules(automata.mcp.__path__)]
    assert all(name.startswith("_") for name in modules)


def test_the_package_ships_py_typed() -> None:
    assert resources.files("automata.mcp").joinpath("py.typed").is_file()


def test_the_errors_are_automata_errors() -> None:
    from automata.core import AutomataError

    assert issubclass(automata.mcp.MCPConnectionError, AutomataError)
    assert issubclass(automata.mcp.MCPConnectionError, ConnectionError)
    assert issubclass(automata.mcp.MCPToolError, AutomataError)
