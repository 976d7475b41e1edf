"""A worker process for the crash tests: `python _worker_proc.py ADDRESS QUEUE FOLDER`.

It serves the agent `crash`, whose first turn calls `charge` (not idempotent) and
`lookup` (idempotent) together, and whose second answers with what they returned. Each
tool writes its side effects to files in FOLDER, and blocks for good the first time it
is called anywhere (a marker file), so the test can kill the worker mid-call. It prints
`ready` once the worker polls.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from temporalio.client import Client

from automata.core import Agent, Message, ModelRequest, RetryPolicy, ToolContext, ToolPolicy, tool
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.temporal import AgentRegistry, TemporalAgent, agent_worker, idempotency_key


def _append(path: Path, line: str) -> None:
    with path.open("a") as sink:
        sink.write(line + "\n")


async def _block_the_first_time(folder: Path, name: str) -> None:
    marker = folder / f"started-{name}"
    if not marker.exists():
        marker.touch()
        await asyncio.sleep(3600)


def crash_agent(folder: Path) -> Agent:
    @tool
    async def charge(amount: int) -> str:
        """Charge the card (not idempotent: every run charges again)."""
        _append(folder / "effects", f"charge {amount}")
        await _block_the_first_time(folder, "charge")
        return "charged"

    @tool(idempotent=True)
    async def lookup(ctx: ToolContext, item: str) -> str:
        """Look an item up, recording the attempt under the call's idempotency key."""
        key = idempotency_key(ctx)
        _append(folder / "attempts", key)
        effects = folder / "effects"
        if f"lookup {key}" not in (effects.read_text() if effects.exists() else ""):
            _append(effects, f"lookup {key}")
        await _block_the_first_time(folder, "lookup")
        return f"{item}: in stock"

    def model(request: ModelRequest) -> Message | str:
        last = request.messages[-1]
        if last.role == "user":
            return tool_calls(
                tool_call("c1", "charge", amount=5), tool_call("c2", "lookup", item="tea")
            )
        return " | ".join(block.text or "" for block in last.content if hasattr(block, "text"))

    return Agent(
        FunctionProvider(model, streaming=False),
        tools=[charge, lookup],
        tool_policy=ToolPolicy(timeout=60),
    )


async def main(address: str, queue: str, folder: Path) -> None:
    client = await Client.connect(address)
    registry = AgentRegistry(
        {
            "crash": TemporalAgent(
                lambda: crash_agent(folder),
                tool_retry=RetryPolicy(max_attempts=5, base_delay=0.1),
                heartbeat_timeout=1.0,
            )
        }
    )
    # no sticky cache: a lost worker's workflow tasks go straight to the others
    async with agent_worker(client, registry, task_queue=queue, max_cached_workflows=0):
        print("ready", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
