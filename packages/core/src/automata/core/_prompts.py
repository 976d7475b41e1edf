"""Dynamic system prompts and instructions: text computed from the run's context.

A dynamic system prompt is evaluated once, when a run starts a transcript that has no
system message, and is stored there like a static one. Instructions are evaluated
before every provider call and added to what is sent, never to the transcript, so a
resumed conversation never carries stale or duplicated instructions. The rules are
**L65**-**L68** of docs/loop.md.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from automata.core._blocks import Message
from automata.core._deps import DepsT, RunContext
from automata.core._errors import ArgumentTypeError

__all__ = [
    "PromptFunction",
    "PromptPart",
    "check_prompt_part",
    "render_instructions",
    "render_prompt",
    "with_instructions",
]

PromptFunction: TypeAlias = Callable[[RunContext[DepsT]], str | Awaitable[str]]
"""A function of the run's context returning text, sync or async."""

PromptPart: TypeAlias = str | PromptFunction[DepsT]
"""Fixed text, or a function of the run's context that computes it."""


def check_prompt_part(value: object, what: str) -> None:
    """Refuse what is neither text nor a function, naming `what` it was meant to be."""
    if not isinstance(value, str) and not callable(value):
        raise ArgumentTypeError(
            f"{what} must be a string or a function of the run context, got {type(value).__name__}"
        )


async def render_prompt(part: PromptPart[Any], context: RunContext[Any]) -> str:
    """The text of one part: the string itself, or what its function returns."""
    if isinstance(part, str):
        return part
    text = part(context)
    if inspect.isawaitable(text):
        text = await text
    if not isinstance(text, str):
        raise ArgumentTypeError(
            f"prompt function {getattr(part, '__name__', repr(part))} returned "
            f"{type(text).__name__}, not a string"
        )
    return text


async def render_instructions(parts: Sequence[PromptPart[Any]], context: RunContext[Any]) -> str:
    """Every instruction's text, in registration order, blank ones left out, joined by
    a blank line."""
    texts = [await render_prompt(part, context) for part in parts]
    return "\n\n".join(text for text in texts if text.strip())


def with_instructions(messages: tuple[Message, ...], text: str) -> tuple[Message, ...]:
    """`messages` as sent with `text` added to the system prompt: after the leading
    system message's text (separated by a blank line), or as a system message of its
    own when there is none."""
    if not text:
        return messages
    if messages and messages[0].role == "system":
        lead = messages[0].text
        joined = f"{lead}\n\n{text}" if lead else text
        return (Message.system(joined), *messages[1:])
    return (Message.system(text), *messages)
