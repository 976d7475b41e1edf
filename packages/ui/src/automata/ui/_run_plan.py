"""What a protocol's request asks of an agent: the history, the new input or the
calls to continue, and the front end's answers to the calls that waited for it."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from automata.core import Approval, Message, Task, ToolResult, ToolUseBlock
from automata.ui._errors import InvalidRequestBodyError

__all__ = ["ClientTool", "RunPlan", "check_continuable", "result_text"]


@dataclass(frozen=True, slots=True)
class ClientTool:
    """A tool the front end runs (in the browser): the model is offered it, and a call
    to it ends the stream so the front end can run it and send the output back with
    its next request, which continues the run."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run to make: `history` (no system message), then `task` (the new user input)
    or, when `task` is None, the calls the history's last message made, which run
    first as an ordinary batch. `decisions` are the front end's approvals by call id;
    `client_outputs` the outputs of client-side tool calls by call id; `denied` the
    call ids the front end denied (so a stream can say `denied`, not `error`)."""

    history: tuple[Message, ...]
    task: Task | None
    decisions: Mapping[str, Approval] = field(default_factory=dict)
    client_outputs: Mapping[str, ToolResult] = field(default_factory=dict)

    @property
    def denied(self) -> frozenset[str]:
        return frozenset(call for call, decision in self.decisions.items() if not decision.allowed)

    @property
    def pending_calls(self) -> tuple[ToolUseBlock, ...]:
        """The calls the run continues with (those of the history's last message)."""
        if self.task is not None or not self.history:
            return ()
        return self.history[-1].tool_calls


def result_text(output: object) -> str:
    """A tool output from the front end as the text the model sees (JSON for a value
    that is not a string)."""
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False)


def check_continuable(plan: RunPlan, approval_required: Collection[str]) -> None:
    """Fail closed before a continued run: a call of `approval_required` among the
    calls to continue must carry the front end's decision, or nothing runs
    (`InvalidRequestBodyError`)."""
    for call in plan.pending_calls:
        if call.name in approval_required and call.id not in plan.decisions:
            raise InvalidRequestBodyError(
                f"tool call {call.id!r} ({call.name}) waits for an approval: "
                "answer it (approve or deny) before continuing"
            )
