"""Conformance checks of ownership and lifecycle: leases (S4), fencing (S5), active
threads and deletion (S7), failing closed (S8)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence

from automata.threads._conformance_support import (
    SHORT_TTL,
    StoreFactory,
    expect,
    notes,
    opened,
    raises,
    texts,
)
from automata.threads._errors import (
    LeaseLostError,
    SchemaError,
    StoreClosedError,
    ThreadNotFoundError,
)
from automata.threads.store import Commit, ThreadStore

__all__ = [
    "check_s4_claims_exclude_other_owners",
    "check_s4_expiry_hands_the_lease_over",
    "check_s5_fence_refuses_after_claim_by_another_owner",
    "check_s5_fence_refuses_after_revoke",
    "check_s5_release_with_if_last_seq",
    "check_s7_active_flag_and_claimable_order",
    "check_s7_an_abandoned_lease_makes_a_thread_claimable",
    "check_s7_delete_cascades_to_children",
    "check_s8_incompatible_schema_fails_closed",
    "check_s8_open_reports_progress_and_closed_store_refuses",
]


# -- S4 leases -----------------------------------------------------------------------


async def check_s4_claims_exclude_other_owners(factory: StoreFactory) -> None:
    """S4: a held lease excludes other owners; the holder's claim and `renew` keep the
    generation and push the expiry; each change of hands raises the generation."""
    rule = "S4"
    async with opened(factory) as store:
        await raises(ThreadNotFoundError, rule, "claiming no thread", store.claim("x", "a", 5))
        await store.create_thread("t", [])
        before = await store.now()
        lease = await store.claim("t", "a", 30)
        expect(lease is not None, rule, "claiming a free thread failed")
        assert lease is not None
        expect(lease.owner == "a" and lease.thread_id == "t", rule, f"lease: {lease}")
        expect(before + 29 <= lease.expires_at <= await store.now() + 31, rule, "expiry")
        expect(await store.claim("t", "b", 30) is None, rule, "a held lease was taken")
        again = await store.claim("t", "a", 60)
        expect(again is not None and again.generation == lease.generation, rule, "re-claim")
        assert again is not None
        expect(again.expires_at > lease.expires_at, rule, "re-claim did not extend")
        renewed = await store.renew(again, 90)
        expect(renewed.generation == lease.generation, rule, "renew changed the generation")
        expect(renewed.expires_at > again.expires_at, rule, "renew did not extend")
        expect(await store.release(renewed), rule, "releasing a held lease")
        taken = await store.claim("t", "b", 30)
        expect(taken is not None, rule, "a released lease could not be claimed")
        assert taken is not None
        expect(taken.generation > lease.generation, rule, "a new owner kept the generation")
        await raises(LeaseLostError, rule, "renewing a lost lease", store.renew(renewed, 30))


async def check_s4_expiry_hands_the_lease_over(factory: StoreFactory) -> None:
    """S4/S5: once a lease expires another owner claims it at a higher generation; the
    expired holder's fenced write succeeds only until then, and is refused after."""
    rule = "S4"
    async with opened(factory) as store:
        await store.create_thread("t", [], active=True)
        old = await store.claim("t", "a", SHORT_TTL)
        assert old is not None
        expect(await store.claim("t", "b", SHORT_TTL) is None, rule, "taken while held")
        expect(await store.claimable() == [], rule, "a held thread listed as claimable")
        await asyncio.sleep(SHORT_TTL * 1.5)
        expect(await store.claimable() == ["t"], rule, "an expired lease not claimable")
        expired = await store.append("t", notes("still mine"), fence=old)
        expect(expired == Commit(1, 1), rule, "expiry alone failed a fence (S5)")
        new = await store.claim("t", "b", 30)
        expect(new is not None, rule, "an expired lease could not be claimed")
        assert new is not None
        expect(new.generation == old.generation + 1, rule, f"hand-over generation: {new}")
        await raises(
            LeaseLostError, rule, "the old owner's late write", store.append("t", [], fence=old)
        )
        await raises(LeaseLostError, rule, "the old owner's renew", store.renew(old, 30))
        own = await store.claim("t", "b", SHORT_TTL)
        assert own is not None
        await asyncio.sleep(SHORT_TTL * 1.5)
        back = await store.claim("t", "b", 30)
        expect(
            back is not None and back.generation == own.generation + 1,
            rule,
            f"re-claiming one's own expired lease must raise the generation: {back}",
        )


# -- S5 fencing ----------------------------------------------------------------------


async def check_s5_fence_refuses_after_claim_by_another_owner(factory: StoreFactory) -> None:
    """S5: a fenced write by the holder commits; after a release and another owner's
    claim, the old lease's fenced write raises `LeaseLostError` and commits nothing."""
    rule = "S5"
    async with opened(factory) as store:
        await store.create_thread("t", [])
        old = await store.claim("t", "a", 30)
        assert old is not None
        ok = await store.append("t", notes("mine"), fence=old)
        expect(ok == Commit(1, 1), rule, f"the holder's fenced write: {ok}")
        await store.release(old)
        new = await store.claim("t", "b", 30)
        assert new is not None
        error = await raises(
            LeaseLostError,
            rule,
            "a write fenced by a replaced lease",
            store.append("t", notes("late"), fence=old),
        )
        assert isinstance(error, LeaseLostError)
        expect(error.generation == old.generation, rule, f"error names {error.generation}")
        expect(await texts(store, "t") == ["mine"], rule, "a refused write appended")
        ok = await store.append("t", notes("new"), fence=new)
        expect(ok == Commit(2, 2), rule, f"the new holder's write: {ok}")


async def check_s5_fence_refuses_after_revoke(factory: StoreFactory) -> None:
    """S5: `revoke_lease` ends the held lease in the revoking write's transaction: the
    holder's next fenced write and renew fail, and the next claim raises the
    generation."""
    rule = "S5"
    async with opened(factory) as store:
        await store.create_thread("t", [])
        lease = await store.claim("t", "a", 30)
        assert lease is not None
        revoked = await store.append("t", notes("cancel"), revoke_lease=True)
        expect(revoked == Commit(1, 1), rule, f"the revoking write: {revoked}")
        await raises(LeaseLostError, rule, "a revoked write", store.append("t", [], fence=lease))
        await raises(LeaseLostError, rule, "renewing a revoked lease", store.renew(lease, 30))
        expect(await store.release(lease), rule, "releasing a lost lease must return True")
        again = await store.claim("t", "a", 30)
        expect(
            again is not None and again.generation > lease.generation,
            rule,
            f"a claim after a revoke must raise the generation: {again}",
        )


async def check_s5_release_with_if_last_seq(factory: StoreFactory) -> None:
    """S5: `release(if_last_seq=n)` keeps the lease (False) when the journal moved past
    n, and gives it up (True) when it ends at n."""
    rule = "S5"
    async with opened(factory) as store:
        await store.create_thread("t", notes("a"))
        lease = await store.claim("t", "a", 30)
        assert lease is not None
        await store.append("t", notes("b"))
        kept = await store.release(lease, if_last_seq=1)
        expect(kept is False, rule, "released although the journal moved on")
        expect(await store.claim("t", "b", 30) is None, rule, "a kept lease was claimable")
        ok = await store.append("t", notes("c"), fence=lease)
        expect(ok == Commit(3, 3), rule, "a kept lease no longer fences")
        expect(await store.release(lease, if_last_seq=3) is True, rule, "release at the end")
        other = await store.claim("t", "b", 30)
        expect(other is not None, rule, "a released lease could not be claimed")
        expect(await store.release(lease, if_last_seq=0) is True, rule, "lost lease release")
        expect(await store.claim("t", "c", 30) is None, rule, "releasing a lost lease freed it")


# -- S7 active threads ---------------------------------------------------------------


async def check_s7_active_flag_and_claimable_order(factory: StoreFactory) -> None:
    """S7: writes set and clear `active`; `claimable` lists active threads with a free
    or expired lease, oldest first, up to its limit."""
    rule = "S7"
    async with opened(factory) as store:
        await store.create_thread("old", [], active=True)
        await store.create_thread("idle", [])
        await store.create_thread("mid", [], active=True)
        await store.create_thread("new", [], active=True)
        expect(await store.claimable() == ["old", "mid", "new"], rule, "claimable order")
        expect(await store.claimable(limit=2) == ["old", "mid"], rule, "claimable limit")
        await store.append("idle", [], active=True)
        await store.append("old", notes("done"), active=False)
        row = await store.thread("old")
        expect(row is not None and not row.active, rule, "active=False not kept")
        held = await store.claim("mid", "runner", 30)
        assert held is not None
        expect(await store.claimable() == ["idle", "new"], rule, "held or inactive listed")
        await store.append("new", [], summary="renamed")
        row = await store.thread("new")
        expect(row is not None and row.active, rule, "active=None changed the flag")
        expect(row is not None and row.summary == "renamed", rule, "summary not written")
        await store.release(held)
        expect(await store.claimable() == ["idle", "mid", "new"], rule, "released not listed")


async def check_s7_an_abandoned_lease_makes_a_thread_claimable(factory: StoreFactory) -> None:
    """S7: a thread whose lease expired without being released needs a runner, active
    or not (its runner died, perhaps between clearing the flag and seeing an input
    that raced it); once released it is not listed again."""
    rule = "S7"
    async with opened(factory) as store:
        await store.create_thread("t", [], active=True)
        lease = await store.claim("t", "runner", SHORT_TTL)
        assert lease is not None
        await store.append("t", notes("turn ended"), fence=lease, active=False)
        expect(await store.claimable() == [], rule, "a live lease's thread listed")
        await asyncio.sleep(SHORT_TTL * 1.5)
        expect(await store.claimable() == ["t"], rule, "an abandoned lease not listed")
        again = await store.claim("t", "recoverer", SHORT_TTL)
        assert again is not None
        await store.release(again)
        expect(await store.claimable() == [], rule, "an inactive released thread listed")


async def check_s7_delete_cascades_to_children(factory: StoreFactory) -> None:
    """S7: deleting a thread deletes its journal, lease and children recursively, and
    nothing else; an unknown thread raises `ThreadNotFoundError`."""
    rule = "S7"
    async with opened(factory) as store:
        await store.create_thread("root", notes("r"), active=True)
        await store.create_thread("child", notes("c"), parent_id="root", active=True)
        await store.create_thread("grandchild", notes("g"), parent_id="child")
        await store.create_thread("other", notes("o"), active=True)
        await store.claim("root", "runner", 30)
        await store.delete_thread("root")
        for gone in ("root", "child", "grandchild"):
            expect(await store.thread(gone) is None, rule, f"{gone} survived its parent")
            await raises(ThreadNotFoundError, rule, f"reading {gone}", store.read(gone))
        expect(await texts(store, "other") == ["o"], rule, "an unrelated thread changed")
        expect(await store.claimable() == ["other"], rule, "a deleted thread is claimable")
        expect([r.thread_id for r in await store.list_threads()] == ["other"], rule, "list")
        await raises(ThreadNotFoundError, rule, "deleting no thread", store.delete_thread("x"))
        await store.create_thread("root", notes("again"))
        expect(await texts(store, "root") == ["again"], rule, "an old journal came back")
        lease = await store.claim("root", "someone", 30)
        expect(lease is not None, rule, "a re-created thread kept the deleted lease")


# -- S8 fail closed ------------------------------------------------------------------


async def check_s8_open_reports_progress_and_closed_store_refuses(factory: StoreFactory) -> None:
    """S8: `open` reports "verifying" as its last phase; outside open..close every call
    but `now` and `close` raises `StoreClosedError`; closing twice is harmless."""
    rule = "S8"
    made = factory()
    store = await made if inspect.isawaitable(made) else made
    await raises(StoreClosedError, rule, "a call before open", store.thread("t"))
    phases: list[str] = []
    await store.open(phases.append)
    try:
        expect(phases[-1:] == ["verifying"], rule, f"open reported {phases}")
        await store.create_thread("t", notes("a"))
    finally:
        await store.close()
    await store.close()
    closed: list[tuple[str, Callable[[], Awaitable[object]]]] = [
        ("read", lambda: store.read("t")),
        ("append", lambda: store.append("t", notes("b"))),
        ("claim", lambda: store.claim("t", "a", 1)),
        ("list_threads", lambda: store.list_threads()),
    ]
    for name, call in closed:
        await raises(StoreClosedError, rule, f"{name} after close", call())
    expect(isinstance(await store.now(), float), rule, "now after close")


async def check_s8_incompatible_schema_fails_closed(
    incompatible: Sequence[Callable[[], ThreadStore]],
) -> None:
    """S8: every store `incompatible` makes (on data newer than the backend knows, not
    a threads schema, or damaged) raises `SchemaError` at `open`."""
    rule = "S8"
    for make in incompatible:
        store = make()
        try:
            await raises(SchemaError, rule, f"opening {store!r}", store.open())
        finally:
            await store.close()
