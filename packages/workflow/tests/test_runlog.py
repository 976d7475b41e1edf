"""The run log: history by run and runs by session, paged and bounded (W13)."""

from __future__ import annotations

import pytest

from automata.threads import MemoryStore
from automata.workflow import (
    HistoryLimitError,
    NodeContext,
    PageBoundError,
    RunEvent,
    Workflow,
)


def logging_flow() -> Workflow[int, int]:
    wf = Workflow[int, int]("logger")

    @wf.node
    async def chatty(number: int, context: NodeContext) -> int:
        for index in range(number):
            await context.log("step", index=index)
        return number

    wf.entry(chatty)
    wf.exit(chatty)
    return wf


async def test_nodes_append_to_the_run_log_and_history_reads_it_in_pages() -> None:
    """W13: pages continue exactly where the last one ended."""
    flow = logging_flow().compile()
    await flow.invoke(25, run_id="r1")
    entries: list[RunEvent] = []
    after = 0
    while True:
        page = await flow.history("r1", after=after, limit=7)
        entries.extend(page.entries)
        if page.next_after is None:
            break
        assert len(page.entries) == 7
        after = page.next_after
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    logs = [e for e in entries if e.kind == "log"]
    assert [e.data["data"]["index"] for e in logs] == list(range(25))
    assert all(e.activation_id == logs[0].activation_id for e in logs)


@pytest.mark.parametrize("limit", [0, -1, 1001, True])
async def test_a_page_past_the_bound_is_an_error_never_a_short_page(limit: int) -> None:
    """W13"""
    flow = logging_flow().compile()
    await flow.invoke(1, run_id="r1", session_id="s")
    with pytest.raises(PageBoundError):
        await flow.history("r1", limit=limit)
    with pytest.raises(PageBoundError):
        await flow.session_runs("s", limit=limit)


async def test_runs_are_listed_by_session_newest_first_in_pages() -> None:
    """W13"""
    flow = logging_flow().compile()
    for index in range(5):
        await flow.invoke(index, run_id=f"r{index}", session_id="s1")
    await flow.invoke(1, run_id="other", session_id="s2")
    first = await flow.session_runs("s1", limit=3)
    assert [run.run_id for run in first.runs] == ["r4", "r3", "r2"]
    assert first.next_before is not None
    rest = await flow.session_runs("s1", before=first.next_before, limit=3)
    assert [run.run_id for run in rest.runs] == ["r1", "r0"]
    assert rest.next_before is None
    assert {run.status for run in first.runs + rest.runs} == {"done"}
    assert {run.session_id for run in first.runs} == {"s1"}
    assert (await flow.session_runs("unknown")).runs == ()


async def test_a_runner_refuses_a_journal_longer_than_its_bound() -> None:
    """W13: past `max_history` records, `HistoryLimitError`, never a partial state."""
    wf = logging_flow()
    store = MemoryStore()
    await store.open()
    await wf.compile(store).invoke(10, run_id="r1")
    with pytest.raises(HistoryLimitError, match="more than 5 records"):
        await wf.compile(store, max_history=5).invoke(10, run_id="r1")
