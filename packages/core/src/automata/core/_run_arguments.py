"""What a run is given, checked before anything runs: the task, the per-run keywords,
the step limit and a transcript to resume from. Each check raises a typed error whose
message names the method the user called and what would work instead."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypedDict, cast

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
from automata.core._labels import NO_LABELS, RunLabels, host_map
from automata.core._limits import UsageLimits
from automata.core._options import CallOptions
from automata.core._output_validators import OutputValidator, check_output_validator
from automata.core._policy import ToolPolicy
from automata.core._suggest import unexpected_keywords

__all__ = [
    "PLAIN_RUN",
    "RUN_KEYWORDS",
    "PerRun",
    "RunOptions",
    "Task",
    "check_max_steps",
    "check_run_keywords",
    "check_transcript",
    "new_invocation_id",
    "task_message",
]

Task = str | Sequence[Block] | Message


@dataclass(frozen=True, slots=True, kw_only=True)
class PerRun:
    """One run's per-run keywords, checked and frozen: the surface (`run`, `run_sync`,
    `stream`, `iter`) makes it from the keywords it was given and passes it whole to
    the plan the loop runs (L4). Its fields are the keywords, with their defaults;
    the run's `deps` are passed beside it (they belong to the run, not its plan).
    Raises `ArgumentTypeError` / `InvalidArgumentError` for a value no run accepts."""

    output_type: type[Any] | None = None
    call_options: CallOptions | None = None
    tool_policy: ToolPolicy | None = None
    max_steps: int | None = None
    max_correction_turns: int = 1
    native_structured_output: bool = False
    hooks: tuple[Hook, ...] = ()
    usage_limits: UsageLimits | None = None
    output_validators: tuple[OutputValidator[Any, Any], ...] = ()
    approver: Approver | None = None
    labels: RunLabels = NO_LABELS
    host: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", RunLabels.of(self.labels))
        if self.host is not None:
            object.__setattr__(self, "host", host_map(self.host))
        object.__setattr__(self, "hooks", tuple(self.hooks))
        object.__setattr__(self, "output_validators", tuple(self.output_validators))
        for validator in self.output_validators:
            check_output_validator(validator)
        if self.max_steps is not None:
            check_max_steps(self.max_steps)
        if self.max_correction_turns < 0:
            raise InvalidArgumentError(
                f"max_correction_turns must be >= 0, got {self.max_correction_turns}"
            )

    @staticmethod
    def of(output_type: type[Any] | None, given: RunOptions) -> PerRun:
        """The value for keywords already checked by name (`check_run_keywords`);
        `PLAIN_RUN` when none was given."""
        if output_type is None and not given:
            return PLAIN_RUN
        return PerRun(output_type=output_type, **cast(dict[str, Any], given))


PLAIN_RUN = PerRun()
"""A run given no per-run keyword: the agent's settings as they are."""


class RunOptions(TypedDict, total=False):
    """The per-run keywords as `**per_run` takes them (for type checkers): the fields
    of `PerRun` but `output_type`, which the methods take on its own to type their
    result. A test holds the two to the same names."""

    call_options: CallOptions | None
    tool_policy: ToolPolicy | None
    max_steps: int | None
    max_correction_turns: int
    native_structured_output: bool
    hooks: Iterable[Hook]
    usage_limits: UsageLimits | None
    output_validators: Sequence[OutputValidator[Any, Any]]
    approver: Approver | None
    labels: Mapping[str, str] | None
    host: Mapping[str, Any] | None


RUN_KEYWORDS = tuple(field.name for field in fields(PerRun))
"""Every per-run keyword, in `PerRun`'s order; with `deps`, what a run accepts."""
_PER_RUN = frozenset(RUN_KEYWORDS) - {"output_type"}


def new_invocation_id() -> str:
    return "run_" + uuid.uuid4().hex[:16]


def check_run_keywords(method: str, given: Mapping[str, object]) -> None:
    """Refuse per-run keywords that `method` (as users call it, e.g. `Agent.run`) does
    not accept, suggesting the keyword meant when one is close (`max_step`:
    `did you mean 'max_steps'?`), else naming every one it accepts. Raises
    `ArgumentTypeError`."""
    unknown = [key for key in given if key not in _PER_RUN]
    if unknown:
        raise ArgumentTypeError(unexpected_keywords(method, unknown, (*RUN_KEYWORDS, "deps")))


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
