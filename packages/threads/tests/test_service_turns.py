"""Turns: send commits before the model is called and returns at once; a send while a
turn runs is queued; cancel commits the cancelled turn and fences the run's late
output; retry runs a failed turn again with the surface it started with."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from automata.core import Agent, Approval, Message, ModelRequest, ModelRetry, tool
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls
from automata.threads import AgentRequest, ItemNotFoundError, ThreadService, ThreadView
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


class Gate:
    """A provider that answers only when let through, one reply per opening."""

    def __init__(self) -> None:
        self.calls = 0
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()

    async def reply(self, request: ModelRequest) -> str:
        self.calls += 1
        self.entered.set()
        await self.opened.wait()
        self.opened.clear()
        return f"answer {self.calls}"


async def test_send_commits_the_input_and_returns_before_the_model_answers(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """T4: the user's item is in the view (and the journal) while the model is still
    being called."""
    gate = Gate()
    service = await service_for(lambda request: Agent(FunctionProvider(gate.reply)))
    thread = await service.create(request_key="c")
    view = await service.send(thread.thread_id, "hello", request_key="s")
    assert view.status == "running"
    assert [(item.kind, item.text) for item in view.items] == [("user", "hello")]
    records = await store.read(thread.thread_id)
    assert [r.kind for r in records][-1] == "input"
    await asyncio.wait_for(gate.entered.wait(), 5)
    gate.opened.set()
    done = await settle(service, thread.thread_id)
    assert [(item.kind, item.text) for item in done.items] == [
        ("user", "hello"),
        ("assistant", "answer 1"),
    ]


async def test_a_send_while_a_turn_runs_is_queued_and_runs_next(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T5: the queue is visible; queued inputs run in order after the turn; a queued
    input can be taken off the queue."""
    gate = Gate()
    service = await service_for(lambda request: Agent(FunctionProvider(gate.reply)))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "first", request_key="s1")
    await asyncio.wait_for(gate.entered.wait(), 5)
    await service.send(thread.thread_id, "second", request_key="s2")
    view = await service.send(thread.thread_id, "third", request_key="s3")
    assert [queued.text for queued in view.queue] == ["second", "third"]
    view = await service.cancel_queued(
        thread.thread_id, view.queue[1].turn_id, request_key="drop-third"
    )
    assert [queued.text for queued in view.queue] == ["second"]
    with pytest.raises(ItemNotFoundError):
        await service.cancel_queued(thread.thread_id, "turn-999", request_key="drop-none")
    for _ in range(2):
        gate.opened.set()
        await asyncio.sleep(0.01)
    done = await settle(service, thread.thread_id)
    assert [(item.kind, item.text) for item in done.items] == [
        ("user", "first"),
        ("assistant", "answer 1"),
        ("user", "second"),
        ("assistant", "answer 2"),
    ]
    assert done.queue == ()


async def test_cancel_commits_the_turn_and_fences_the_late_tool_result(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """T6: cancel returns after the cancelled turn is committed; the running call gets
    the error result `cancelled`; what the run does afterwards never reaches the
    journal; the queued input runs next."""
    release = asyncio.Event()
    started = asyncio.Event()

    async def slow(step: int) -> str:
        started.set()
        await release.wait()
        return "late"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "slow", step=1)), "queued answer"])
    agent = Agent(provider, tools=[tool(slow)])
    service = await service_for(lambda request: agent)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s1")
    await asyncio.wait_for(started.wait(), 5)
    await service.send(thread.thread_id, "next", request_key="s2")
    view = await service.cancel(thread.thread_id, request_key="x")
    call = next(item for item in view.items if item.kind == "tool_call")
    assert (call.status, call.result) == ("error", "cancelled")
    release.set()
    done = await settle(service, thread.thread_id)
    kinds = [r.kind for r in await store.read(thread.thread_id)]
    assert kinds.count("results") == 1  # the cancel's, never the late one
    assert [(item.kind, item.text) for item in done.items][-2:] == [
        ("user", "next"),
        ("assistant", "queued answer"),
    ]
    again = await service.cancel(thread.thread_id, request_key="x")
    assert again.version == done.version


async def test_cancel_of_an_idle_thread_commits_nothing_but_the_key(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    """T6: cancel is idempotent for every known thread."""
    service = await service_for(lambda request: Agent(ScriptedProvider([])))
    thread = await service.create(request_key="c")
    view = await service.cancel(thread.thread_id, request_key="x")
    assert view.status == "idle"
    assert len(await store.read(thread.thread_id)) == 1


async def test_supplemental_context_reaches_the_model_but_not_the_journal(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """T13: supplemental context is in every request of its turn, never in a record."""
    provider = ScriptedProvider(["noted"])
    service = await service_for(lambda request: Agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s", supplemental="SECRET-CONTEXT-42")
    await settle(service, thread.thread_id)
    assert "SECRET-CONTEXT-42" in str(provider.requests[0].messages)
    assert all("SECRET-CONTEXT-42" not in r.data for r in await store.read(thread.thread_id))
    history = await service.history(thread.thread_id)
    assert all("SECRET" not in str(entry.message) for entry in history.entries)


async def test_a_call_to_a_tool_that_no_longer_exists_gets_an_error_result(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T12: the turn goes on; the model sees an ordinary error result."""
    provider = ScriptedProvider([tool_calls(tool_call("c1", "gone")), "ok"])
    service = await service_for(lambda request: Agent(provider))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s")
    done = await settle(service, thread.thread_id)
    call = next(item for item in done.items if item.kind == "tool_call")
    assert call.status == "error"
    assert call.result is not None
    assert call.result.startswith('tool not found: "gone"')
    assert done.status == "done"


async def test_a_retry_with_another_agent_surface_fails_the_turn_clearly(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T11: a turn keeps the surface it started with; a factory that now gives another
    one fails the turn rather than running it on a different agent."""
    prompts = iter(["You are A.", "You are B."])

    def factory(request: AgentRequest) -> Agent[None]:
        return Agent(ScriptedProvider([RuntimeError("down")]), system_prompt=next(prompts))

    service = await service_for(factory)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "hello", request_key="s")
    assert (await settle(service, thread.thread_id)).status == "failed"
    await service.retry(thread.thread_id, request_key="r")
    failed = await settle(service, thread.thread_id)
    assert failed.status == "failed"
    assert failed.error is not None
    assert "surface" in failed.error


async def test_each_turn_asks_the_factory_with_its_thread_and_turn(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T11: the factory chooses an agent per new turn."""
    asked: list[AgentRequest] = []

    def factory(request: AgentRequest) -> Agent[None]:
        asked.append(request)
        return Agent(ScriptedProvider([Message.assistant(f"for {request.turn_id}")]))

    service = await service_for(factory)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "one", request_key="s1")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "two", request_key="s2")
    done = await settle(service, thread.thread_id)
    turns = [request.turn_id for request in asked]
    assert len(set(turns)) == 2
    assert all(request.thread_id == thread.thread_id for request in asked)
    assert [item.text for item in done.items if item.kind == "assistant"] == [
        f"for {turn}" for turn in turns
    ]


async def test_a_failed_run_is_journaled_whole_and_retry_goes_on_from_there(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T7: an aborted batch's results are journaled (every call has one); retry
    continues the turn from them."""
    aborts = iter([True, False])

    def approver(call: object, context: object) -> Approval:
        if next(aborts):
            raise RuntimeError("approval service down")
        return Approval.allow()

    def lookup(key: str) -> str:
        return key.upper()

    provider = ScriptedProvider([tool_calls(tool_call("c1", "lookup", key="a")), "after retry"])
    agent = Agent(provider, tools=[tool(lookup)], approver=approver)
    service = await service_for(lambda r: agent)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    failed = await settle(service, thread.thread_id)
    assert failed.status == "failed"
    assert failed.error is not None
    assert "approval service down" in failed.error
    call = next(item for item in failed.items if item.kind == "tool_call")
    assert call.status == "error"
    assert call.result is not None
    assert call.result.startswith("aborted")
    await service.retry(thread.thread_id, request_key="r")
    done = await settle(service, thread.thread_id)
    assert done.status == "done"
    assert [item.text for item in done.items if item.kind == "assistant"] == ["after retry"]
    history = await service.history(thread.thread_id)
    assert [entry.message.role for entry in history.entries] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


async def test_cancel_before_the_turn_starts_ends_it_and_the_queue_goes_on(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T6: an accepted input whose turn has not started yet is cancelled too; the
    model never sees it."""
    gate = Gate()
    hold = asyncio.Event()

    async def factory(request: AgentRequest) -> Agent[None]:
        await hold.wait()  # the turn cannot start before the cancel
        return Agent(FunctionProvider(gate.reply))

    service = await service_for(factory)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "first", request_key="s1")
    await service.send(thread.thread_id, "second", request_key="s2")
    view = await service.cancel(thread.thread_id, request_key="x")
    assert [queued.text for queued in view.queue] == []
    hold.set()
    gate.opened.set()
    done = await settle(service, thread.thread_id)
    assert [(item.kind, item.text) for item in done.items] == [
        ("user", "second"),
        ("assistant", "answer 1"),
    ]
    assert gate.calls == 1


async def test_a_validators_correction_is_journaled_between_the_two_answers(
    service_for: ServiceFor, settle: Settle
) -> None:
    """T7: every message the run committed is journaled, the correction an output
    validator asks for (core rule L94) too, so the thread's transcript never holds two
    assistant messages in a row."""
    attempts: list[str] = []

    def not_first(ctx: object, text: str) -> str:
        attempts.append(text)
        if len(attempts) == 1:
            raise ModelRetry("say it again, in capitals")
        return text

    agent = Agent(ScriptedProvider(["hello", "HELLO"]))
    agent.output_validator(not_first)
    service = await service_for(lambda r: agent)
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "greet", request_key="s")
    done = await settle(service, thread.thread_id)
    assert done.status == "done"
    history = await service.history(thread.thread_id)
    assert [(entry.message.role, entry.message.text) for entry in history.entries] == [
        ("user", "greet"),
        ("assistant", "hello"),
        ("user", "say it again, in capitals"),
        ("assistant", "HELLO"),
    ]
