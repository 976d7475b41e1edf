"""Typed routing, fan-out and joins at run time (W4, W5)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from automata.workflow import NodeContext, RunStalledError, Workflow


@dataclass
class Question:
    text: str


@dataclass
class Complaint:
    text: str


@dataclass
class Again:
    value: int


@dataclass
class Done:
    value: int


class Report(BaseModel):
    title: str
    words: int


def triage() -> Workflow[str, str]:
    wf = Workflow[str, str]("triage")

    @wf.node
    async def parse(text: str) -> Question | Complaint:
        return Question(text) if text.endswith("?") else Complaint(text)

    @wf.node
    async def answer(question: Question) -> str:
        return f"answer to {question.text}"

    @wf.node
    async def soothe(complaint: Complaint) -> str:
        return f"sorry about {complaint.text}"

    wf.entry(parse)
    wf.route(parse, answer)
    wf.route(parse, soothe)
    wf.exit(answer)
    wf.exit(soothe)
    return wf


async def test_a_union_output_takes_the_route_of_its_type() -> None:
    """W4: a route fires when the output is of the type its target takes."""
    flow = triage().compile()
    assert await flow.invoke("why?") == "answer to why?"
    assert await flow.invoke("it broke") == "sorry about it broke"


async def test_an_edge_with_a_predicate_fires_only_when_it_holds() -> None:
    """W4"""
    wf = Workflow[int, str]("w")

    @wf.node
    async def start(number: int) -> int:
        return number

    @wf.node
    async def small(number: int) -> str:
        return "small"

    @wf.node
    async def big(number: int) -> str:
        return "big"

    wf.entry(start)
    wf.edge(start, small, when=lambda n: n < 10)
    wf.edge(start, big, when=lambda n: n >= 10)
    wf.exit(small)
    wf.exit(big)
    flow = wf.compile()
    assert (await flow.invoke(3), await flow.invoke(30)) == ("small", "big")


async def test_a_fan_out_runs_branches_concurrently_and_a_join_gets_their_outputs() -> None:
    """W5: the join's input is the tuple of its sources' outputs, in source order,
    typed as the join declares (a pydantic model crosses the checkpoint as itself)."""
    wf = Workflow[str, str]("w")
    both_running = asyncio.Event()
    running = 0

    @wf.node
    async def start(text: str) -> str:
        return text

    async def together() -> None:
        nonlocal running
        running += 1
        if running == 2:
            both_running.set()
        await asyncio.wait_for(both_running.wait(), 2)

    @wf.node
    async def title(text: str) -> str:
        await together()
        return text.title()

    @wf.node
    async def report(text: str) -> Report:
        await together()
        return Report(title=text, words=len(text.split()))

    @wf.join(title, report)
    async def merge(parts: tuple[str, Report], context: NodeContext) -> str:
        heading, body = parts
        assert isinstance(body, Report)
        return f"{heading}: {body.words} words"

    wf.entry(start)
    wf.fan_out(start, [title, report])
    wf.exit(merge)
    assert await wf.compile().invoke("the quick fox") == "The Quick Fox: 3 words"


@pytest.mark.looptime
async def test_a_list_join_collects_many_branches_in_source_order() -> None:
    """W5"""
    wf = Workflow[int, list[int]]("w")

    @wf.node
    async def start(number: int) -> int:
        return number

    def times(index: int) -> Callable[[int], Awaitable[int]]:
        async def multiply(number: int) -> int:
            await asyncio.sleep(0.01 * (5 - index))  # finish in reverse order
            return number * index

        return multiply

    branches = [wf.node(times(index), name=f"times{index}") for index in range(5)]

    @wf.join_all(branches)
    async def gather(parts: list[int]) -> list[int]:
        return parts

    wf.entry(start)
    wf.fan_out(start, branches)
    wf.exit(gather)
    assert await wf.compile().invoke(3) == [0, 3, 6, 9, 12]


async def test_a_loop_runs_until_its_route_leaves_it() -> None:
    """W4: a node may route back to an earlier one."""
    wf = Workflow[int, str]("w")

    @wf.node
    async def step(value: int) -> Again | Done:
        return Done(value) if value >= 3 else Again(value + 1)

    @wf.node
    async def again(item: Again) -> int:
        return item.value

    @wf.node
    async def done(item: Done) -> str:
        return f"done at {item.value}"

    wf.entry(step)
    wf.route(step, again)
    wf.route(step, done)
    wf.edge(again, step)
    wf.exit(done)
    assert await wf.compile().invoke(0) == "done at 3"


async def test_a_run_with_nothing_left_to_run_and_no_exit_reached_fails() -> None:
    """W4: no predicate held, so the run stalled; it is failed, not hung."""
    wf = Workflow[int, int]("w")

    @wf.node
    async def start(number: int) -> int:
        return number

    @wf.node
    async def finish(number: int) -> int:
        return number

    wf.entry(start)
    wf.edge(start, finish, when=lambda n: n > 0)
    wf.exit(finish)
    flow = wf.compile()
    with pytest.raises(RunStalledError, match="nothing left to run"):
        await flow.invoke(-1, run_id="r")
    page = await flow.history("r")
    assert page.entries[-1].kind == "run_failed"


async def test_the_first_exit_to_finish_ends_the_run_and_abandons_the_rest() -> None:
    """W4: activations still in flight when an exit finishes are cancelled."""
    wf = Workflow[int, str]("race")
    cancelled, slow_started = asyncio.Event(), asyncio.Event()

    @wf.node
    async def start(number: int) -> int:
        return number

    @wf.node
    async def fast(number: int) -> str:
        await slow_started.wait()
        return "fast"

    @wf.node
    async def slow(number: int) -> str:
        slow_started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "slow"

    wf.entry(start)
    wf.fan_out(start, [fast, slow])
    wf.exit(fast)
    wf.exit(slow)
    flow = wf.compile()
    assert await flow.invoke(1, run_id="r") == "fast"
    assert cancelled.is_set()
    kinds = [entry.kind for entry in (await flow.history("r")).entries]
    assert kinds[-1] == "run_finished"
    assert kinds.count("activation_finished") == 2


async def test_max_concurrency_bounds_the_activations_running_at_once() -> None:
    """W5"""
    wf = Workflow[int, list[int]]("bounded")
    running = peak = 0

    @wf.node
    async def start(number: int) -> int:
        return number

    async def branch(number: int) -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1
        return number

    branches = [wf.node(branch, name=f"b{index}") for index in range(10)]

    @wf.join_all(branches)
    async def gather(parts: list[int]) -> list[int]:
        return parts

    wf.entry(start)
    wf.fan_out(start, branches)
    wf.exit(gather)
    assert await wf.compile(max_concurrency=3).invoke(2) == [2] * 10
    assert peak == 3
