"""A server's resources and prompts, as frozen values: listed across every page, read
and fetched."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from mcp import ClientSession
from mcp import types as mcp_types

from automata.core import Block, ImageBlock, Message, TextBlock
from automata.mcp._results import from_mcp_result

__all__ = [
    "MCPPrompt",
    "MCPPromptArgument",
    "MCPResource",
    "MCPResourceContents",
    "get_prompt",
    "list_prompts",
    "list_resources",
    "read_resource",
]


@dataclass(frozen=True, slots=True)
class MCPResource:
    """A resource a server lists: its URI (what `read_resource` takes), name, and the
    title, description, MIME type and size it gives (None when it gives none)."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None


@dataclass(frozen=True, slots=True)
class MCPResourceContents:
    """One part of a read resource: exactly one of `text` and `data` (decoded bytes)."""

    uri: str
    mime_type: str | None
    text: str | None = None
    data: bytes | None = None

    def as_block(self) -> Block:
        """The part as a block a model can be shown: its text, an image, else a text
        naming it (as embedded resources in tool results are shown)."""
        if self.text is not None:
            return TextBlock(text=self.text)
        data = self.data or b""
        mime = self.mime_type or "application/octet-stream"
        if mime.startswith("image/"):
            return ImageBlock(media_type=mime, data=data)
        return TextBlock(text=f"[binary resource {self.uri} ({mime}, {len(data)} bytes) not shown]")


@dataclass(frozen=True, slots=True)
class MCPPromptArgument:
    """An argument a prompt takes."""

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, slots=True)
class MCPPrompt:
    """A prompt template a server lists: its name (what `get_prompt` takes), its
    description, and the arguments it takes."""

    name: str
    description: str | None = None
    arguments: tuple[MCPPromptArgument, ...] = ()


_Item = TypeVar("_Item")


async def _all_pages(
    fetch: Callable[
        [mcp_types.PaginatedRequestParams | None], Awaitable[tuple[list[_Item], str | None]]
    ],
) -> list[_Item]:
    listed: list[_Item] = []
    cursor: str | None = None
    while True:
        page, cursor = await fetch(
            mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        listed.extend(page)
        if not cursor:
            return listed


async def list_resources(session: ClientSession) -> list[MCPResource]:
    """Every resource the server lists, in its order, across all pages."""

    async def fetch(
        params: mcp_types.PaginatedRequestParams | None,
    ) -> tuple[list[mcp_types.Resource], str | None]:
        page = await session.list_resources(params=params)
        return page.resources, page.next_cursor

    return [
        MCPResource(
            uri=str(item.uri),
            name=item.name,
            title=item.title,
            description=item.description,
            mime_type=item.mime_type,
            size=item.size,
        )
        for item in await _all_pages(fetch)
    ]


async def read_resource(session: ClientSession, uri: str) -> tuple[MCPResourceContents, ...]:
    """The parts of the resource at `uri`; base64 a server got wrong is decoded as
    empty bytes rather than failing the read."""
    result = await session.read_resource(uri)
    parts: list[MCPResourceContents] = []
    for item in result.contents:
        if isinstance(item, mcp_types.TextResourceContents):
            parts.append(MCPResourceContents(str(item.uri), item.mime_type, text=item.text))
        else:
            try:
                data = base64.b64decode(item.blob, validate=True)
            except (binascii.Error, ValueError):
                data = b""
            parts.append(MCPResourceContents(str(item.uri), item.mime_type, data=data))
    return tuple(parts)


async def list_prompts(session: ClientSession) -> list[MCPPrompt]:
    """Every prompt the server lists, in its order, across all pages."""

    async def fetch(
        params: mcp_types.PaginatedRequestParams | None,
    ) -> tuple[list[mcp_types.Prompt], str | None]:
        page = await session.list_prompts(params=params)
        return page.prompts, page.next_cursor

    return [
        MCPPrompt(
            name=item.name,
            description=item.description,
            arguments=tuple(
                MCPPromptArgument(a.name, a.description, bool(a.required))
                for a in item.arguments or ()
            ),
        )
        for item in await _all_pages(fetch)
    ]


async def get_prompt(
    session: ClientSession, name: str, arguments: Mapping[str, str]
) -> tuple[Message, ...]:
    """The prompt `name` filled with `arguments`, as automata messages (each message's
    content mapped as tool results' content is), ready to start or extend a
    transcript."""
    result = await session.get_prompt(name, dict(arguments))
    messages: list[Message] = []
    for item in result.messages:
        mapped = from_mcp_result(mcp_types.CallToolResult(content=[item.content]))
        messages.append(Message(role=item.role, content=mapped.content))
    return tuple(messages)
