"""TP2: the core loop, run in the workflow, takes nothing from the clock, randomness,
id generators, threads or the environment: every such call made while workflow code
runs is recorded, and a run through every part of the loop records none."""

from __future__ import annotations

import os
import random
import sys
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel
from temporalio import workflow
from temporalio.client import Client

from automata.core import (
    Agent,
    GuardrailResult,
    ModelRequest,
    RunContext,
    ToolPolicy,
    pre_send,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.temporal import AgentRegistry, TemporalAgent, agent_worker, start_agent_run

WATCHED: list[tuple[Any, str]] = [
    (time, "time"),
    (time, "time_ns"),
    (time, "monotonic"),
    (time, "monotonic_ns"),
    (time, "perf_counter"),
    (uuid, "uuid1"),
    (uuid, "uuid4"),
    (random, "random"),
    (random, "randint"),
    (random, "getrandbits"),
    (os, "urandom"),
    (os, "getenv"),
    (threading.Thread, "start"),
]


@pytest.fixture
def calls_in_workflow_code(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The watched functions, each recording its name when called from workflow code
    (then doing what it does)."""
    seen: list[str] = []

    def watch(owner: Any, name: str) -> None:
        original = getattr(owner, name)

        def watched(*args: Any, **kwargs: Any) -> Any:
            if workflow.in_workflow():
                caller = sys._getframe(1).f_globals.get("__name__", "?")
                seen.append(f"{getattr(owner, '__name__', owner)}.{name} from {caller}")
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, watched)

    for owner, name in WATCHED:
        watch(owner, name)
    return seen


class Summary(BaseModel):
    text: str


@tool
def lookup(key: str) -> str:
    """Look a key up (a sync tool: in process it would run on a thread)."""
    return f"{key}=1"


async def same(request: ModelRequest) -> ModelRequest:
    return request


def busy_agent() -> Agent:
    """A dynamic prompt, instructions, a hook, an output guardrail, a tool policy with a
    timeout, two sync tool calls in one batch, a handoff and typed output."""
    closer = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("o1", "automata_structured_output", text="a=1, b=1"))]
        ),
        name="closer",
    )
    first = tool_calls(tool_call("c1", "lookup", key="a"), tool_call("c2", "lookup", key="b"))
    opener = ScriptedProvider([first, tool_calls(tool_call("h1", "transfer_to_closer"))])

    def prompt(context: RunContext[None]) -> str:
        return f"Run {context.invocation_id}."

    def fine(context: RunContext[None], output: object) -> GuardrailResult:
        return GuardrailResult(tripped=False)

    return Agent(
        opener,
        name="opener",
        system_prompt=prompt,
        instructions="Be brief.",
        tools=[lookup],
        tool_policy=ToolPolicy(timeout=30, max_parallel=2),
        hooks=[pre_send(same)],
        output_guardrails=[fine],
        handoffs=[closer],
    )


async def test_the_loop_in_the_workflow_calls_no_clock_random_id_thread_or_environment(
    client: Client, fresh: Callable[[str], str], calls_in_workflow_code: list[str]
) -> None:
    """TP2: with `time`, `uuid`, `random`, `os.urandom`, `os.getenv` and
    `Thread.start` watched, a run using dynamic prompts, instructions, hooks, a
    guardrail, parallel sync tools under a timeout, a handoff and typed output makes
    none of those calls from workflow code (the activities may: they are not replayed),
    but pydantic's read of its plugin setting."""
    registry = AgentRegistry({"busy": TemporalAgent(busy_agent, output_type=Summary)})
    queue = fresh("q")
    async with agent_worker(client, registry, task_queue=queue):
        handle = await start_agent_run(client, "busy", "sum", id=fresh("run"), task_queue=queue)
        result = await handle.result()
    assert result.output_as(Summary) == Summary(text="a=1, b=1")
    # pydantic reads PYDANTIC_DISABLE_PLUGINS whenever it builds a validator (a model
    # built on first use, a TypeAdapter): the worker's setting, the same on every replay
    harmless = "os.getenv from pydantic.plugin._loader"
    assert [call for call in calls_in_workflow_code if call != harmless] == []
