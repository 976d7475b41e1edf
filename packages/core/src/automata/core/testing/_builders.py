"""Small builders that keep agent tests short and readable."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from automata.core._blocks import Block, Message, TextBlock, ToolResultBlock, ToolUseBlock

__all__ = ["tool_call", "tool_calls", "tool_results"]


def tool_call(call_id: str, name: str, /, **arguments: Any) -> ToolUseBlock:
    """A tool_use block: `tool_call("c1", "weather", city="Paris")`."""
    return ToolUseBlock(id=call_id, name=name, input=arguments)


def tool_calls(*calls: ToolUseBlock, text: str = "") -> Message:
    """An assistant turn that calls `calls`, optionally after some text."""
    blocks: list[Block] = [TextBlock(text=text)] if text else []
    return Message.assistant([*blocks, *calls])


def tool_results(messages: Iterable[Message]) -> list[tuple[str, str, bool]]:
    """Every tool result of a transcript as `(call id, text, is_error)`, in order."""
    return [
        (block.tool_use_id, block.text, block.is_error)
        for message in messages
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
