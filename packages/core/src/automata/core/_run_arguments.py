"""What a run is given, checked before anything runs: the task, the per-run keywords,
the step limit and a transcript to resume from. Each check raises a typed error whose
message names the method the user called and what would work instead."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from automata.core._approval import Approver
from automata.core._blocks import (
    Block,
    DocumentBlock,
    ImageBlock,
    Message,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core._errors import ArgumentTypeError, InvalidArgumentError, TranscriptError
from automata.core._hooks import Hook
from automata.core._limits import UsageLimits
from automata.core._options import CallOptions
from automata.core._output_validators import OutputValidator
from automata.core._policy import ToolPolicy

__all__ = [
    "RunOptions",
    "Task",
    "check_max_steps",
    "check_run_keywords",
    "check_transcript",
    "new_invocation_id",
    "task_message",
]

Task = str | Sequence[Block] | Message


class RunOptions(TypedDict, total=False):
    """Per-run keywords accepted by `run`, `run_sync` and `stream` (besides
    `output_type`); each applies to that run only."""

    call_options: CallOptions | None
    tool_policy: ToolPolicy | None
    max_steps: int | None
    max_correction_turns: int
    native_structured_output: bool
    hooks: Iterable[Hook]
    usage_limits: UsageLimits | None
    output_validators: Sequence[OutputValidator[Any, Any]]
    approver: Approver | None


_RUN_KEYWORDS = tuple(sorted({*RunOptions.__required_keys__, *RunOptions.__optional_keys__}))


def new_invocation_id() -> str:
    return "run_" + uuid.uuid4().hex[:16]


def check_run_keywords(method: str, given: Mapping[str, object]) -> None:
    """Refuse per-run keywords that `method` (as users call it, e.g. `Agent.run`) does
    not accept, naming the ones it does. Raises `ArgumentTypeError`."""
    unknown = [key for key in given if key not in _RUN_KEYWORDS]
    if unknown:
        accepted = ", ".join(sorted((*_RUN_KEYWORDS, "deps", "output_type")))
        plural = "s" if len(unknown) > 1 else ""
        raise ArgumentTypeError(
            f"{method}() got unexpected keyword argument{plural} "
            f"{', '.join(repr(key) for key in unknown)}; it accepts: {accepted}"
        )


def check_max_steps(value: object) -> int:
    """`value` as a step limit: an int of at least 1. Raises `ArgumentTypeError` for
    another type and `InvalidArgumentError` for a number below 1."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(
            f"max_steps must be an int (at least 1), got {value!r} ({type(value).__name__})"
        )
    if value < 1:
        raise InvalidArgumentError(f"max_steps must be at least 1, got {value}")
    return value


def task_message(task: object, method: str) -> Message:
    """The user message a task becomes: a string, a sequence of blocks or a user
    `Message`. Raises `ArgumentTypeError` for anything else and `InvalidArgumentError`
    for an empty task or a message that is not from the user; `method` is named."""
    if isinstance(task, Message):
        message = task
    elif isinstance(task, str):
        message = Message.user(task)
    elif isinstance(task, Sequence) and not isinstance(task, bytes | bytearray):
        strays = [item for item in task if not isinstance(item, _BLOCK_TYPES)]
        if strays:
            raise ArgumentTypeError(
                f"{method}() needs a task: a string, a list of blocks or a user Message, "
                f"got a {type(task).__name__} holding {_described(strays[0])}"
            )
        message = Message(role="user", content=tuple(task))
    else:
        raise ArgumentTypeError(
            f"{method}() needs a task: a string, a list of blocks or a user Message, "
            f"got {_described(task)}"
        )
    if message.role != "user":
        raise InvalidArgumentError(
            f"{method}() needs a user message as its task, got one with role {message.role!r}"
        )
    if not message.content or (isinstance(task, str) and not task.strip()):
        raise InvalidArgumentError(f"{method}() got an empty task; say what the model should do")
    return message


_BLOCK_TYPES = (
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    ToolResultBlock,
    ImageBlock,
    DocumentBlock,
    RawBlock,
)


def _described(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"the string {value!r}"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiouAEIOU' else 'a'} {name}"


def pending_calls(transcript: Sequence[Message]) -> tuple[ToolUseBlock, ...]:
    """The calls of a transcript's last message when it is an assistant message asking
    for tools: a run stopped (or crashed) after that model turn and before its tool
    batch was committed. Continuing the transcript runs them first (L88)."""
    if transcript and transcript[-1].role == "assistant":
        return transcript[-1].tool_calls
    return ()


def check_transcript(messages: Sequence[Message]) -> list[Message]:
    """Validate a transcript to resume from. Raises `TranscriptError` naming the first
    problem: a system message after the start, or a tool call without its result in
    any message but the last (whose calls, if it has some, are pending: L88)."""
    checked = list(messages)
    for index, message in enumerate(checked):
        if not isinstance(message, Message):
            raise TranscriptError(
                f"transcript item {index} is a {type(message).__name__}, not a Message"
            )
        if message.role == "system" and index != 0:
            raise TranscriptError(f"system message at position {index}; only the first may be")
    open_calls: dict[str, int] = {}
    pending = len(pending_calls(checked))
    for index, message in enumerate(checked[: len(checked) - 1] if pending else checked):
        for block in message.content:
            if isinstance(block, ToolUseBlock) and message.role == "assistant":
                open_calls[block.id] = index
            elif isinstance(block, ToolResultBlock):
                open_calls.pop(block.tool_use_id, None)
    if open_calls:
        call_id, index = next(iter(open_calls.items()))
        raise TranscriptError(
            f"tool call {call_id!r} in message {index} has no result; "
            "the transcript was cut in the middle of a tool batch"
        )
    return checked
