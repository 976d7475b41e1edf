"""Same-run control: retry a failed node, jump back to an earlier node, cancel; each
recorded in the run's history (W9)."""

from __future__ import annotations

import asyncio

import pytest

from automata.workflow import (
    CompiledWorkflow,
    Node,
    NodeContext,
    NodeFailedError,
    RunCancelledError,
    RunStateError,
    Workflow,
)


class Flaky:
    """A review that fails until told otherwise, and counts its calls."""

    def __init__(self) -> None:
        self.fail = True
        self.drafts: list[str] = []
        self.reviews: list[tuple[str, int]] = []
        self.started = asyncio.Event()
        self.hang = False


def review_flow(flaky: Flaky) -> tuple[CompiledWorkflow[str, str], Node[str, str]]:
    wf = Workflow[str, str]("review")

    @wf.node
    async def draft(topic: str) -> str:
        flaky.drafts.append(topic)
        return f"draft on {topic}"

    @wf.node
    async def review(text: str, context: NodeContext) -> str:
        flaky.reviews.append((context.idempotency_key, context.attempt))
        flaky.started.set()
        if flaky.hang:
            await asyncio.Event().wait()
        if flaky.fail:
            raise RuntimeError("reviewer unavailable")
        return f"approved: {text}"

    wf.entry(draft)
    wf.edge(draft, review)
    wf.exit(review)
    return wf.compile(), draft


async def kinds(flow: CompiledWorkflow[str, str], run_id: str) -> list[str]:
    page = await flow.history(run_id, limit=1000)
    return [entry.kind for entry in page.entries]


async def test_a_failed_node_fails_the_run_and_retry_runs_it_again() -> None:
    """W9: retry keeps the activation (same idempotency key, next attempt) and does
    not run the finished nodes again."""
    flaky = Flaky()
    flow, _ = review_flow(flaky)
    with pytest.raises(NodeFailedError) as caught:
        await flow.invoke("bees", run_id="r1")
    assert caught.value.node == "review"
    assert isinstance(caught.value.__cause__, RuntimeError)
    with pytest.raises(NodeFailedError):  # still failed when invoked again
        await flow.invoke("bees", run_id="r1")
    flaky.fail = False
    assert await flow.retry("r1") == "approved: draft on bees"
    assert flaky.drafts == ["bees"]
    (key1, attempt1), (key2, attempt2) = flaky.reviews
    assert key1 == key2
    assert (attempt1, attempt2) == (1, 2)
    history = await kinds(flow, "r1")
    assert "activation_failed" in history
    retry = history.index("control")
    assert history[retry + 1 :].count("activation_finished") == 1
    page = await flow.history("r1", limit=1000)
    assert [e.data["op"] for e in page.entries if e.kind == "control"] == ["retry"]


async def test_retrying_a_run_that_did_not_fail_is_refused() -> None:
    """W9"""
    flaky = Flaky()
    flaky.fail = False
    flow, _ = review_flow(flaky)
    await flow.invoke("bees", run_id="r1")
    with pytest.raises(RunStateError, match="not failed"):
        await flow.retry("r1")


async def test_jump_runs_an_earlier_node_again_and_goes_on_from_there() -> None:
    """W9: jump back to `draft` with its recorded input, or with a new one."""
    flaky = Flaky()
    flaky.fail = False
    flow, draft = review_flow(flaky)
    await flow.invoke("bees", run_id="r1")
    assert await flow.jump("r1", draft) == "approved: draft on bees"
    assert await flow.jump("r1", draft, input="wasps") == "approved: draft on wasps"
    assert flaky.drafts == ["bees", "bees", "wasps"]
    keys = [key for key, _ in flaky.reviews]
    assert len(set(keys)) == 3  # a jump makes new activations, with new keys
    page = await flow.history("r1", limit=1000)
    jumps = [e for e in page.entries if e.kind == "control"]
    assert [(e.data["op"], e.data["node"]) for e in jumps] == [("jump", "draft")] * 2


async def test_cancel_stops_a_running_run_and_is_final() -> None:
    """W9: the runner stops at its next heartbeat or write, raising RunCancelledError;
    the run stays cancelled."""
    flaky = Flaky()
    flaky.hang = True
    wf_flow, _ = review_flow(flaky)
    task = asyncio.create_task(wf_flow.invoke("bees", run_id="r1"))
    await flaky.started.wait()
    await wf_flow.cancel("r1", "no longer needed")
    with pytest.raises(RunCancelledError, match="no longer needed"):
        await asyncio.wait_for(task, 5)
    with pytest.raises(RunCancelledError):
        await wf_flow.invoke("bees", run_id="r1")
    with pytest.raises(RunStateError):
        await wf_flow.cancel("r1")
    assert (await kinds(wf_flow, "r1"))[-1] == "control"
    runs = await wf_flow.session_runs((await wf_flow.history("r1")).entries[0].data["session_id"])
    assert runs.runs[0].status == "cancelled"


async def test_a_cancelled_run_cannot_be_moved_on() -> None:
    """W9: a cancel is final; neither jump nor retry reopens the run."""
    flaky = Flaky()
    flow, draft = review_flow(flaky)
    with pytest.raises(NodeFailedError):
        await flow.invoke("bees", run_id="r1")
    await flow.cancel("r1")
    with pytest.raises(RunStateError, match="final"):
        await flow.jump("r1", draft)
    with pytest.raises(RunStateError):
        await flow.retry("r1")


@pytest.mark.looptime
async def test_a_failed_branch_of_a_fan_out_is_retried_without_rerunning_the_others() -> None:
    """W9, W6: the branch that finished keeps its output; the join gets both."""
    wf = Workflow[int, str]("fan")
    calls: list[str] = []
    fail = True

    @wf.node
    async def start(number: int) -> int:
        calls.append("start")
        return number

    @wf.node
    async def good(number: int) -> int:
        calls.append("good")
        return number + 1

    @wf.node
    async def bad(number: int) -> int:
        calls.append("bad")
        await asyncio.sleep(0.05)  # let `good` finish first
        if fail:
            raise ValueError("flaky")
        return number * 2

    @wf.join(good, bad)
    async def both(parts: tuple[int, int]) -> str:
        calls.append("both")
        return f"{parts[0]} and {parts[1]}"

    wf.entry(start)
    wf.fan_out(start, [good, bad])
    wf.exit(both)
    flow = wf.compile()
    with pytest.raises(NodeFailedError, match="flaky"):
        await flow.invoke(5, run_id="r")
    fail = False
    assert await flow.retry("r") == "6 and 10"
    assert calls == ["start", "good", "bad", "bad", "both"]
