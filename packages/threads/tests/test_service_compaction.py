"""Compaction records: a summary a turn's compactor writes is journaled, and a turn run
by another host (a restart, another process) reuses it instead of asking the
summarizer again, sending the model the same request prefix (docs/threads.md, T25)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from automata.core import Agent, Compactor, Message, ModelRequest, TextBlock
from automata.core.testing import FunctionProvider, ScriptedProvider
from automata.threads import Host, ThreadView
from automata.threads.store import ThreadStore

OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


def echo(request: ModelRequest) -> str:
    return f"re {request.messages[-1].text}"


def compacting(model: FunctionProvider, summarizer: ScriptedProvider) -> Agent:
    """An agent whose requests are compacted from the second turn on (two messages kept
    verbatim), its summary reused for the next turns (recompute_every=8)."""
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=2)
    return Agent(model, system_prompt="sys", hooks=[compactor])


async def compaction_records(store: ThreadStore, thread_id: str) -> list[dict[str, object]]:
    records = await store.read(thread_id)
    return [json.loads(r.data) for r in records if r.kind == "compaction"]


def summary_text(request: ModelRequest) -> str:
    block = request.messages[1].content[0]
    assert isinstance(block, TextBlock)
    return block.text


async def test_a_summary_is_journaled_and_reused_by_a_new_host_without_the_summarizer(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """T25: the compaction record holds the turn, key, coverage and text; the view
    counts it; a new host whose compactor has no summary to give (its summarizer has
    no reply) runs the next turn from the journaled summary: the summarizer is never
    called and the model gets the same summary and the same request prefix."""
    first_model = FunctionProvider(echo)
    first_summarizer = ScriptedProvider(["the user counted u0"])
    first = await open_host()
    service = first.thread_service(lambda request: compacting(first_model, first_summarizer))
    thread = await service.create(request_key="c")
    for n in range(2):
        await service.send(thread.thread_id, f"u{n}", request_key=f"s{n}")
        view = await settle(service, thread.thread_id)
        assert view.status == "done"
    assert len(first_summarizer.requests) == 1
    turn = view.items[-1].turn_id  # the second turn's
    (record,) = await compaction_records(store, thread.thread_id)
    assert record["v"] == 1
    assert record["turn"] == turn
    assert record["covered"] == 2  # the system message and u0
    assert record["summary"] == "the user counted u0"
    key = record["key"]
    assert isinstance(key, str)
    assert len(bytes.fromhex(key)) == 32
    assert (view.compactions, view.compacted) == (1, 2)
    assert view.to_dict()["compactions"] == 1
    compacted_before = first_model.requests[-1]
    await first.shutdown()

    second_model = FunctionProvider(echo)
    silent = ScriptedProvider([])  # a call to it would fail the turn
    second = await open_host()
    service = second.thread_service(lambda request: compacting(second_model, silent))
    await service.send(thread.thread_id, "u2", request_key="s2")
    view = await settle(service, thread.thread_id)
    assert view.status == "done", view.error
    assert silent.requests == []
    (sent,) = second_model.requests
    assert summary_text(sent).endswith("the user counted u0")
    # the request the first host sent is, byte for byte, the prefix of this one
    prefix = sent.messages[: len(compacted_before.messages)]
    assert [m.model_dump_json() for m in prefix] == [
        m.model_dump_json() for m in compacted_before.messages
    ]
    assert len(await compaction_records(store, thread.thread_id)) == 1
    assert (view.compactions, view.compacted) == (1, 2)


async def test_a_summary_written_before_a_failed_call_is_journaled_before_the_turn_ends(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """T25: the model call a summary was written for fails; the summary is still
    journaled (the turn's later retry reuses it), then the turn ends failed."""
    calls = 0

    def second_call_fails(request: ModelRequest) -> str:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("the model is down")
        return echo(request)

    summarizer = ScriptedProvider(["about u0"])
    host = await open_host()
    service = host.thread_service(
        lambda request: compacting(FunctionProvider(second_call_fails), summarizer)
    )
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "u0", request_key="s0")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "u1", request_key="s1")
    view = await settle(service, thread.thread_id)
    assert view.status == "failed"
    records = await store.read(thread.thread_id)
    kinds = [r.kind for r in records]
    assert kinds.index("compaction") < len(kinds) - 1
    assert kinds[-1] == "turn_ended"
    assert [r["summary"] for r in await compaction_records(store, thread.thread_id)] == ["about u0"]
    await service.retry(thread.thread_id, request_key="r")
    view = await settle(service, thread.thread_id)
    assert view.status == "done", view.error
    assert len(summarizer.requests) == 1


async def test_forks_and_imports_start_without_compaction_records(
    open_host: OpenHost, settle: Settle
) -> None:
    """T25: a fork or an import journals messages only; its own turns compact anew."""
    host = await open_host()
    service = host.thread_service(
        lambda request: compacting(FunctionProvider(echo), ScriptedProvider(["s"] * 4))
    )
    thread = await service.create(request_key="c")
    for n in range(2):
        await service.send(thread.thread_id, f"u{n}", request_key=f"s{n}")
        view = await settle(service, thread.thread_id)
    assert view.compactions == 1
    fork = await service.fork(thread.thread_id, view.items[-1].id, request_key="f")
    assert (fork.compactions, fork.compacted) == (0, 0)
    imported = await service.import_transcript(
        [Message.user("u0"), Message.assistant("re u0")], request_key="i"
    )
    assert imported.compactions == 0
