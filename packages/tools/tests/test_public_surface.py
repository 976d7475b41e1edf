"""The public surface of `automata.tools` is its `__all__`, pinned here: a name added
or removed is a deliberate change to this list. Every other module is private."""

from __future__ import annotations

import importlib
import pkgutil
from importlib import resources
from types import ModuleType

import pytest

import automata.tools

PUBLIC = [
    "DEFAULT_USER_AGENT",
    "AddressPolicy",
    "Category",
    "Refused",
    "Resolver",
    "Sandbox",
    "SearchError",
    "SearchResult",
    "Searcher",
    "ToolError",
    "categorize",
    "format_results",
    "http_fetch",
    "parse_ip_literal",
    "read_file",
    "shell",
    "system_resolver",
    "web_search",
    "write_file",
]


def test_all_is_exactly_the_pinned_public_names() -> None:
    assert automata.tools.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_imports(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from automata.tools import {name}", namespace)  # the user's import, verbatim
    assert namespace[name] is getattr(automata.tools, name)


def test_nothing_public_is_left_out_of_all() -> None:
    exported = {
        name
        for name, value in vars(automata.tools).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert exported == set(PUBLIC)


def test_every_module_but_the_package_itself_is_private() -> None:
    modules = [info.name for info in pkgutil.iter_modules(automata.tools.__path__)]
    assert modules
    assert [name for name in modules if not name.startswith("_")] == []
    for name in modules:
        importlib.import_module(f"automata.tools.{name}")


def test_the_package_ships_its_type_information() -> None:
    assert resources.files("automata.tools").joinpath("py.typed").is_file()
