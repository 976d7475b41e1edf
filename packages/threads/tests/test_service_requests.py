"""Request keys: the same key with the same input answers from what was committed
(no model call, no tool call); the same key with other input is a conflict."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from automata.core import Agent, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import (
    RequestConflictError,
    ThreadService,
    ThreadStateError,
    ThreadView,
)
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


async def test_a_duplicate_send_runs_the_turn_once(service_for: ServiceFor, settle: Settle) -> None:
    """T3: the second send with the same key calls no model and no tool."""
    effects: list[int] = []

    def charge(amount: int) -> str:
        effects.append(amount)
        return "charged"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "paid"])
    agent = Agent(provider, tools=[tool(charge)])
    service = await service_for(lambda request: agent)
    thread = await service.create(request_key="create-1")
    await service.send(thread.thread_id, "pay 5", request_key="send-1")
    first = await settle(service, thread.thread_id)
    again = await service.send(thread.thread_id, "pay 5", request_key="send-1")
    assert again.items == first.items
    assert again.queue == ()
    assert (await settle(service, thread.thread_id)).version == first.version
    assert effects == [5]
    assert len(provider.requests) == 2


async def test_a_send_reusing_a_key_with_other_input_is_a_conflict(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """T3: a conflicting request commits nothing."""
    service = await service_for(lambda request: Agent(ScriptedProvider(["hi"])))
    thread = await service.create(request_key="create-1")
    await service.send(thread.thread_id, "hello", request_key="send-1")
    done = await settle(service, thread.thread_id)
    with pytest.raises(RequestConflictError, match="send-1"):
        await service.send(thread.thread_id, "something else", request_key="send-1")
    with pytest.raises(RequestConflictError):
        await service.set_title(thread.thread_id, "x", request_key="send-1")
    row = await store.thread(thread.thread_id)
    assert row is not None
    assert row.last_seq == done.version


async def test_a_duplicate_create_returns_the_same_thread(service_for: ServiceFor) -> None:
    """T3: create answers a duplicate with the thread it made."""
    service = await service_for(lambda request: Agent(ScriptedProvider([])))
    first = await service.create(request_key="create-1", title="Trip")
    second = await service.create(request_key="create-1", title="Trip")
    assert second.thread_id == first.thread_id
    assert len((await service.list()).threads) == 1
    with pytest.raises(RequestConflictError):
        await service.create(request_key="create-1", title="Other")


async def test_a_duplicate_cancel_and_retry_change_nothing(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T3: cancel and retry answer a duplicate from the journal."""
    provider = ScriptedProvider([RuntimeError("provider down"), "recovered"])
    service = await service_for(lambda request: Agent(provider))
    thread = await service.create(request_key="create-1")
    await service.send(thread.thread_id, "hello", request_key="send-1")
    failed = await settle(service, thread.thread_id)
    assert failed.status == "failed"
    await service.retry(thread.thread_id, request_key="retry-1")
    retried = await settle(service, thread.thread_id)
    assert retried.status == "done"
    assert (await service.retry(thread.thread_id, request_key="retry-1")).version == retried.version
    with pytest.raises(ThreadStateError):
        await service.retry(thread.thread_id, request_key="retry-2")
    cancelled = await service.cancel(thread.thread_id, request_key="cancel-1")
    again = await service.cancel(thread.thread_id, request_key="cancel-1")
    assert again.version == cancelled.version
    assert len(provider.requests) == 2
