"""The public surface of `automata.tavily` is its `__all__`, pinned here: one class.
Every other module is private, and the package ships its type information."""

from __future__ import annotations

import pkgutil
from importlib import resources
from types import ModuleType

import automata.tavily


def test_all_is_exactly_tavily_search() -> None:
    assert automata.tavily.__all__ == ["TavilySearch"]


def test_tavily_search_imports_from_the_package() -> None:
    from automata.tavily import TavilySearch
    from automata.tavily._search import TavilySearch as defined

    assert TavilySearch is defined


def test_nothing_else_public_is_in_the_package_namespace() -> None:
    public = [
        name
        for name, value in vars(automata.tavily).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    ]
    assert public == ["TavilySearch"]


def test_every_module_in_the_package_is_private() -> None:
    modules = [info.name for info in pkgutil.iter_modules(automata.tavily.__path__)]
    assert modules == ["_search"]


def test_the_package_ships_py_typed() -> None:
    assert resources.files("automata.tavily").joinpath("py.typed").is_file()
