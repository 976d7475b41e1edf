"""How many appends a run's checkpoints take: a step's start goes in the append of the
end that made it ready when nothing else is pending and the run has no guards; the
journal's records and their order are the same either way (W6, W7)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from automata.threads import MemoryStore
from automata.threads.store import Commit, NewRecord
from automata.workflow import (
    ActivationInfo,
    CompiledWorkflow,
    Guard,
    NodeContext,
    StopReason,
    Workflow,
)


class CountingStore(MemoryStore):
    """A memory store that keeps the kinds of each append's records, per append."""

    def __init__(self) -> None:
        super().__init__()
        self.appends: list[list[str]] = []

    async def append(self, thread_id: str, records: Sequence[NewRecord], **options: Any) -> Commit:
        if thread_id.startswith("wf:"):
            self.appends.append([record.kind for record in records])
        return await super().append(thread_id, records, **options)


async def opened() -> CountingStore:
    store = CountingStore()
    await store.open()
    return store


def three_steps(
    store: CountingStore,
    *,
    guards: Sequence[Guard] = (),
    attempts: list[tuple[str, str, int]] | None = None,
    hang_in: str | None = None,
    reached: asyncio.Event | None = None,
) -> CompiledWorkflow[int, int]:
    """fetch -> think -> write, each adding one; `hang_in` sets `reached` and hangs."""
    wf = Workflow[int, int]("three")
    made = attempts if attempts is not None else []

    async def step(name: str, number: int, context: NodeContext) -> int:
        made.append((name, context.idempotency_key, context.attempt))
        if name == hang_in and reached is not None:
            reached.set()
            await asyncio.Event().wait()
        return number + 1

    @wf.node
    async def fetch(number: int, context: NodeContext) -> int:
        return await step("fetch", number, context)

    @wf.node
    async def think(number: int, context: NodeContext) -> int:
        return await step("think", number, context)

    @wf.node
    async def write(number: int, context: NodeContext) -> int:
        return await step("write", number, context)

    wf.entry(fetch)
    wf.edge(fetch, think)
    wf.edge(think, write)
    wf.exit(write)
    return wf.compile(store, guards=guards)


STEPS = [
    "run_started",
    "runner",
    *["activation_started", "activation_finished"] * 3,
    "run_finished",
]


async def test_without_guards_a_step_starts_in_the_append_of_the_end_before_it() -> None:
    store = await opened()
    assert await three_steps(store).invoke(0, run_id="r1") == 3
    assert store.appends == [
        ["runner"],
        ["activation_started"],
        ["activation_finished", "activation_started"],
        ["activation_finished", "activation_started"],
        ["activation_finished", "run_finished"],
    ]
    assert [record.kind for record in await store.read("wf:r1")] == STEPS


async def test_with_a_guard_every_start_is_its_own_append_after_the_guard() -> None:
    store = await opened()
    seen: list[str] = []

    async def watch(info: ActivationInfo) -> StopReason | None:
        seen.append(info.node)
        return None

    assert await three_steps(store, guards=[watch]).invoke(0, run_id="r1") == 3
    assert seen == ["fetch", "think", "write"]
    assert store.appends == [
        ["runner"],
        *[["activation_started"], ["activation_finished"]] * 2,
        ["activation_started"],
        ["activation_finished", "run_finished"],
    ]
    assert [record.kind for record in await store.read("wf:r1")] == STEPS


async def test_a_step_started_with_the_end_before_it_runs_again_with_the_next_attempt() -> None:
    """W6: its start was committed before it ran, so a resume counts the attempt."""
    store = await opened()
    attempts: list[tuple[str, str, int]] = []
    reached = asyncio.Event()
    flow = three_steps(store, attempts=attempts, hang_in="think", reached=reached)
    task = asyncio.create_task(flow.invoke(0, run_id="r1"))
    await asyncio.wait_for(reached.wait(), 5)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    resumed = three_steps(store, attempts=attempts)
    assert await resumed.resume("r1") == 3
    (_, first_key, first), (_, again_key, again) = [a for a in attempts if a[0] == "think"]
    assert (first_key, first, again) == (again_key, 1, 2)
    assert [name for name, _, _ in attempts] == ["fetch", "think", "think", "write"]


async def test_a_fan_out_wider_than_the_concurrency_starts_each_branch_on_its_own() -> None:
    store = await opened()
    wf = Workflow[int, int]("fan")

    @wf.node
    async def source(number: int) -> int:
        return number

    @wf.node
    async def left(number: int) -> int:
        return number + 1

    @wf.node
    async def right(number: int) -> int:
        return number + 2

    @wf.join(left, right)
    async def total(parts: tuple[int, int]) -> int:
        return sum(parts)

    wf.entry(source)
    wf.fan_out(source, [left, right])
    wf.exit(total)
    assert await wf.compile(store, max_concurrency=1).invoke(1, run_id="r1") == 5
    assert store.appends == [
        ["runner"],
        ["activation_started"],
        ["activation_finished"],
        ["activation_started"],
        ["activation_finished"],
        ["activation_started"],
        ["activation_finished", "activation_started"],
        ["activation_finished", "run_finished"],
    ]
