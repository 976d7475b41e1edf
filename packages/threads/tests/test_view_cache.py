"""The view a host shares and folds from the last one (`ViewCache`) is the view a full
rebuild gives (`build_view`), at every journal position of recorded journals of every
kind the service writes, however many records each step folds in; and a host's fold,
taking its own commits without reading them back, is the journal's fold."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

from automata.core import Agent, Message, ModelRequest, ToolPolicy, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    AgentRequest,
    Host,
    ThreadService,
    ThreadView,
    ask_user_tool,
    require_approval,
    todo_tool,
)
from automata.threads._fold import ThreadFold
from automata.threads._records import decode, encode, message_data
from automata.threads._view import build_view
from automata.threads._view_cache import ViewCache
from automata.threads.store import Record, ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


def charge(amount: int) -> str:
    return f"charged {amount}"


def weather(city: str) -> str:
    if city == "Atlantis":
        raise ValueError("no such city")
    return f"{city}: 21C"


async def model(request: ModelRequest) -> Reply:
    """Each user message names what the model does: calls that run, an approval, a
    question (secret or not), a to-do list, a failing call, a failing model."""
    last = request.messages[-1]
    if last.role == "tool":
        return "done"
    word = last.text
    if word == "weather":
        return tool_calls(
            tool_call("w1", "weather", city="Paris"), tool_call("w2", "weather", city="Atlantis")
        )
    if word in ("pay", "overpay"):
        return tool_calls(tool_call(f"p-{word}", "charge", amount=5))
    if word in ("ask", "pin"):
        question = "Your PIN?" if word == "pin" else "Which city?"
        return tool_calls(
            tool_call(f"q-{word}", "ask_user", question=question, secret=word == "pin")
        )
    if word == "plan":
        return tool_calls(tool_call("t1", "todo", items=[{"content": "read"}]))
    if word == "fail":
        raise RuntimeError("the model broke")
    return Message.assistant(f"you said {word}")


def agent(request: AgentRequest) -> Agent[None]:
    return Agent(
        FunctionProvider(model),
        tools=[tool(weather), tool(charge), ask_user_tool(), todo_tool()],
        approver=require_approval("charge"),
        tool_policy=ToolPolicy(timeout=5),
    )


def pending_id(view: ThreadView) -> str:
    return next(
        item.interaction_id or ""
        for item in view.items
        if item.kind == "interaction" and item.status == "pending"
    )


async def recorded_journals(
    service: ThreadService, store: ThreadStore, settle: Settle
) -> list[list[Record]]:
    """Threads that went through every kind of record the service writes."""
    thread = (await service.create(request_key="c1", title="All kinds")).thread_id
    for n, word in enumerate(["hello", "weather", "plan"]):
        await service.send(thread, word, request_key=f"s{n}")
        await settle(service, thread)
    await service.send(thread, "pay", request_key="pay")
    waiting = await settle(service, thread)
    await service.respond(thread, pending_id(waiting), True, request_key="yes")
    await settle(service, thread)
    await service.send(thread, "overpay", request_key="overpay")
    waiting = await settle(service, thread)
    await service.respond(thread, pending_id(waiting), False, request_key="no", reason="too much")
    await settle(service, thread)
    for word in ("ask", "pin"):
        await service.send(thread, word, request_key=word)
        waiting = await settle(service, thread)
        await service.respond(thread, pending_id(waiting), "Rome", request_key=f"a-{word}")
        await settle(service, thread)
    await service.send(thread, "ask", request_key="ask-open")
    waiting = await settle(service, thread)
    await service.cancel(thread, request_key="cancel-open")  # an interaction left closed
    await settle(service, thread)
    await service.send(thread, "fail", request_key="fail")
    await settle(service, thread)
    await service.retry(thread, request_key="retry")
    await settle(service, thread)
    await service.send(thread, "one", request_key="q1")
    queued = await service.send(thread, "two", request_key="q2")
    await service.cancel_queued(thread, queued.queue[-1].turn_id, request_key="unqueue")
    await settle(service, thread)
    await service.set_title(thread, "Renamed", request_key="title")
    done = await settle(service, thread)
    fork = await service.fork(thread, done.items[3].id, request_key="fork")
    imported = await service.import_transcript(
        [Message.user("hi"), Message.assistant("hello")], request_key="import"
    )
    await service.send(imported.thread_id, "weather", request_key="after-import")
    await settle(service, imported.thread_id)
    journals = []
    for thread_id in (thread, fork.thread_id, imported.thread_id):
        journals.append(list(await store.read(thread_id, after=0, limit=store.max_page)))
    return journals


def rebuilt(records: list[Record]) -> ThreadView:
    fold = ThreadFold(records[0].thread_id)
    for record in records:
        fold.apply(decode(record))
    return build_view(fold)


async def test_an_incremental_view_equals_a_full_rebuild_at_every_journal_position(
    service_for: ServiceFor, store: ThreadStore, settle: Settle
) -> None:
    service = await service_for(agent)
    journals = await recorded_journals(service, store, settle)
    kinds = {record.kind for journal in journals for record in journal}
    assert {"step", "dispatched", "results", "interaction", "answer", "todos"} <= kinds
    assert {"turn_ended", "retry", "input_cancelled", "title", "message"} <= kinds
    chance = random.Random(34)
    for journal in journals:
        for chunks in (1, 2, 5):  # records folded in between two views
            fold = ThreadFold(journal[0].thread_id)
            cache = ViewCache()
            position = 0
            while position < len(journal):
                step = chance.randint(1, chunks)
                for record in journal[position : position + step]:
                    fold.apply(decode(record))
                position += step
                view = cache.view(fold)
                assert view == rebuilt(journal[:position]), (journal[position - 1].kind, position)
                assert cache.view(fold) is view  # one view per change, shared


async def test_a_cache_given_another_fold_of_the_thread_starts_over(
    service_for: ServiceFor, store: ThreadStore, settle: Settle
) -> None:
    service = await service_for(agent)
    thread = (await service.create(request_key="c")).thread_id
    await service.send(thread, "weather", request_key="s")
    await settle(service, thread)
    journal = list(await store.read(thread, after=0, limit=store.max_page))
    cache = ViewCache()
    partial = ThreadFold(thread)
    for record in journal[:4]:
        partial.apply(decode(record))
    cache.view(partial)
    whole = ThreadFold(thread)
    for record in journal:
        whole.apply(decode(record))
    assert cache.view(whole) == rebuilt(journal)


async def test_a_host_folds_its_own_commits_in_and_reads_what_others_wrote_between(
    open_host: Callable[..., Awaitable[Host]], store: ThreadStore
) -> None:
    """What a host's fold holds after its own commits (folded without a read) and
    another writer's records between them (read) is the journal's fold, in order."""
    host = await open_host()
    created = await store.create_thread("t", [encode("created", title="", parent_id=None)])
    await host.load("t")

    async def ours(text: str) -> None:
        record = encode("message", turn=None, message=message_data(Message.user(text)))
        host.committed("t", [record], await host.store.append("t", [record]))

    await ours("one")
    await ours("two")
    await store.append("t", [encode("title", title="from elsewhere")])  # not this host's
    await ours("three")
    await ours("four")
    fold = await host.load("t")
    journal = list(await store.read("t", after=0, limit=store.max_page))
    assert created.first_seq == 1
    assert fold.last_seq == len(journal) == 6
    assert build_view(fold) == rebuilt(journal)
    assert fold.title == "from elsewhere"
    assert [m.text for m in fold.transcript] == ["one", "two", "three", "four"]
