"""The AI SDK's chat request (`{id, messages: UIMessage[], trigger, ...}`) read into a
`RunPlan`: its messages as core `Message`s, and the answers its last assistant
message carries (approval responses, client-side tool outputs) for the calls that
waited for the front end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from automata.core import (
    Approval,
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResult,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.ui._errors import InvalidRequestBodyError
from automata.ui._limits import UILimits
from automata.ui._run_plan import RunPlan, result_text

__all__ = ["ChatRequest", "read_chat_request", "tool_part_name"]

_OUTPUT_STATES = {"output-available", "output-error", "output-denied"}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A chat request: the chat's `id`, its `trigger` (`submit-message` or
    `regenerate-message`), the raw UI messages, and the last message's id."""

    chat_id: str
    trigger: str
    messages: tuple[Mapping[str, Any], ...]

    @property
    def last(self) -> Mapping[str, Any]:
        return self.messages[-1]


def read_chat_request(body: Mapping[str, Any], limits: UILimits) -> ChatRequest:
    """The request's fields, checked: `InvalidRequestBodyError` naming the field when
    one is missing or of the wrong type, or there are no messages or more than
    `limits.max_messages`."""
    chat_id = body.get("id", "")
    trigger = body.get("trigger", "submit-message")
    messages = body.get("messages")
    if not isinstance(chat_id, str):
        raise InvalidRequestBodyError("id must be a string")
    if not isinstance(trigger, str):
        raise InvalidRequestBodyError("trigger must be a string")
    if not isinstance(messages, list) or not messages:
        raise InvalidRequestBodyError("messages must be a non-empty array of UI messages")
    if len(messages) > limits.max_messages:
        raise InvalidRequestBodyError(f"messages holds more than {limits.max_messages} messages")
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise InvalidRequestBodyError(f"{where} must be an object")
        if message.get("role") not in ("user", "assistant"):
            raise InvalidRequestBodyError(
                f"{where}.role must be 'user' or 'assistant' (the agent keeps its own "
                f"system prompt), got {message.get('role')!r}"
            )
        if not isinstance(message.get("id", ""), str):
            raise InvalidRequestBodyError(f"{where}.id must be a string")
        parts = message.get("parts")
        if not isinstance(parts, list) or not all(isinstance(part, dict) for part in parts):
            raise InvalidRequestBodyError(f"{where}.parts must be an array of objects")
        for number, part in enumerate(parts):
            if not isinstance(part.get("type"), str):
                raise InvalidRequestBodyError(f"{where}.parts[{number}].type must be a string")
    return ChatRequest(chat_id, trigger, tuple(messages))


def tool_part_name(part: Mapping[str, Any]) -> str | None:
    """The tool a `tool-<name>` or `dynamic-tool` part calls; None for other parts."""
    kind = part["type"]
    if kind == "dynamic-tool":
        name = part.get("toolName")
        return name if isinstance(name, str) else None
    return kind[5:] if kind.startswith("tool-") else None


def plan_chat_run(request: ChatRequest) -> RunPlan:
    """The run a stateless chat request asks for.

    The messages become the history. A last user message is the new task. A last
    assistant message whose final step holds tool calls is continued: those calls run
    first, approved ones (`approval-responded`, approved) by the agent, denied ones
    answered `denied: <reason>`, client-side ones with the output the front end sent.
    A call of an earlier step left without an output (the person typed on instead
    of answering) is answered `not run: no answer from the front end`, as an error,
    so the model knows it did not run. `InvalidRequestBodyError` when the last
    message is an assistant message with nothing to continue, or a part is malformed.
    """
    history: list[Message] = []
    decisions: dict[str, Approval] = {}
    outputs: dict[str, ToolResult] = {}
    last = len(request.messages) - 1
    for index, message in enumerate(request.messages):
        where = f"messages[{index}]"
        if message["role"] == "user":
            history.append(Message(role="user", content=_user_blocks(message["parts"], where)))
            continue
        steps = _steps(message["parts"])
        for number, step in enumerate(steps):
            tail = index == last and number == len(steps) - 1
            history.extend(_assistant_step(step, where, tail, decisions, outputs))
    if request.messages[last]["role"] == "user":
        task = history.pop()
        return RunPlan(tuple(history), task)
    if not history or not history[-1].tool_calls or history[-1].role != "assistant":
        raise InvalidRequestBodyError(
            "the last message is an assistant message with no tool call waiting: "
            "send a user message, or regenerate without the last assistant message"
        )
    return RunPlan(tuple(history), None, decisions, outputs)


def _user_blocks(parts: Sequence[Mapping[str, Any]], where: str) -> tuple[Block, ...]:
    blocks: list[Block] = []
    for part in parts:
        if part["type"] == "text":
            blocks.append(TextBlock(text=_string(part, "text", where)))
        elif part["type"] == "file":
            media = _string(part, "mediaType", where)
            if not media.startswith("image/"):
                raise InvalidRequestBodyError(f"{where}: a file of type {media!r} is not supported")
            blocks.append(ImageBlock(url=_string(part, "url", where), media_type=media))
    if not blocks:
        raise InvalidRequestBodyError(f"{where} holds no text")
    return tuple(blocks)


def _steps(parts: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    steps: list[list[Mapping[str, Any]]] = [[]]
    for part in parts:
        if part["type"] == "step-start":
            if steps[-1]:
                steps.append([])
        else:
            steps[-1].append(part)
    return [step for step in steps if step]


def _assistant_step(
    parts: Sequence[Mapping[str, Any]],
    where: str,
    tail: bool,
    decisions: dict[str, Approval],
    outputs: dict[str, ToolResult],
) -> list[Message]:
    blocks: list[Block] = []
    results: list[ToolResultBlock] = []
    for part in parts:
        kind = part["type"]
        name = tool_part_name(part)
        if kind == "text":
            blocks.append(TextBlock(text=_string(part, "text", where)))
        elif kind == "reasoning":
            blocks.append(ThinkingBlock(thinking=_string(part, "text", where)))
        elif name is not None:
            call_id = _string(part, "toolCallId", where)
            arguments = part.get("input")
            blocks.append(
                ToolUseBlock(
                    id=call_id, name=name, input=arguments if isinstance(arguments, dict) else {}
                )
            )
            result = _answer(part, call_id, where, tail, decisions, outputs)
            if result is not None:
                results.append(result)
    blocks = [block for block in blocks if not isinstance(block, TextBlock) or block.text]
    if not blocks:
        return []
    messages = [Message(role="assistant", content=tuple(blocks))]
    if results and not tail:
        messages.append(Message(role="tool", content=tuple(results)))
    return messages


def _answer(
    part: Mapping[str, Any],
    call_id: str,
    where: str,
    tail: bool,
    decisions: dict[str, Approval],
    outputs: dict[str, ToolResult],
) -> ToolResultBlock | None:
    state = part.get("state")
    approval = part.get("approval")
    if isinstance(approval, dict) and isinstance(approval.get("approved"), bool):
        reason = approval.get("reason")
        decision = (
            Approval.allow()
            if approval["approved"]
            else Approval.deny(reason if isinstance(reason, str) else "")
        )
    else:
        decision = None
    if state == "output-available":
        result = ToolResult.text(result_text(part.get("output")))
    elif state == "output-error":
        result = ToolResult(ToolResult.text(str(part.get("errorText", ""))).content, is_error=True)
    elif state == "output-denied":
        reason = decision.reason if decision is not None else "denied"
        result = ToolResult(ToolResult.text(f"denied: {reason}").content, is_error=True)
    elif tail:
        if decision is not None:
            decisions[call_id] = decision
        return None
    else:
        result = ToolResult(
            ToolResult.text("not run: no answer from the front end").content, is_error=True
        )
    if tail:
        if state == "output-denied" and decision is not None:
            decisions[call_id] = decision
        else:
            outputs[call_id] = result
        return None
    return ToolResultBlock(tool_use_id=call_id, content=result.content, is_error=result.is_error)


def _string(part: Mapping[str, Any], field: str, where: str) -> str:
    value = part.get(field)
    if not isinstance(value, str):
        raise InvalidRequestBodyError(f"{where}: a {part['type']} part needs a string {field!r}")
    return value
