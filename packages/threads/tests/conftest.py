"""Fixtures for the thread service tests: a store, hosts on it, and a helper that
waits for a thread's turns to settle."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from pathlib import Path

import pytest

from automata.threads import Host, MemoryStore, SQLiteStore, ThreadService, ThreadView
from automata.threads._agents import AgentFactory
from automata.threads.store import ThreadStore


class Clock:
    """A store clock tests move by hand (to expire leases without waiting)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


Backend = Callable[[], ThreadStore]


@pytest.fixture(params=["memory", "sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> Backend:
    """Makes store objects on one backing store: the same `MemoryStore` each time (its
    clock is `clock`), or a new `SQLiteStore` on the same file, as a second process
    would have."""
    if request.param == "memory":
        shared = MemoryStore(clock=clock)
        return lambda: shared
    path = tmp_path / "threads.db"
    return lambda: SQLiteStore(path)


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[ThreadStore]:
    """An open store on the test's backing store, for looking at the journal."""
    made = backend()
    await made.open()
    yield made
    await made.close()


OpenHost = Callable[..., Awaitable[Host]]


@pytest.fixture
async def open_host(backend: Backend, store: ThreadStore) -> AsyncIterator[OpenHost]:
    """Open hosts on the test's backing store (each a separate owner, as a second
    process would be); every host still open at the end is shut down."""
    hosts: list[Host] = []

    async def make(**options: object) -> Host:
        options.setdefault("poll_interval", 0.05)
        host = await Host.open(backend(), **options)  # type: ignore[arg-type]
        hosts.append(host)
        return host

    yield make
    for host in hosts:
        await host.shutdown()


@pytest.fixture
async def service_for(open_host: OpenHost) -> Callable[..., Awaitable[ThreadService]]:
    async def make(factory: AgentFactory, **options: object) -> ThreadService:
        host = await open_host(**options)
        return host.thread_service(factory)

    return make


async def settled(service: ThreadService, thread_id: str) -> ThreadView:
    """The thread's view once no turn runs or waits to run (within 5 seconds)."""
    async with asyncio.timeout(5.0), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if view.status != "running":
                return view
    raise AssertionError("the subscription ended before the thread settled")


@pytest.fixture
def settle() -> Callable[..., Awaitable[ThreadView]]:
    return settled
