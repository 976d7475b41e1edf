"""The resources an `MCPToolServer` serves: fixed contents, and Python functions behind
a URI or a URI template (`file://{name}`), listed and read over MCP."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp import MCPError
from mcp import types as mcp_types

from automata.core import ToolDefinitionError
from automata.mcp._served_functions import ServedFunction

__all__ = ["RESOURCE_NOT_FOUND", "ServedResource", "ServedResources", "resource_of"]

RESOURCE_NOT_FOUND = -32002
"""The error code the MCP specification gives an unknown resource URI."""

_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class ServedResource:
    """One served resource: fixed `content`, or a `function` called on each read with
    the variables of its URI template (none for a plain URI)."""

    uri: str
    name: str
    description: str | None
    mime_type: str | None
    content: str | bytes | None = None
    function: ServedFunction | None = None

    @property
    def is_template(self) -> bool:
        return bool(_VARIABLE.search(self.uri))

    def match(self, uri: str) -> dict[str, str] | None:
        """The template's variables in `uri` (each one path segment), else None."""
        pattern = "".join(
            f"(?P<{part}>[^/]+)" if index % 2 else re.escape(part)
            for index, part in enumerate(_VARIABLE.split(self.uri))
        )
        found = re.fullmatch(pattern, uri)
        return None if found is None else found.groupdict()

    async def read(self, uri: str, variables: dict[str, str]) -> mcp_types.ReadResourceResult:
        value: Any = self.content
        if self.function is not None:
            value = await self.function.call(variables)
        if isinstance(value, str):
            part: mcp_types.TextResourceContents | mcp_types.BlobResourceContents = (
                mcp_types.TextResourceContents(uri=uri, mime_type=self.mime_type, text=value)
            )
        elif isinstance(value, bytes):
            part = mcp_types.BlobResourceContents(
                uri=uri,
                mime_type=self.mime_type or "application/octet-stream",
                blob=base64.b64encode(value).decode("ascii"),
            )
        else:
            raise MCPError(
                mcp_types.INTERNAL_ERROR,
                f"resource {self.uri!r} gave {type(value).__name__}, not str or bytes",
            )
        return mcp_types.ReadResourceResult(contents=[part])


class ServedResources:
    """Resources by URI (or URI template), in the order they were added."""

    def __init__(self) -> None:
        self._by_uri: dict[str, ServedResource] = {}

    def add(self, resource: ServedResource) -> None:
        """Raises `ToolDefinitionError` for a URI served already, or a template whose
        variables are not exactly its function's parameters."""
        if resource.uri in self._by_uri:
            raise ToolDefinitionError(f"the resource {resource.uri!r} is served already")
        if resource.function is not None:
            variables = set(_VARIABLE.findall(resource.uri))
            if variables != set(resource.function.parameters):
                raise ToolDefinitionError(
                    f"resource {resource.uri!r}: the URI's variables {sorted(variables)} "
                    f"must be the function's parameters {list(resource.function.parameters)}"
                )
        self._by_uri = {**self._by_uri, resource.uri: resource}

    def remove(self, uri: str) -> ServedResource:
        """Raises `ToolDefinitionError` when no resource is served at `uri`."""
        if uri not in self._by_uri:
            raise ToolDefinitionError(f"no resource {uri!r} is served")
        remaining = dict(self._by_uri)
        removed = remaining.pop(uri)
        self._by_uri = remaining
        return removed

    def __bool__(self) -> bool:
        return bool(self._by_uri)

    def listing(self) -> mcp_types.ListResourcesResult:
        return mcp_types.ListResourcesResult(
            resources=[
                mcp_types.Resource(
                    uri=item.uri,
                    name=item.name,
                    description=item.description,
                    mime_type=item.mime_type,
                    size=_size(item.content),
                )
                for item in self._by_uri.values()
                if not item.is_template
            ]
        )

    def templates(self) -> mcp_types.ListResourceTemplatesResult:
        return mcp_types.ListResourceTemplatesResult(
            resource_templates=[
                mcp_types.ResourceTemplate(
                    uri_template=item.uri,
                    name=item.name,
                    description=item.description,
                    mime_type=item.mime_type,
                )
                for item in self._by_uri.values()
                if item.is_template
            ]
        )

    async def read(self, uri: str) -> mcp_types.ReadResourceResult:
        """The contents at `uri`: a plain URI first, else the first template matching
        it. An unknown URI raises `MCPError(-32002)`."""
        exact = self._by_uri.get(uri)
        if exact is not None and not exact.is_template:
            return await exact.read(uri, {})
        for item in self._by_uri.values():
            variables = item.match(uri) if item.is_template else None
            if variables is not None:
                return await item.read(uri, variables)
        raise MCPError(RESOURCE_NOT_FOUND, f"no resource {uri!r}")


def _size(content: str | bytes | None) -> int | None:
    if content is None:
        return None
    return len(content.encode("utf-8") if isinstance(content, str) else content)


def resource_of(
    uri: str,
    function: Callable[..., Any],
    *,
    name: str | None,
    description: str | None,
    mime_type: str | None,
) -> ServedResource:
    """A resource read by calling `function`; its name defaults to the function's and
    its description to the function's docstring summary."""
    resource_name = name or getattr(function, "__name__", "") or uri
    served = ServedFunction.of(
        function, what="resource", name=resource_name, description=description
    )
    return ServedResource(
        uri=uri,
        name=resource_name,
        description=served.summary or None,
        mime_type=mime_type,
        function=served,
    )
