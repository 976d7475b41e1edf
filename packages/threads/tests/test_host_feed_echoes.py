"""A host passes over the change feed's echoes of its own commits, which it already
told its subscribers of, and wakes them for every other id the feed names."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from automata.core import Agent
from automata.core.testing import ScriptedProvider
from automata.threads import AgentRequest, Host, MemoryStore


class Echo(str):
    """An id as a feed marks one committed through its own store."""

    __slots__ = ()

    @property
    def committed_here(self) -> bool:
        return True


class FedStore(MemoryStore):
    """A memory store with a change feed the test writes to."""

    def __init__(self) -> None:
        super().__init__()
        self.fed: asyncio.Queue[str] = asyncio.Queue()

    def changes(self) -> AsyncIterator[str]:
        async def feed() -> AsyncIterator[str]:
            while True:
                yield await self.fed.get()

        return feed()


def _factory(request: AgentRequest) -> Agent[None]:
    return Agent(ScriptedProvider([]))


async def _settled(store: FedStore) -> None:
    """Let the host's feed task take everything queued so far."""
    for _ in range(20):
        await asyncio.sleep(0)
    assert store.fed.empty()


async def test_an_echo_of_a_change_the_host_told_of_wakes_no_one() -> None:
    store = FedStore()
    host = await Host.open(store)
    try:
        host.thread_service(_factory)
        host.notify("t")  # the host's own writer committed and told its subscribers
        seen = host.change_count("t")
        store.fed.put_nowait(Echo("t"))
        await _settled(store)
        assert host.change_count("t") == seen
    finally:
        await host.shutdown()


async def test_ids_from_other_hosts_and_untold_echoes_wake_subscribers() -> None:
    store = FedStore()
    host = await Host.open(store)
    try:
        host.thread_service(_factory)
        host.notify("t")
        seen = host.change_count("t")
        store.fed.put_nowait("t")  # another host's commit: always a wake-up
        await _settled(store)
        assert host.change_count("t") == seen + 1
        store.fed.put_nowait(Echo("t"))  # the echo of the change told of above
        store.fed.put_nowait(Echo("t"))  # one more than the host told of
        await _settled(store)
        assert host.change_count("t") == seen + 2
        store.fed.put_nowait(Echo("u"))  # a thread this host never told of
        await _settled(store)
        assert host.change_count("u") == 1
    finally:
        await host.shutdown()
