"""Recovery: a turn interrupted by a stopped host (or a lost lease) is resumed by
another host on the same store. A dispatched call without an outcome is run again only
when its tool is idempotent (with the same idempotency key); otherwise the turn ends
`effect_outcome_unknown` and the call is never replayed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

import pytest

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import (
    FunctionProvider,
    Reply,
    ScriptedProvider,
    tool_call,
    tool_calls,
)
from automata.threads import Host, MemoryStore, ThreadService, ThreadView, idempotency_key
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]


class Charges:
    """A payment tool that counts its side effects; the first call hangs (the process
    running it is about to stop)."""

    def __init__(self) -> None:
        self.effects: list[str] = []
        self.started = asyncio.Event()
        self.hang = True

    async def charge(self, amount: int, context: ToolContext) -> str:
        self.effects.append(idempotency_key(context))
        self.started.set()
        if self.hang:
            self.hang = False
            await asyncio.Event().wait()
        return f"charged {amount}"


def payment_agent(charges: Charges, replies: Sequence[Reply], *, idempotent: bool) -> Agent[None]:
    made = tool(charges.charge, name="charge", idempotent=idempotent)
    return Agent(ScriptedProvider(replies), tools=[made])


async def interrupted_mid_tool(open_host: OpenHost, charges: Charges, *, idempotent: bool) -> str:
    """A host that stops while a `charge` call runs; the thread id."""
    first = await open_host()
    script = [tool_calls(tool_call("c1", "charge", amount=5))]
    service = first.thread_service(lambda r: payment_agent(charges, script, idempotent=idempotent))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "pay 5", request_key="s")
    await asyncio.wait_for(charges.started.wait(), 5)
    await first.shutdown()
    return thread.thread_id


async def test_a_non_idempotent_call_is_never_replayed(open_host: OpenHost, settle: Settle) -> None:
    """T8: the turn ends effect_outcome_unknown; the call's result says the outcome
    is unknown; the tool ran once; the model is not called again."""
    charges = Charges()
    thread_id = await interrupted_mid_tool(open_host, charges, idempotent=False)
    provider_after = ScriptedProvider([])
    second = await open_host()

    def factory(request: object) -> Agent[None]:
        agent = payment_agent(charges, [], idempotent=False)
        agent.provider = provider_after
        return agent

    service = second.thread_service(factory)
    view = await settle(service, thread_id)
    assert view.status == "effect_outcome_unknown"
    call = next(item for item in view.items if item.kind == "tool_call")
    assert call.status == "error"
    assert call.result is not None
    assert call.result.startswith("outcome unknown")
    assert len(charges.effects) == 1
    assert provider_after.requests == []


async def test_an_idempotent_call_runs_again_with_the_same_key(
    open_host: OpenHost, settle: Settle
) -> None:
    """T9: the call runs again with the same idempotency key, then the turn goes on."""
    charges = Charges()
    thread_id = await interrupted_mid_tool(open_host, charges, idempotent=True)
    second = await open_host()
    service = second.thread_service(lambda r: payment_agent(charges, ["paid"], idempotent=True))
    view = await settle(service, thread_id)
    assert view.status == "done"
    assert [item.text for item in view.items if item.kind == "assistant"] == ["paid"]
    assert len(charges.effects) == 2
    assert charges.effects[0] == charges.effects[1] == f"{thread_id}/turn-2/c1"


async def test_a_turn_stopped_mid_provider_call_calls_the_provider_again(
    open_host: OpenHost, settle: Settle
) -> None:
    """T10: model calls are at least once: the interrupted call is made again."""
    entered = asyncio.Event()

    async def hang(request: ModelRequest) -> str:
        entered.set()
        await asyncio.Event().wait()
        return "never"

    first = await open_host()
    service = first.thread_service(lambda r: Agent(FunctionProvider(hang)))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s")
    await asyncio.wait_for(entered.wait(), 5)
    await first.shutdown()
    second = await open_host()
    provider = FunctionProvider(lambda request: "hello back")  # the same surface
    resumed = second.thread_service(lambda r: Agent(provider))
    view = await settle(resumed, thread.thread_id)
    assert [(item.kind, item.text) for item in view.items] == [
        ("user", "hello"),
        ("assistant", "hello back"),
    ]
    assert len(provider.requests) == 1


async def test_after_lease_expiry_another_host_takes_over_and_late_writes_are_refused(
    open_host: OpenHost,
    settle: Settle,
    store: ThreadStore,
    clock: object,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """T2: a host whose lease expired and was taken over stops with LeaseLostError;
    what its run produces afterwards never reaches the journal."""
    if not isinstance(store, MemoryStore):
        pytest.skip("expires the lease by moving the store's clock (crash tests do it for real)")
    release = asyncio.Event()
    started = asyncio.Event()
    runs: list[str] = []

    async def slow(step: int) -> str:
        runs.append("ran")
        started.set()
        await release.wait()
        return "late"

    def factory(request: object) -> Agent[None]:
        script: list[Reply] = [tool_calls(tool_call("c1", "slow", step=1)), "never"]
        return Agent(ScriptedProvider(script), tools=[tool(slow)])

    first = await open_host(lease_ttl=30.0)
    service = first.thread_service(factory)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    await asyncio.wait_for(started.wait(), 5)
    clock.now += 60  # type: ignore[attr-defined]
    second = await open_host(lease_ttl=30.0)
    taken = await settle(second.thread_service(factory), thread.thread_id)
    assert taken.status == "effect_outcome_unknown"
    journal = len(await store.read(thread.thread_id))
    with caplog.at_level(logging.WARNING, logger="automata.threads"):
        release.set()
        for _ in range(50):
            if "lost its lease" in caplog.text:
                break
            await asyncio.sleep(0.01)
    assert "lost its lease" in caplog.text
    assert len(await store.read(thread.thread_id)) == journal
    assert runs == ["ran"]


async def test_a_live_runner_renews_its_lease_so_no_other_host_takes_over(
    settle: Settle,
) -> None:
    """T2: a turn longer than the lease ttl keeps its runner: renewals every third of
    the ttl, so another host's recovery finds nothing to claim."""
    store = MemoryStore()  # the real clock
    runs: list[str] = []

    async def slow(step: int) -> str:
        runs.append("ran")
        await asyncio.sleep(1.0)
        return "slow result"

    def factory(request: object) -> Agent[None]:
        script: list[Reply] = [tool_calls(tool_call("c1", "slow", step=1)), "finished"]
        return Agent(ScriptedProvider(script), tools=[tool(slow)])

    first = await Host.open(store, lease_ttl=0.3, poll_interval=0.02)
    second = await Host.open(store, lease_ttl=0.3, recovery_interval=0.02)
    try:
        service = first.thread_service(factory)
        second.thread_service(factory)
        thread = await service.create(request_key="c")
        await service.send(thread.thread_id, "go", request_key="s")
        done = await settle(service, thread.thread_id)
    finally:
        await second.shutdown()
        await first.shutdown()
    assert done.status == "done"
    assert runs == ["ran"]


async def test_two_hosts_kicking_one_thread_run_each_step_once(
    open_host: OpenHost, settle: Settle
) -> None:
    """T2: hosts racing for a thread: one runner at a time, each step run once."""
    runs: list[str] = []

    def lookup(key: str) -> str:
        runs.append(key)
        return key

    script: list[Reply] = [
        tool_calls(tool_call("c1", "lookup", key="a")),
        tool_calls(tool_call("c2", "lookup", key="b")),
        "done",
    ]
    provider = ScriptedProvider(script)

    def factory(request: object) -> Agent[None]:
        return Agent(provider, tools=[tool(lookup)])

    first = (await open_host(recovery_interval=0.01)).thread_service(factory)
    second = (await open_host(recovery_interval=0.01)).thread_service(factory)
    thread = await first.create(request_key="c")
    await first.send(thread.thread_id, "go", request_key="s")
    await second.send(thread.thread_id, "go", request_key="s")  # a duplicate, kicked there
    done = await settle(second, thread.thread_id)
    assert done.status == "done"
    assert runs == ["a", "b"]
    assert len(provider.requests) == 3
