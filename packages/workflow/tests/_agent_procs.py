"""A workflow-backed agent in its own process, on a SQLite file, for crash tests.

    python _agent_procs.py start DB LOG   # run; the call `c3` (second batch) hangs
    python _agent_procs.py resume DB LOG  # resume the run, print its result, exit

The agent is the scripted calculator of `automata.workflow.testing`. Every provider
call appends `model <pid>` to LOG and every tool call `tool <call id> <key> <pid>`
(the key is `<activation key>/<call id>`) before it does anything else. Printed lines
are JSON objects, flushed at once: `{"hang": "c3"}` where `start` waits to be killed,
and `{"output": ..., "steps": ..., "tokens": ..., "messages": ...}` from `resume`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from automata.core import Agent, ModelRequest, ModelResponse, ToolContext, dump_messages, tool
from automata.core.testing import FunctionProvider
from automata.threads import SQLiteStore
from automata.workflow import RunBusyError, WorkflowAgent, current_activation, workflow_agent
from automata.workflow.testing import Conversation

RUN_ID = "sum-1"
TASK = "What is (2 + 3) + (4 * 5)?"


def say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def calculator(store: SQLiteStore, log: Path, hang: bool) -> WorkflowAgent[Any]:
    def write(line: str) -> None:
        with log.open("a", encoding="utf-8") as file:
            file.write(f"{line} {os.getpid()}\n")

    script = Conversation()

    def answer(request: ModelRequest) -> ModelResponse:
        write("model")
        return script.answer(request)

    async def started(context: ToolContext) -> None:
        activation = current_activation()
        assert activation is not None
        write(f"tool {context.call.id} {activation.idempotency_key}/{context.call.id}")
        if hang and context.call.id == "c3":
            say(hang="c3")
            await asyncio.Event().wait()

    @tool
    async def add(a: int, b: int, context: ToolContext) -> int:
        """Add two integers."""
        await started(context)
        return a + b

    @tool
    async def multiply(a: int, b: int, context: ToolContext) -> int:
        """Multiply two integers."""
        await started(context)
        return a * b

    @tool
    async def explode(context: ToolContext) -> str:
        """A tool that always fails."""
        await started(context)
        raise RuntimeError("the fuse blew")

    agent: Agent[Any] = Agent(
        FunctionProvider(answer),
        name="calculator",
        system_prompt="You add and multiply with tools.",
        tools=[add, multiply, explode],
    )
    return workflow_agent(agent, store, lease_ttl=1.0)


async def start(db: Path, log: Path) -> None:
    store = SQLiteStore(db)
    await store.open()
    await calculator(store, log, hang=True).run(TASK, run_id=RUN_ID)


async def resume(db: Path, log: Path) -> None:
    store = SQLiteStore(db)
    await store.open()
    try:
        agent = calculator(store, log, hang=False)
        deadline = time.monotonic() + 20
        while True:
            try:
                result = await agent.resume(RUN_ID)
                break
            except RunBusyError:  # the killed runner's lease has not expired yet
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        say(
            output=result.output,
            steps=result.steps,
            tokens=[result.usage.input_tokens, result.usage.output_tokens],
            messages=dump_messages(result.messages),
        )
    finally:
        await store.close()


def main() -> None:
    mode, db, log = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    asyncio.run(start(db, log) if mode == "start" else resume(db, log))


if __name__ == "__main__":
    main()
