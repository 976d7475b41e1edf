"""The scripted conversation both suites run: two tool batches, then an answer.

The model is a function of the transcript (how many turns it has answered so far), so
it answers the same way in a fresh process, after a resume, or for a second agent, and
counts the provider calls it took. Its turns:

1. calls `add(a=2, b=3)` and `multiply(a=4, b=5)` in one batch (usage 10 in, 5 out);
2. calls `add(a=5, b=20)` and `explode()`, a tool that raises (usage 20 in, 6 out);
3. answers `the answer is 25` (usage 30 in, 7 out).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from automata.core import (
    Agent,
    FunctionTool,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    ToolContext,
    Usage,
    tool,
)
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.workflow._nodes import current_activation

__all__ = [
    "EXPECTED_OUTPUT",
    "EXPECTED_RESULTS",
    "EXPECTED_STEPS",
    "EXPECTED_USAGE",
    "SYSTEM_PROMPT",
    "TASK",
    "Conversation",
]

TASK = "What is (2 + 3) + (4 * 5)?"
SYSTEM_PROMPT = "You add and multiply with tools."
EXPECTED_OUTPUT = "the answer is 25"
EXPECTED_STEPS = 3
EXPECTED_USAGE = Usage(input_tokens=60, output_tokens=18)
EXPECTED_RESULTS = [
    ("c1", "5", False),
    ("c2", "20", False),
    ("c3", "25", False),
    ("c4", "the fuse blew", True),
]
"""Every tool result of the transcript as `(call id, text, is_error)`, in order."""

_TURNS = (
    (tool_calls(tool_call("c1", "add", a=2, b=3), tool_call("c2", "multiply", a=4, b=5)), 10, 5),
    (tool_calls(tool_call("c3", "add", a=5, b=20), tool_call("c4", "explode")), 20, 6),
    (Message.assistant(EXPECTED_OUTPUT), 30, 7),
)


def _reply(message: Message, sent: int, made: int) -> ModelResponse:
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(
        message=message,
        stop_reason=stop,
        usage=Usage(input_tokens=sent, output_tokens=made),
        raw_stop_reason=stop.value,
    )


@dataclass
class Conversation:
    """One scripted conversation's model and tools, with what they saw.

    `model_calls` counts provider calls; `tool_calls` lists `(tool, call key)` for every
    tool call that started, where the key is `<activation key>/<call id>` inside a
    workflow activation and the call id alone outside one. Set `block_on` to a call id
    to make that call wait on `release` (the first time only, unless `block_always`);
    `blocked` is set while it waits. `max_steps` is the agent's."""

    max_steps: int = 10
    block_on: str | None = None
    block_always: bool = False
    model_calls: int = 0
    tool_calls: list[tuple[str, str]] = field(default_factory=list)
    blocked: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: list[str] = field(default_factory=list)
    loop_turns: bool = False
    fail_at_turn: int | None = None
    fail_with: Callable[[], BaseException] = lambda: RuntimeError("the model is down")

    def answer(self, request: ModelRequest) -> ModelResponse:
        self.model_calls += 1
        turn = sum(1 for message in request.messages if message.role == "assistant")
        if self.fail_at_turn == turn:
            raise self.fail_with()
        if self.loop_turns:
            turn = 0  # the model never stops calling tools
        return _reply(*_TURNS[min(turn, len(_TURNS) - 1)])

    def _key(self, call_id: str) -> str:
        activation = current_activation()
        return call_id if activation is None else f"{activation.idempotency_key}/{call_id}"

    async def _started(self, name: str, call_id: str) -> None:
        self.tool_calls.append((name, self._key(call_id)))
        if call_id == self.block_on:
            first = not any(key.endswith(call_id) for _, key in self.tool_calls[:-1])
            if first or self.block_always:
                self.blocked.set()
                try:
                    await self.release.wait()
                except asyncio.CancelledError:
                    self.cancelled.append(call_id)
                    raise

    def tools(self) -> list[FunctionTool]:
        """`add`, `multiply` and `explode` (which always raises), recording each call."""
        started = self._started

        @tool
        async def add(a: int, b: int, context: ToolContext) -> int:
            """Add two integers."""
            await started("add", context.call.id)
            return a + b

        @tool
        async def multiply(a: int, b: int, context: ToolContext) -> int:
            """Multiply two integers."""
            await started("multiply", context.call.id)
            return a * b

        @tool
        async def explode(context: ToolContext) -> str:
            """A tool that always fails."""
            await started("explode", context.call.id)
            raise RuntimeError("the fuse blew")

        return [add, multiply, explode]

    def agent(self) -> Agent[Any]:
        """A fresh agent on this conversation's model and tools."""
        return Agent(
            FunctionProvider(self.answer),
            name="calculator",
            system_prompt=SYSTEM_PROMPT,
            tools=self.tools(),
            max_steps=self.max_steps,
        )
