"""Mapping between MCP tool results and automata tool results, both ways.

MCP -> automata keeps only text and image blocks, which every provider can show a model:
text is a `TextBlock`; an image is an `ImageBlock` (inline data, MIME type kept); an
embedded text resource is a `TextBlock` headed by its URI; an embedded binary resource
is an `ImageBlock` when its MIME type is an image, else a `TextBlock` naming it; audio
and resource links are `TextBlock`s naming them.
"""

from __future__ import annotations

import base64
import binascii
import json

from mcp import types as mcp_types

from automata.core import Block, ImageBlock, TextBlock, ToolResult

__all__ = ["from_mcp_result", "to_mcp_result"]


def from_mcp_result(result: mcp_types.CallToolResult) -> ToolResult:
    """The automata result for an MCP `CallToolResult`; `isError` becomes `is_error`.

    A result with no content but structured content shows the structured content as
    JSON text, so the model sees what the server returned."""
    blocks = [_block(item) for item in result.content]
    if not blocks and result.structured_content is not None:
        blocks = [TextBlock(text=json.dumps(result.structured_content, ensure_ascii=False))]
    return ToolResult(content=tuple(blocks), is_error=bool(result.is_error))


def _block(item: mcp_types.ContentBlock) -> Block:
    if isinstance(item, mcp_types.TextContent):
        return TextBlock(text=item.text)
    if isinstance(item, mcp_types.ImageContent):
        return _image(item.data, item.mime_type, what="image")
    if isinstance(item, mcp_types.EmbeddedResource):
        resource = item.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return TextBlock(text=f"[resource {resource.uri}]\n{resource.text}")
        mime = resource.mime_type or "application/octet-stream"
        if mime.startswith("image/"):
            return _image(resource.blob, mime, what=f"resource {resource.uri}")
        size = _decoded_size(resource.blob)
        return TextBlock(text=f"[binary resource {resource.uri} ({mime}, {size} bytes) not shown]")
    if isinstance(item, mcp_types.AudioContent):
        size = _decoded_size(item.data)
        return TextBlock(text=f"[audio ({item.mime_type}, {size} bytes) not shown]")
    # ResourceLink: a pointer the model can mention or ask another tool to read.
    mime = f", {item.mime_type}" if item.mime_type else ""
    return TextBlock(text=f"[resource link {item.uri} ({item.name}{mime})]")


def _image(data: str, mime: str, *, what: str) -> Block:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return TextBlock(text=f"[{what} ({mime}) could not be decoded]")
    return ImageBlock(media_type=mime, data=raw)


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return 0


def to_mcp_result(result: ToolResult) -> mcp_types.CallToolResult:
    """The MCP result for an automata one: text blocks as text, inline images as images,
    images by URL as text naming the URL; other blocks are left out."""
    content: list[mcp_types.ContentBlock] = []
    for block in result.content:
        if isinstance(block, TextBlock):
            content.append(mcp_types.TextContent(text=block.text))
        elif isinstance(block, ImageBlock):
            if block.data is not None:
                encoded = base64.b64encode(block.data).decode("ascii")
                content.append(mcp_types.ImageContent(data=encoded, mime_type=block.media_type))
            else:
                content.append(mcp_types.TextContent(text=f"[image {block.url}]"))
    return mcp_types.CallToolResult(content=content, is_error=result.is_error)
