"""Agent factories named on a command line or in an ini file as `module:attr`."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from automata.eval._trial import AgentFactory

__all__ = ["UsageError", "load_factories"]


class UsageError(ValueError):
    """A `module:attr` that does not name factories (the CLI exits 2 with it)."""


def load_factories(spec: str) -> Mapping[str, AgentFactory]:
    """The factories named by `module:attr` (the current directory is importable): a
    mapping of agent names to factories, or one factory, used as `default`."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"agents {spec!r}: write it as module:attribute")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise UsageError(f"agents {spec!r}: cannot import {module_name!r}: {error}") from error
    for part in attr.split("."):
        if not hasattr(found, part):
            raise UsageError(f"agents {spec!r}: {module_name} has no attribute {attr!r}")
        found = getattr(found, part)
    if isinstance(found, Mapping):
        return found
    if callable(found):
        return {"default": found}
    raise UsageError(f"agents {spec!r} is neither a mapping of factories nor a factory")
