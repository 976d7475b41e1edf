"""Calling a served resource or prompt function with arguments checked against its
signature, as `@tool` checks a tool's: the argument model, descriptions and types are
the ones `automata.core.tool` builds from the function."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mcp import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError

from automata.core import FunctionTool, ToolDefinitionError, tool

__all__ = ["ServedFunction"]


@dataclass(frozen=True, slots=True)
class ServedFunction:
    """A Python function behind a served resource or prompt, with its argument model."""

    built: FunctionTool

    @classmethod
    def of(
        cls, function: Callable[..., Any], *, what: str, name: str, description: str | None
    ) -> ServedFunction:
        """Its description is `description`, else the docstring's summary (`@tool`
        warns with `ToolDefinitionWarning` when there is neither). Raises
        `ToolDefinitionError` for a function `@tool` could not describe, or one that
        takes a `ToolContext` or a model (a resource or prompt has no tool call)."""
        if not callable(function):
            raise ToolDefinitionError(f"{what} {name!r} needs a function")
        built = tool(function, name=_tool_name(name), description=description)
        if built.context_parameter is not None or built.model_parameter is not None:
            raise ToolDefinitionError(
                f"{what} {name!r}: parameters must be plain values (str, int, float, bool)"
            )
        return cls(built)

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(self.built.arguments_model.model_fields)

    @property
    def summary(self) -> str:
        return self.built.description

    async def call(self, arguments: Mapping[str, Any]) -> Any:
        """The function's value for `arguments` (converted to the annotated types).
        Arguments that do not fit raise `MCPError(INVALID_PARAMS)`; a function that
        raises becomes `MCPError(INTERNAL_ERROR)` with its message."""
        try:
            parsed = self.built.arguments_model.model_validate(dict(arguments))
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in item['loc']) or '<arguments>'}: {item['msg']}"
                for item in error.errors()
            )
            raise MCPError(INVALID_PARAMS, f"invalid arguments: {problems}") from None
        kwargs = {field: getattr(parsed, field) for field in self.parameters}
        try:
            value = self.built.function(**kwargs)
            if inspect.isawaitable(value):
                value = await value
        except MCPError:
            raise
        except Exception as error:
            raise MCPError(INTERNAL_ERROR, str(error) or type(error).__name__) from error
        return value


def _tool_name(name: str) -> str:
    """A name `@tool` accepts for any served name (a prompt's or a resource's)."""
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:64]
    return cleaned or "served"
