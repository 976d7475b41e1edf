"""Questions to a person that park a turn: approvals of tool calls and `ask_user`.

A turn that needs a person's answer commits the question and stops: no runner holds
it, nothing waits in memory, and `respond` (from any process) commits the answer and
lets a runner go on. The gated call runs only once it is approved.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from automata.core import (
    Agent,
    Approval,
    Approver,
    FunctionTool,
    ToolContext,
    ToolUseBlock,
    tool,
)

if TYPE_CHECKING:
    from automata.threads._fold import InteractionState

__all__ = [
    "ASK_USER",
    "REDACTED",
    "ApprovalGate",
    "Ask",
    "RecordedDecisions",
    "ask_user_tool",
    "asks_for",
    "require_approval",
]

ASK_USER = "ask_user"
"""The name of the question tool `ask_user_tool` makes."""

REDACTED = "[redacted]"
"""What the journal holds instead of a secret answer."""


@dataclass(frozen=True, slots=True)
class ApprovalGate:
    """An `Approver` whose gated calls wait for a person's approval when a thread
    service runs the agent: the turn parks, and the call runs once `respond` approves
    it (or gets `denied: <reason>`). Outside a thread service there is no one to ask,
    so a gated call is denied. Calls the gate does not cover are allowed."""

    covers: Callable[[ToolUseBlock], bool]

    def __call__(self, call: ToolUseBlock, context: ToolContext[Any]) -> Approval:
        if self.covers(call):
            return Approval.deny("this call needs a person's approval; run it in a thread service")
        return Approval.allow()


def require_approval(
    *tool_names: str, when: Callable[[ToolUseBlock], bool] | None = None
) -> ApprovalGate:
    """An approver gating the calls to `tool_names` (and those `when` returns True
    for): `Agent(..., approver=require_approval("charge"))`."""
    names = frozenset(tool_names)

    def covers(call: ToolUseBlock) -> bool:
        return call.name in names or (when is not None and when(call))

    return ApprovalGate(covers)


async def _ask_user(question: str, secret: bool = False) -> str:
    """Ask the user a question and wait for the answer. Set `secret` when the answer
    is a password or the like: you will see it once, and it is never stored.

    Args:
        question: What to ask, in the user's language.
        secret: Whether the answer must not be kept.
    """
    raise RuntimeError("ask_user needs a thread service to ask the user; none runs this agent")


def ask_user_tool() -> FunctionTool:
    """The `ask_user(question, secret=False)` tool: add it to an agent's tools and the
    thread service parks the turn on each call until `respond` gives the answer, which
    becomes the call's result. A secret answer reaches the model in the run that
    resumes (in the process that took the answer) and is journaled as `[redacted]`."""
    return tool(_ask_user, name=ASK_USER)


@dataclass(frozen=True, slots=True)
class Ask:
    """A question a step's call raises: its kind (`approval` or `question`), the text
    shown to the person, and whether the answer is secret."""

    call: ToolUseBlock
    kind: str
    question: str
    secret: bool


def asks_for(agent: Agent[Any], calls: Sequence[ToolUseBlock]) -> list[Ask]:
    """The questions a person must answer before these calls may run."""
    names = {candidate.name for candidate in agent.tools}
    gate = agent.approver if isinstance(agent.approver, ApprovalGate) else None
    asks: list[Ask] = []
    for call in calls:
        if call.name == ASK_USER and ASK_USER in names and call.input_error is None:
            question = call.input.get("question")
            secret = call.input.get("secret") is True
            asks.append(Ask(call, "question", str(question or ""), secret))
        elif gate is not None and call.name in names and gate.covers(call):
            arguments = json.dumps(call.input, ensure_ascii=False, sort_keys=True)
            asks.append(Ask(call, "approval", f"Allow {call.name}({arguments})?", False))
    return asks


@dataclass(frozen=True, slots=True)
class RecordedDecisions:
    """The approver of a run resuming a turn people decided on: the journaled decision
    for each decided call (an approval runs it, a denial gives `denied: <reason>`, the
    same text the journal holds), the agent's own approver for any other call."""

    decisions: Mapping[str, InteractionState]
    fallback: Approver | None

    async def __call__(self, call: ToolUseBlock, context: ToolContext[Any]) -> Approval:
        decided = self.decisions.get(call.id)
        if decided is not None:
            if decided.approved:
                return Approval.allow()
            return Approval.deny((decided.answer or "denied").removeprefix("denied: "))
        if self.fallback is None:
            return Approval.allow()
        verdict = self.fallback(call, context)
        return await verdict if inspect.isawaitable(verdict) else verdict
