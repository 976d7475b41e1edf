"""Tool-call ids: unique in the transcript, the server's own on the wire (L93).

Some servers give every call the same id (`call_0` on every turn). A transcript
pairs each result with its call by id, so `unique_call_ids` renames a model turn's
call whose id an earlier call already has: `<id>_<n>`, the smallest `n` from 2 that
is free, with the server's id kept as the block's `wire_id`. `wire_call_ids` undoes
that for a request: every renamed call, and every result of it, carries its
`wire_id` again, so within each assistant turn and the results that answer it the
server sees the ids it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from automata.core._blocks import Block, Message, ToolResultBlock, ToolUseBlock
from automata.core._provider import ModelRequest, ModelResponse

__all__ = ["unique_call_ids", "wire_call_ids"]


def _taken(transcript: Sequence[Message]) -> set[str]:
    return {
        block.id
        for message in transcript
        for block in message.content
        if isinstance(block, ToolUseBlock)
    }


def _free(wanted: str, taken: set[str]) -> str:
    number = 2
    while f"{wanted}_{number}" in taken:
        number += 1
    return f"{wanted}_{number}"


def unique_call_ids(response: ModelResponse, transcript: Sequence[Message]) -> ModelResponse:
    """`response` with each tool call whose id a call of `transcript` (or an earlier
    call of the same turn) has renamed, its server id kept as `wire_id`; `response`
    itself when no id repeats."""
    calls = response.message.tool_calls
    if not calls:
        return response
    taken = _taken(transcript)
    if not taken and len({call.id for call in calls}) == len(calls):
        return response
    content: list[Block] = []
    renamed = False
    for block in response.message.content:
        if isinstance(block, ToolUseBlock):
            if block.id in taken:
                unique = _free(block.id, taken)
                block = block.model_copy(update={"id": unique, "wire_id": block.id})
                renamed = True
            taken.add(block.id)
        content.append(block)
    if not renamed:
        return response
    message = response.message.model_copy(update={"content": tuple(content)})
    return replace(response, message=message)


def _to_wire(block: Block, wire: dict[str, str]) -> Block:
    if isinstance(block, ToolUseBlock) and block.wire_id is not None:
        return block.model_copy(update={"id": block.wire_id})
    if isinstance(block, ToolResultBlock) and block.tool_use_id in wire:
        return block.model_copy(update={"tool_use_id": wire[block.tool_use_id]})
    return block


def wire_call_ids(request: ModelRequest) -> ModelRequest:
    """`request` with the server's ids back on renamed calls and their results;
    `request` itself when no call was renamed."""
    wire = {
        block.id: block.wire_id
        for message in request.messages
        if message.role == "assistant"
        for block in message.content
        if isinstance(block, ToolUseBlock) and block.wire_id is not None
    }
    if not wire:
        return request
    messages = tuple(
        message.model_copy(
            update={"content": tuple(_to_wire(block, wire) for block in message.content)}
        )
        if any(isinstance(block, ToolUseBlock | ToolResultBlock) for block in message.content)
        else message
        for message in request.messages
    )
    return replace(request, messages=messages)
