"""Recovery of a turn whose answer was committed and whose end was not: a host stopped
right after the answer step (the last write but one of a turn) leaves nothing to run,
so the host that resumes the turn ends it `done` with that answer, calling no model;
and a turn an earlier version failed there (`Session.iter() got no task`) is ended
`done` by `retry`. (The same crash with real processes, at every write of a turn, is
in test_service_crash_points.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from automata.core import Agent
from automata.core.testing import FunctionProvider
from automata.threads import Host, ThreadService, ThreadView
from automata.threads._records import encode
from automata.threads.store import ThreadStore
from automata.threads.testing import StoreWrite, WriteTap

Backend = Callable[[], ThreadStore]
OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]

ANSWERED = [("user", "hello"), ("assistant", "hello back")]
OLD_FAILURE = (
    "InvalidArgumentError: Session.iter() got no task, and the conversation ends with an "
    "answer: there is no interrupted run to continue; pass a task"
)


def answering_agent(provider: FunctionProvider) -> Agent[None]:
    return Agent(provider, system_prompt="You answer.")


def texts(view: ThreadView) -> list[tuple[str, str | None]]:
    return [(item.kind, item.text) for item in view.items]


async def stopped_after_the_answer(
    backend: Backend, then: Callable[[ThreadStore, str], Awaitable[None]] | None = None
) -> str:
    """A host that stops (as a crash would) right after its turn's answer step was
    committed, before the turn's end (`then` is given its store and the thread id
    before it stops); the thread id."""
    answered = asyncio.Event()

    async def tapped(write: StoreWrite) -> None:
        if write.kinds == ("step",):
            answered.set()
            await asyncio.Event().wait()  # never answered: the process is gone

    tap = WriteTap(backend(), tapped)
    host = await Host.open(tap, poll_interval=0.05)
    provider = FunctionProvider(lambda request: "hello back")
    service = host.thread_service(lambda request: answering_agent(provider))
    thread = await service.create(request_key="create")
    await service.send(thread.thread_id, "hello", request_key="send")
    await asyncio.wait_for(answered.wait(), 5)
    kinds = [record.kind for record in await tap.read(thread.thread_id)]
    assert kinds == ["created", "input", "turn_started", "step"]
    if then is not None:
        await then(tap.inner, thread.thread_id)
    await host.shutdown()
    assert len(provider.requests) == 1
    return thread.thread_id


async def resumed_service(open_host: OpenHost) -> tuple[ThreadService, FunctionProvider]:
    provider = FunctionProvider(lambda request: "called again")  # the same surface
    host = await open_host()
    return host.thread_service(lambda request: answering_agent(provider)), provider


async def test_a_turn_stopped_after_its_answer_is_ended_done_with_it_and_no_model_call(
    backend: Backend, open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """T10: the journal holds the turn's answer; the resumed turn ends `done` with it,
    and the model is not called again."""
    thread_id = await stopped_after_the_answer(backend)
    service, provider = await resumed_service(open_host)
    view = await settle(service, thread_id)
    assert (view.status, view.error) == ("done", None)
    assert texts(view) == ANSWERED
    assert provider.requests == []
    kinds = [record.kind for record in await store.read(thread_id)]
    assert kinds[-2:] == ["step", "turn_ended"]
    row = await store.thread(thread_id)
    assert row is not None
    assert not row.active


async def test_retry_ends_done_a_turn_failed_after_its_answer(
    backend: Backend, open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """T10: a turn an earlier version ended `failed` after its answer was committed
    (its run was resumed with nothing to continue) is ended `done` by `retry`, with
    that answer and no model call."""

    async def failed_by_an_earlier_version(store: ThreadStore, thread_id: str) -> None:
        (asked,) = [r for r in await store.read(thread_id) if r.kind == "input"]
        ended = encode("turn_ended", turn=f"turn-{asked.seq}", status="failed", error=OLD_FAILURE)
        await store.append(thread_id, [ended], active=False)

    thread_id = await stopped_after_the_answer(backend, failed_by_an_earlier_version)
    service, provider = await resumed_service(open_host)
    before = await service.view(thread_id)
    assert before.status == "failed"
    await service.retry(thread_id, request_key="retry")
    view = await settle(service, thread_id)
    assert (view.status, view.error) == ("done", None)
    assert texts(view) == ANSWERED
    assert provider.requests == []
