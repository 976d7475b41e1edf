"""The host: shutdown stops admission, cancels running work, waits, and closes the
store; afterwards every call raises HostClosedError; a second shutdown is harmless."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import aclosing

import pytest

from automata.core import Agent, ModelRequest
from automata.core.testing import FunctionProvider, ScriptedProvider
from automata.threads import (
    Host,
    HostClosedError,
    StoreClosedError,
    ThreadsError,
    ThreadView,
)
from automata.threads.store import ThreadStore

OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


async def test_shutdown_cancels_running_turns_and_closes_the_store(
    open_host: OpenHost, backend: Callable[[], ThreadStore]
) -> None:
    """T20: after shutdown every call raises HostClosedError; the store is closed; the
    interrupted turn is left for another host (its lease released)."""
    entered = asyncio.Event()
    cancelled = asyncio.Event()

    async def hang(request: ModelRequest) -> str:
        entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    host = await open_host()
    service = host.thread_service(lambda r: Agent(FunctionProvider(hang)))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s")
    await asyncio.wait_for(entered.wait(), 5)
    subscription = service.subscribe(thread.thread_id)
    await anext(subscription)
    await host.shutdown()
    assert cancelled.is_set()
    assert host.closed
    with pytest.raises(StopAsyncIteration):
        await anext(subscription)
    for call in (
        service.view(thread.thread_id),
        service.send(thread.thread_id, "again", request_key="s2"),
        service.create(request_key="c2"),
        service.list(),
    ):
        with pytest.raises(HostClosedError):
            await call
    with pytest.raises(HostClosedError):
        host.thread_service(lambda r: Agent(FunctionProvider(hang)))
    await host.shutdown()  # harmless
    with pytest.raises(StoreClosedError):
        await host.store.thread(thread.thread_id)
    reopened = backend()
    await reopened.open()
    assert await reopened.claimable() == [thread.thread_id]
    await reopened.close()


async def test_a_host_resumes_what_it_finds_at_open(open_host: OpenHost, settle: Settle) -> None:
    """T1: a queued input with no runner (its host stopped before running it) is
    picked up by the next host's recovery."""
    first = await open_host()
    first_service = first.thread_service(lambda r: Agent(ScriptedProvider([])))
    thread = await first_service.create(request_key="c")
    await first.shutdown()
    second = await open_host()
    provider = ScriptedProvider(["resumed"])
    service = second.thread_service(lambda r: Agent(provider))
    await service.send(thread.thread_id, "hello", request_key="s")
    assert (await settle(service, thread.thread_id)).status == "done"


async def test_a_host_keeps_one_factory(open_host: OpenHost) -> None:
    """T1: asking for the service again with the same factory gives the same service."""
    host = await open_host()

    def factory(request: object) -> Agent[None]:
        return Agent(ScriptedProvider([]))

    service = host.thread_service(factory)
    assert host.thread_service(factory) is service
    with pytest.raises(ThreadsError):
        host.thread_service(lambda r: Agent(ScriptedProvider([])))


async def test_owner_ids_differ_per_host_unless_given(open_host: OpenHost) -> None:
    """T2: leases name their host."""
    first, second = await open_host(), await open_host()
    assert first.owner != second.owner
    assert (await open_host(owner="worker-1")).owner == "worker-1"


async def test_a_subscription_open_at_shutdown_ends(open_host: OpenHost) -> None:
    """T20: subscribers are released, not left waiting."""
    host = await open_host(poll_interval=10.0)
    service = host.thread_service(lambda r: Agent(ScriptedProvider([])))
    async with aclosing(service.subscribe_threads()) as pages:
        await anext(pages)
        waiting = asyncio.create_task(anext(pages))
        await asyncio.sleep(0.01)
        await host.shutdown()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, 2)


async def test_open_reports_the_stores_phases(backend: Callable[[], ThreadStore]) -> None:
    """T1: the store is open (and verified) when `Host.open` returns."""
    phases: list[str] = []
    host = await Host.open(backend(), progress=phases.append)
    try:
        assert phases[-1] == "verifying"
        service = host.thread_service(lambda r: Agent(ScriptedProvider([])))
        assert (await service.list()).threads == ()
    finally:
        await host.shutdown()
