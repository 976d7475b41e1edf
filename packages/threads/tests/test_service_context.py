"""The context record (docs/threads.md CX1-CX4): `ThreadService.context` gives the
policy the thread's turns bound their requests with, usage totals that are the sum of
the committed steps' usage (each step carrying the totals after it), and the latest
state of each compaction operation, on every backend and after a reload."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import pytest

from automata.core import Agent, Compactor, Message, ModelRequest, ModelResponse, StopReason, Usage
from automata.core.testing import FunctionProvider, ScriptedProvider
from automata.threads import (
    CompactionOperation,
    CompactionPolicy,
    ContextPolicy,
    Host,
    ThreadNotFoundError,
    ThreadView,
    UsageTotals,
)
from automata.threads.store import ThreadStore

OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


class Summarizer(ScriptedProvider):
    model = "sum-1"


def reply(text: str, n: int) -> ModelResponse:
    """A reply whose usage has every field, distinct per reply."""
    return ModelResponse(
        message=Message.assistant(text),
        stop_reason=StopReason.END_TURN,
        usage=Usage(
            input_tokens=10 * n,
            output_tokens=n,
            cache_read_tokens=100 * n,
            cache_write_tokens=1000 * n,
            reasoning_tokens=n // 2,
        ),
    )


def compacting(model: object, summarizer: object) -> Agent:
    """Compacted from the second turn on (two messages kept verbatim)."""
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=2)  # type: ignore[arg-type]
    return Agent(model, system_prompt="sys", hooks=[compactor])  # type: ignore[arg-type]


async def journal(store: ThreadStore, thread_id: str) -> list[tuple[int, str, dict[str, object]]]:
    return [(r.seq, r.kind, json.loads(r.data)) for r in await store.read(thread_id)]


async def test_a_thread_that_never_ran_a_turn_has_no_policy_and_zero_totals(
    open_host: OpenHost,
) -> None:
    """CX1; an unknown thread raises ThreadNotFoundError."""
    service = (await open_host()).thread_service(lambda r: Agent(ScriptedProvider([])))
    thread = await service.create(request_key="c")
    context = await service.context(thread.thread_id)
    assert context.thread_id == thread.thread_id
    assert context.policy is None
    assert context.usage == UsageTotals()
    assert context.compactions == ()
    with pytest.raises(ThreadNotFoundError):
        await service.context("th_missing")


async def test_the_totals_are_the_sum_of_the_step_usages_and_each_step_carries_them(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """CX2: three steps over two turns; the totals are disjoint (input without cache
    reads and writes), equal to the sum of the journaled step usages, each step
    record carries the running totals after it, and a new host reads the same."""
    model = ScriptedProvider([reply("one", 1), reply("two", 2), reply("three", 3)])
    first = await open_host()
    service = first.thread_service(lambda r: Agent(model))
    thread = await service.create(request_key="c")
    for n in range(3):
        await service.send(thread.thread_id, f"u{n}", request_key=f"s{n}")
        await settle(service, thread.thread_id)
    context = await service.context(thread.thread_id)
    assert context.usage == UsageTotals(
        input_tokens=60, output_tokens=6, cache_read_tokens=600, cache_write_tokens=6000
    )
    assert context.usage.total_tokens == 6666
    steps = [data for _, kind, data in await journal(store, thread.thread_id) if kind == "step"]
    summed = Usage()
    for step in steps:
        summed = summed + Usage.model_validate(step["usage"])
        assert step["totals"] == UsageTotals.of(summed).to_data()
    assert context.usage == UsageTotals.of(summed)
    assert context.policy == ContextPolicy()  # no compactor: the whole transcript
    assert context.policy is not None
    assert not context.policy.bounded
    await first.shutdown()
    again = (await open_host()).thread_service(lambda r: Agent(model))
    assert await again.context(thread.thread_id) == context


async def test_the_policy_in_force_is_the_latest_turns_compactors_journaled_when_it_changes(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """CX1: a compacting agent's settings are the policy from its first turn; the same
    policy again writes no record; an agent without a compactor writes the empty one."""
    agents = iter(
        [
            compacting(FunctionProvider(lambda r: "a"), Summarizer(["s0"])),
            compacting(FunctionProvider(lambda r: "b"), Summarizer(["s1"])),
            Agent(FunctionProvider(lambda r: "c")),
        ]
    )
    service = (await open_host()).thread_service(lambda r: next(agents))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "u0", request_key="s0")
    await settle(service, thread.thread_id)
    context = await service.context(thread.thread_id)
    expected = ContextPolicy((CompactionPolicy(1, 2, 8, "scripted:sum-1"),), "turn-2")
    assert context.policy == expected
    assert expected.bounded
    await service.send(thread.thread_id, "u1", request_key="s1")
    await settle(service, thread.thread_id)
    assert (await service.context(thread.thread_id)).policy == expected
    await service.send(thread.thread_id, "u2", request_key="s2")
    view = await settle(service, thread.thread_id)
    unbounded = await service.context(thread.thread_id)
    assert unbounded.policy == ContextPolicy((), view.items[-1].turn_id)
    policies = [
        data["compactors"]
        for _, kind, data in await journal(store, thread.thread_id)
        if kind == "context_policy"
    ]
    assert policies == [
        [{"max_tokens": 1, "keep_recent": 2, "recompute_every": 8, "summarizer": "scripted:sum-1"}],
        [],
    ]


async def test_a_compaction_is_journaled_started_before_its_summarizer_and_completed(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """CX3: the `compaction_started` record is committed when the summarizer is
    asked; the summary's `compaction` record completes it, with the step."""
    thread_id = ""
    seen: list[list[str]] = []

    async def summarize(request: ModelRequest) -> str:
        seen.append([kind for _, kind, _ in await journal(store, thread_id)])
        return "the user said u0"

    service = (await open_host()).thread_service(
        lambda r: compacting(FunctionProvider(lambda r: "ok"), FunctionProvider(summarize))
    )
    thread_id = (await service.create(request_key="c")).thread_id
    for n in range(2):
        await service.send(thread_id, f"u{n}", request_key=f"s{n}")
        view = await settle(service, thread_id)
    assert seen
    assert seen[0][-1] == "compaction_started"
    records = await journal(store, thread_id)
    [started] = [seq for seq, kind, _ in records if kind == "compaction_started"]
    [summary] = [data for _, kind, data in records if kind == "compaction"]
    assert summary["op"] == f"compaction-{started}"
    turn = view.items[-1].turn_id
    context = await service.context(thread_id)
    assert context.compactions == (
        CompactionOperation(f"compaction-{started}", turn, "completed", 2, str(summary["key"])),
    )


async def test_a_failed_summarizer_ends_its_operation_failed_before_the_turn_ends(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """CX3: the summarizer raises; the operation's `compaction_ended` record (state
    `failed`, the error) is committed before the turn ends failed."""

    def broken(request: ModelRequest) -> str:
        raise RuntimeError("the summarizer is down")

    service = (await open_host()).thread_service(
        lambda r: compacting(FunctionProvider(lambda r: "ok"), FunctionProvider(broken))
    )
    thread = await service.create(request_key="c")
    for n in range(2):
        await service.send(thread.thread_id, f"u{n}", request_key=f"s{n}")
        view = await settle(service, thread.thread_id)
    assert view.status == "failed"
    kinds = [kind for _, kind, _ in await journal(store, thread.thread_id)]
    assert kinds[-3:] == ["compaction_started", "compaction_ended", "turn_ended"]
    [operation] = (await service.context(thread.thread_id)).compactions
    assert operation.state == "failed"
    assert operation.error is not None
    assert "the summarizer is down" in operation.error


async def test_a_compaction_its_turn_was_cancelled_during_reads_as_interrupted(
    open_host: OpenHost, settle: Settle
) -> None:
    """CX3: a cancel while the summarizer is answering ends the turn; the operation
    it left open reads as `interrupted`, never as still started."""
    asked = asyncio.Event()

    async def never(request: ModelRequest) -> str:
        asked.set()
        await asyncio.Event().wait()
        return "unreachable"

    service = (await open_host()).thread_service(
        lambda r: compacting(FunctionProvider(lambda r: "ok"), FunctionProvider(never))
    )
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "u0", request_key="s0")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "u1", request_key="s1")
    await asyncio.wait_for(asked.wait(), 10)
    await asyncio.sleep(0.05)  # the start is committed before the summarizer is asked
    [running] = (await service.context(thread.thread_id)).compactions
    assert running.state == "started"
    await service.cancel(thread.thread_id, request_key="x")
    [stopped] = (await service.context(thread.thread_id)).compactions
    assert stopped.operation_id == running.operation_id
    assert stopped.state == "interrupted"


async def test_summaries_journaled_before_operations_existed_read_as_completed(
    open_host: OpenHost, store: ThreadStore
) -> None:
    """CX4: a journal whose `compaction` record has no `op` (written before the
    context record) folds to one completed operation, with no policy record."""
    from automata.threads._records import encode, message_data

    records = [
        encode("created", title="", parent_id=None, agent=None),
        encode(
            "input", message=message_data(Message.user("u0")), request_key="s", supplemental=False
        ),
        encode("turn_started", turn="turn-2", run=1, surface={}, fingerprint="f"),
        encode("compaction", turn="turn-2", key="cd" * 32, covered=2, summary="old"),
        encode("turn_ended", turn="turn-2", status="done", error=None),
    ]
    await store.create_thread("th_old", records)
    service = (await open_host()).thread_service(lambda r: Agent(ScriptedProvider([])))
    context = await service.context("th_old")
    assert context.policy == ContextPolicy()
    assert context.compactions == (
        CompactionOperation("compaction-4", "turn-2", "completed", 2, "cd" * 32),
    )


async def test_a_fork_starts_with_no_policy_zero_totals_and_no_operations(
    open_host: OpenHost, settle: Settle
) -> None:
    """CX1: a fork journals messages only, so its own turns make its record."""
    service = (await open_host()).thread_service(
        lambda r: compacting(ScriptedProvider([reply("a", 1), reply("b", 2)]), Summarizer(["s"]))
    )
    thread = await service.create(request_key="c")
    for n in range(2):
        await service.send(thread.thread_id, f"u{n}", request_key=f"s{n}")
        view = await settle(service, thread.thread_id)
    source = await service.context(thread.thread_id)
    assert len(source.compactions) == 1
    assert source.usage != UsageTotals()
    fork = await service.fork(thread.thread_id, view.items[-1].id, request_key="f")
    forked = await service.context(fork.thread_id)
    assert forked.thread_id == fork.thread_id
    assert (forked.policy, forked.usage, forked.compactions) == (None, UsageTotals(), ())
