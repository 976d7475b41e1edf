"""Which agent runs a turn, what it looked like, and what its tools may rely on."""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from automata.core import Agent, Hook, Message, ModelRequest, TextBlock, ToolContext

__all__ = [
    "AgentFactory",
    "AgentRequest",
    "idempotency_key",
    "make_agent",
    "supplemental_hook",
    "surface_of",
    "thread_of",
    "turn_invocation_id",
]


@dataclass(frozen=True, slots=True)
class AgentRequest:
    """What a factory is told when a turn needs an agent: the thread, its parent (for
    a child thread), the turn, and `agent`: the name the thread was created for (a
    sub-agent's name for a child thread made by `child_thread_tool`, else None). The
    same turn asks again after a restart, a retry or an approval, and must get an
    agent with the same surface."""

    thread_id: str
    parent_id: str | None
    turn_id: str
    agent: str | None = None


AgentFactory: TypeAlias = Callable[[AgentRequest], "Agent[Any] | Awaitable[Agent[Any]]"]
"""Chooses the agent (prompt, tools, provider, model) for a turn; sync or async."""


async def make_agent(factory: AgentFactory, request: AgentRequest) -> Agent[Any]:
    """Call the factory and check it gave an agent."""
    made = factory(request)
    if inspect.isawaitable(made):
        made = await made
    if not isinstance(made, Agent):
        raise TypeError(f"the agent factory returned a {type(made).__name__}, not an Agent")
    return made


def surface_of(agent: Agent[Any]) -> tuple[dict[str, Any], str]:
    """What a turn's agent looked like (name, provider, model, system prompt, tool
    names) and the hash of it. A dynamic system prompt is named by its function."""
    prompt = agent.system_prompt
    if prompt is not None and not isinstance(prompt, str):
        prompt = f"<function {getattr(prompt, '__qualname__', type(prompt).__name__)}>"
    surface: dict[str, Any] = {
        "agent": agent.name,
        "provider": agent.provider.provider_name,
        "model": agent.provider.model,
        "system_prompt": prompt,
        "tools": sorted(tool.name for tool in agent.tools),
    }
    text = json.dumps(surface, sort_keys=True, separators=(",", ":"))
    return surface, hashlib.sha256(text.encode("utf-8")).hexdigest()


def turn_invocation_id(thread_id: str, turn_id: str) -> str:
    """The invocation id every run of a turn has, in every process: tools see it as
    `ToolContext.invocation_id`."""
    return f"{thread_id}/{turn_id}"


def thread_of(context: ToolContext[Any]) -> str | None:
    """The id of the thread whose turn runs this tool call (None outside a thread
    service)."""
    head, separator, _ = context.invocation_id.partition("/")
    return head if separator and head.startswith("th_") else None


def idempotency_key(context: ToolContext[Any]) -> str:
    """A key naming this tool call for good: the same when a recovered turn runs the
    call again (thread, turn and call id), different for every other call. Pass it to
    the outside world (a payment API's idempotency key, a unique constraint) so a
    repeated call has no second effect."""
    return f"{context.invocation_id}/{context.call.id}"


def supplemental_hook(text: str) -> Hook:
    """A pre-send hook that shows `text` to the model with the turn's user message, in
    every request of the run, without it entering the transcript."""

    class _Supplemental(Hook):
        async def before_send(self, request: ModelRequest) -> ModelRequest:
            messages = list(request.messages)
            for index in range(len(messages) - 1, -1, -1):
                if messages[index].role == "user":
                    found = messages[index]
                    messages[index] = Message(
                        role="user", content=(*found.content, TextBlock(text=text))
                    )
                    break
            return replace(request, messages=tuple(messages))

    return _Supplemental()
