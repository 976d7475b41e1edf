"""ACP prompt content -> the automata task of one turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp import RequestError
from acp.schema import ResourceContentBlock, TextContentBlock

from automata.core import Message, TextBlock

__all__ = ["prompt_message"]


def _link_text(block: ResourceContentBlock) -> str:
    label = block.title or block.name
    parts = [f"[resource: {label}]({block.uri})"]
    if block.description:
        parts.append(block.description)
    if block.mime_type:
        parts.append(f"({block.mime_type})")
    return " ".join(parts)


def prompt_message(blocks: Sequence[Any]) -> Message:
    """The user message for a `session/prompt`: a text block per text content block and
    per resource link (written as `[resource: <title or name>](<uri>)`, with its
    description and MIME type when given), in the client's order. Any other content
    (images, audio, embedded resources, none of which `initialize` advertises) is
    refused with an invalid-params error, before anything runs."""
    content: list[TextBlock] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            content.append(TextBlock(text=block.text))
        elif isinstance(block, ResourceContentBlock):
            content.append(TextBlock(text=_link_text(block)))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise RequestError.invalid_params(
                {"reason": f"unsupported prompt content {kind!r}: send text or resource_link"}
            )
    if not content:
        raise RequestError.invalid_params({"reason": "the prompt is empty"})
    return Message.user(content)
