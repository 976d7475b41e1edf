"""A store that cannot be reached for a moment (`StoreUnavailableError`: its server
restarting, a connection lost during a commit) stops the runner without failing the
turn; the host's recovery resumes the turn from what the journal holds, and a failed
lease renewal is tried again. Nothing is lost and no non-idempotent effect runs twice.

The store here is a `MemoryStore` that fails one chosen call (our own code, standing in
for a PostgreSQL server that went away; extensions/postgres shows it with real ones)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

import pytest

from automata.core import Agent, ModelRequest, ToolContext, tool
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    Host,
    MemoryStore,
    StoreUnavailableError,
    ThreadView,
    idempotency_key,
)
from automata.threads.store import Commit, Lease, NewRecord, RequestClaim


class UnreachableOnce(MemoryStore):
    """Fails the first fenced append of a `step` record (the model's reply) with
    `StoreUnavailableError`: before applying it (`committed=False`) or after
    (`committed=None`: it did commit, but the caller cannot know); with `renewals`,
    fails that many lease renewals too."""

    def __init__(
        self, committed: bool | None, renewals: int = 0, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__(clock=clock)
        self.committed = committed
        self.renewals = renewals
        self.failed = False

    async def append(
        self,
        thread_id: str,
        records: Sequence[NewRecord],
        *,
        fence: Lease | None = None,
        request: RequestClaim | None = None,
        active: bool | None = None,
        summary: str | None = None,
        revoke_lease: bool = False,
        durable: bool = False,
    ) -> Commit:
        failing = not self.failed and fence is not None and any(r.kind == "step" for r in records)
        if failing:
            self.failed = True
            if self.committed is False:
                raise StoreUnavailableError("the server went away", committed=False)
        commit = await super().append(
            thread_id,
            records,
            fence=fence,
            request=request,
            active=active,
            summary=summary,
            revoke_lease=revoke_lease,
            durable=durable,
        )
        if failing:  # it committed, but the caller is not told
            raise StoreUnavailableError("the server went away", committed=None)
        return commit

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        if self.renewals:
            self.renewals -= 1
            raise StoreUnavailableError("the server went away", committed=False)
        return await super().renew(lease, ttl)


class Payments:
    """The model charges 5, then answers "paid"; `charge` counts its effects."""

    def __init__(self, *, idempotent: bool) -> None:
        self.idempotent = idempotent
        self.effects: list[str] = []
        self.model_calls = 0

    async def model(self, request: ModelRequest) -> Reply:
        self.model_calls += 1
        answered = any(
            block.type == "tool_result" for message in request.messages for block in message.content
        )
        return "paid" if answered else tool_calls(tool_call("c1", "charge", amount=5))

    async def charge(self, amount: int, context: ToolContext) -> str:
        self.effects.append(idempotency_key(context))
        return f"charged {amount}"

    def agent(self, request: object) -> Agent[None]:
        made = tool(self.charge, name="charge", idempotent=self.idempotent)
        return Agent(FunctionProvider(self.model), tools=[made])


Settle = Callable[..., Awaitable[ThreadView]]


async def run_turn(
    store: MemoryStore, payments: Payments, settled: Settle, *, lease_ttl: float = 0.6
) -> ThreadView:
    host = await Host.open(store, lease_ttl=lease_ttl, poll_interval=0.02)
    try:
        service = host.thread_service(payments.agent)
        thread = await service.create(request_key="c")
        await service.send(thread.thread_id, "pay 5", request_key="s")
        return await settled(service, thread.thread_id)
    finally:
        await host.shutdown()


def summary(view: ThreadView) -> list[list[object]]:
    return [[item.kind, item.status, item.text or item.result] for item in view.items]


async def test_a_reply_whose_commit_did_not_happen_is_asked_for_again_and_the_turn_finishes(
    settle: Settle,
) -> None:
    payments = Payments(idempotent=False)
    view = await run_turn(UnreachableOnce(committed=False), payments, settle)
    assert view.status == "done"
    assert [row[0::2] for row in summary(view)] == [
        ["user", "pay 5"],
        ["tool_call", "charged 5"],
        ["assistant", "paid"],
    ]
    assert len(payments.effects) == 1
    assert payments.model_calls == 3  # the lost reply was asked for again (at least once)


async def test_a_reply_whose_commit_outcome_was_unknown_is_resumed_from_the_journal(
    settle: Settle,
) -> None:
    """The reply did commit: recovery finds its dispatched call without an outcome and
    runs it (idempotent, with the same key) instead of asking the model again."""
    payments = Payments(idempotent=True)
    view = await run_turn(UnreachableOnce(committed=None), payments, settle)
    assert view.status == "done"
    assert summary(view)[1] == ["tool_call", "done", "charged 5"]
    assert len(payments.effects) == 1  # it had not run before the failure
    assert payments.model_calls == 2


async def test_an_unknown_commit_never_runs_a_non_idempotent_call_twice(settle: Settle) -> None:
    payments = Payments(idempotent=False)
    view = await run_turn(UnreachableOnce(committed=None), payments, settle)
    assert view.status == "effect_outcome_unknown"
    assert payments.effects == []  # fails closed: dispatched, so never run blind


@pytest.mark.looptime
async def test_failed_lease_renewals_are_tried_again_and_the_lease_is_kept(
    settle: Settle,
) -> None:
    """A renewal that fails is tried again a third of the ttl later, so the lease never
    lapses and another host watching the store never takes the turn over (which
    would ask the model again). The store's clock is the event loop's (fast-forwarded
    by looptime), so a busy machine cannot let the lease lapse."""

    class SlowPayments(Payments):
        async def model(self, request: ModelRequest) -> Reply:
            await asyncio.sleep(0.6)  # more than a ttl: renewals must go on meanwhile
            return await super().model(request)

    payments = SlowPayments(idempotent=False)
    loop = asyncio.get_running_loop()
    store = UnreachableOnce(committed=False, renewals=1, clock=loop.time)
    store.failed = True  # only the renewal fails
    watcher = await Host.open(store, lease_ttl=0.45, poll_interval=0.02)
    try:
        watcher.thread_service(payments.agent)
        view = await run_turn(store, payments, settle, lease_ttl=0.45)
    finally:
        await watcher.shutdown()
    assert view.status == "done"
    assert len(payments.effects) == 1
    assert payments.model_calls == 2
