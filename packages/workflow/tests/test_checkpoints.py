"""Checkpoints and resume on the memory and SQLite stores; leases, heartbeats and
fencing (W6, W7, W8)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from automata.threads.store import ThreadStore
from automata.workflow import (
    ActivationInfo,
    CompiledWorkflow,
    NodeContext,
    RunBusyError,
    RunConflictError,
    RunLeaseLostError,
    RunNotFoundError,
    StopReason,
    Workflow,
)

from .conftest import opened


@dataclass
class Calls:
    """What the nodes of `pipeline` did: (node, idempotency key, attempt) per call."""

    made: list[tuple[str, str, int]] = field(default_factory=list)
    hang_in: str | None = None
    hang_before: str | None = None
    reached: asyncio.Event = field(default_factory=asyncio.Event)

    def of(self, node: str) -> list[tuple[str, str, int]]:
        return [call for call in self.made if call[0] == node]


def pipeline(calls: Calls, store: ThreadStore, **options: object) -> CompiledWorkflow[int, str]:
    """fetch -> think -> write; a node records its call, then hangs if told to."""
    wf = Workflow[int, str]("pipeline")

    async def step(name: str, context: NodeContext) -> None:
        calls.made.append((name, context.idempotency_key, context.attempt))
        if calls.hang_in == name:
            calls.reached.set()
            await asyncio.Event().wait()

    @wf.node
    async def fetch(number: int, context: NodeContext) -> int:
        await step("fetch", context)
        return number + 1

    @wf.node
    async def think(number: int, context: NodeContext) -> int:
        await step("think", context)
        return number * 10

    @wf.node
    async def write(number: int, context: NodeContext) -> str:
        await step("write", context)
        return f"result {number}"

    async def hang_before(info: ActivationInfo) -> StopReason | None:
        if calls.hang_before == info.node:
            calls.reached.set()
            await asyncio.Event().wait()
        return None

    wf.entry(fetch)
    wf.edge(fetch, think)
    wf.edge(think, write)
    wf.exit(write)
    return wf.compile(store, guards=[hang_before], **options)  # type: ignore[arg-type]


async def interrupted(flow: CompiledWorkflow[int, str], calls: Calls, run_id: str) -> None:
    """Start a run and stop its runner where `calls` says it hangs."""
    task = asyncio.create_task(flow.invoke(1, run_id=run_id))
    await asyncio.wait_for(calls.reached.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_run_interrupted_mid_node_resumes_without_rerunning_finished_nodes(
    stores: Callable[[], ThreadStore],
) -> None:
    """W6: finished activations never run again; the interrupted one runs again with
    the same idempotency key and the next attempt."""
    calls = Calls(hang_in="think")
    await interrupted(pipeline(calls, await opened(stores())), calls, "r1")
    calls.hang_in = None
    resumed = pipeline(calls, await opened(stores()))
    assert await resumed.invoke(1, run_id="r1") == "result 20"
    assert len(calls.of("fetch")) == 1
    (_, first_key, first_attempt), (_, again_key, again_attempt) = calls.of("think")
    assert first_key == again_key
    assert first_key.startswith("r1/")
    assert (first_attempt, again_attempt) == (1, 2)
    assert len(calls.of("write")) == 1


async def test_a_run_interrupted_between_nodes_resumes_at_the_next_node(
    stores: Callable[[], ThreadStore],
) -> None:
    """W6: the checkpoint after `think` holds its output; `write` runs on it."""
    calls = Calls(hang_before="write")
    await interrupted(pipeline(calls, await opened(stores())), calls, "r1")
    calls.hang_before = None
    resumed = pipeline(calls, await opened(stores()))
    assert await resumed.resume("r1") == "result 20"
    assert [call[0] for call in calls.made] == ["fetch", "think", "write"]


async def test_a_finished_run_answers_from_its_journal(stores: Callable[[], ThreadStore]) -> None:
    """W6: invoking a finished run again runs nothing."""
    calls = Calls()
    flow = pipeline(calls, await opened(stores()))
    assert await flow.invoke(1, run_id="r1") == "result 20"
    assert await pipeline(calls, await opened(stores())).invoke(1, run_id="r1") == "result 20"
    assert len(calls.made) == 3


async def test_a_run_id_reused_with_another_input_is_a_conflict(
    stores: Callable[[], ThreadStore],
) -> None:
    """W6"""
    flow = pipeline(Calls(), await opened(stores()))
    await flow.invoke(1, run_id="r1")
    with pytest.raises(RunConflictError, match="another input"):
        await flow.invoke(2, run_id="r1")
    with pytest.raises(RunNotFoundError):
        await flow.resume("nope")


async def test_each_checkpoint_is_in_the_store_as_the_run_thread(
    stores: Callable[[], ThreadStore],
) -> None:
    """W7: a run is the thread `wf:<run id>`, a child of `wfs:<session id>`."""
    store = await opened(stores())
    flow = pipeline(Calls(), store)
    await flow.invoke(1, run_id="r1", session_id="s1")
    row = await store.thread("wf:r1")
    assert row is not None
    assert row.parent_id == "wfs:s1"
    assert not row.active
    assert json.loads(row.summary)["status"] == "done"
    kinds = [record.kind for record in await store.read("wf:r1")]
    assert kinds == [
        "run_started",
        "runner",
        *["activation_started", "activation_finished"] * 3,
        "run_finished",
    ]


async def test_a_healthy_long_node_keeps_its_lease_and_a_second_runner_is_refused(
    stores: Callable[[], ThreadStore],
) -> None:
    """W8: heartbeats renew the lease while a node runs longer than its time to live.

    The node runs until the test lets it finish, so nothing races a fixed sleep; the
    lease lives 1 s, so only an event-loop stall of most of a second (not a busy
    machine's usual tens of milliseconds) could let it lapse between heartbeats."""
    calls = Calls()
    release = asyncio.Event()
    store = await opened(stores())
    wf = Workflow[int, int]("slow")

    @wf.node
    async def slow(number: int) -> int:
        calls.reached.set()
        await release.wait()
        return number

    wf.entry(slow)
    wf.exit(slow)
    first = wf.compile(store, lease_ttl=1.0)
    task = asyncio.create_task(first.invoke(7, run_id="r1"))
    await calls.reached.wait()
    await asyncio.sleep(2.2)  # past two lease lifetimes: only heartbeats keep it
    second = wf.compile(await opened(stores()), lease_ttl=1.0)
    with pytest.raises(RunBusyError):
        await second.invoke(7, run_id="r1")
    assert not task.done()
    release.set()
    assert await task == 7


async def test_a_runner_whose_lease_was_revoked_stops_with_a_clear_error(
    stores: Callable[[], ThreadStore],
) -> None:
    """W8: a lost lease cancels the node, and the runner raises `RunLeaseLostError`."""
    calls = Calls(hang_in="think")
    store = await opened(stores())
    flow = pipeline(calls, store, lease_ttl=0.3)
    task = asyncio.create_task(flow.invoke(1, run_id="r1"))
    await calls.reached.wait()
    await store.append("wf:r1", [], revoke_lease=True)
    with pytest.raises(RunLeaseLostError, match="lost the lease"):
        await asyncio.wait_for(task, 5)


async def test_a_late_write_of_a_runner_that_lost_its_lease_is_refused(
    stores: Callable[[], ThreadStore],
) -> None:
    """W8: fencing. The first runner is paused past its lease; a second takes over and
    finishes; the first's late checkpoint is refused and it stops."""
    store = await opened(stores())
    release = asyncio.Event()
    reached = asyncio.Event()
    wf = Workflow[int, int]("fenced")

    @wf.node
    async def pause(number: int, context: NodeContext) -> int:
        if context.attempt == 1:
            reached.set()
            await release.wait()
        return number

    wf.entry(pause)
    wf.exit(pause)
    # its heartbeat would come after 10 s: only the fence can stop its late write
    first = wf.compile(store, lease_ttl=30)
    task = asyncio.create_task(first.invoke(5, run_id="r1"))
    await reached.wait()
    await store.append("wf:r1", [], revoke_lease=True)  # as if it had expired
    second = wf.compile(await opened(stores()), lease_ttl=30)
    assert await second.invoke(5, run_id="r1") == 5
    release.set()
    with pytest.raises(RunLeaseLostError):
        await asyncio.wait_for(task, 5)
    finished = [r for r in await store.read("wf:r1") if r.kind == "activation_finished"]
    assert len(finished) == 1


async def test_a_run_of_another_workflow_is_not_resumed(
    stores: Callable[[], ThreadStore],
) -> None:
    """W7: the journal names its workflow; another one refuses to run it."""
    store = await opened(stores())
    await pipeline(Calls(), store).invoke(1, run_id="r1")
    other = Workflow[int, str]("other")

    @other.node
    async def only(number: int) -> str:
        return str(number)

    other.entry(only)
    other.exit(only)
    with pytest.raises(RunConflictError, match="belongs to workflow 'pipeline'"):
        await other.compile(store).resume("r1")
