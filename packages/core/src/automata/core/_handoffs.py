"""Handoffs: a tool the model calls to hand the conversation to another agent.

`handoff(other)` (or `Agent(handoffs=[other])`) offers the model a tool named
`transfer_to_<name>`. When the model calls it, the call gets the result
`Transferred to <name>` and the run goes on with the other agent (its provider,
system prompt, instructions, tools, call options, tool policy, approver and pre-send
hooks) over the full transcript. What belongs to the run stays the run's: its
`deps`, `max_steps` and usage limits (spanning both agents), its output type, output
validators, output guardrails and post-run hooks. The rules are **L79**-**L85** of
docs/loop.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from automata.core._blocks import Message, ToolResultBlock, ToolUseBlock
from automata.core._errors import ArgumentTypeError
from automata.core._prompts import PromptPart
from automata.core._tools import ToolContext, ToolResult

if TYPE_CHECKING:
    from automata.core._agent import Agent
    from automata.core._loop import RunSettings

__all__ = ["Handoff", "SystemSwap", "handoff", "requested_handoff", "settings_after_handoff"]

_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_NO_ARGUMENTS: Mapping[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True, slots=True)
class SystemSwap:
    """Send `prompt` (rendered per request; None: no system message) in place of the
    transcript's leading system message, which belongs to the agent that started the
    conversation. Set after a handoff; never stored in the transcript."""

    prompt: PromptPart[Any] | None


@dataclass(frozen=True, slots=True)
class Handoff:
    """The tool that hands the conversation to `agent`. `name` is the tool's name
    (default `transfer_to_<agent name>`), `description` what the model is told
    (default: `Hand the conversation to <agent name>.`). It takes no arguments."""

    agent: Agent[Any]
    name: str = ""
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: dict(_NO_ARGUMENTS))

    def __post_init__(self) -> None:
        if not callable(getattr(self.agent, "_plan", None)):
            raise ArgumentTypeError(
                f"a handoff needs an Agent to hand the conversation to, got "
                f"{type(self.agent).__name__}"
            )
        if not self.name:
            object.__setattr__(self, "name", "transfer_to_" + _UNSAFE.sub("_", self.agent.name))
        if not self.description:
            object.__setattr__(self, "description", f"Hand the conversation to {self.agent.name}.")

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult:
        return ToolResult.text(f"Transferred to {self.agent.name}")


def handoff(
    agent: Agent[Any], *, name: str | None = None, description: str | None = None
) -> Handoff:
    """The handoff tool for `agent`, to pass as `Agent(handoffs=[...])`."""
    return Handoff(agent, name=name or "", description=description or "")


def settings_after_handoff(current: RunSettings, target: Handoff) -> RunSettings:
    """The settings a run goes on with after handing off to `target`: the target's
    own, under the run's step and usage limits and tracing. The run's output stage
    applies its output type to them as it did to the first agent's (L94)."""
    agent = target.agent
    return replace(
        agent._plan().settings,
        max_steps=current.max_steps,
        usage_limits=current.usage_limits,
        tracing=current.tracing,
        system_prompt=None,
        system_swap=SystemSwap(agent.system_prompt),
    )


def requested_handoff(
    handoffs: Mapping[str, Handoff], calls: tuple[ToolUseBlock, ...], results: Message
) -> Handoff | None:
    """The handoff a committed batch asked for: the first handoff call, in the model's
    order, whose result is not an error (L80); None when there is none."""
    if not handoffs:
        return None
    failed = {
        block.tool_use_id
        for block in results.content
        if isinstance(block, ToolResultBlock) and block.is_error
    }
    for call in calls:
        found = handoffs.get(call.name)
        if found is not None and call.id not in failed:
            return found
    return None
