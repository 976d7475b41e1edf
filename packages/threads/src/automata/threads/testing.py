"""A reusable conformance suite for `ThreadStore` backends.

Every backend (the memory and SQLite stores, yours) proves from its own tests that it
keeps the storage contract S1-S8 of `automata.threads.store`. Each check is named after
the rule it pins (`check_s3_...`), takes a factory that makes a fresh, unopened store,
opens it, checks, and closes it.

Use the check functions directly, `run_store_conformance` for all of them, or subclass
`StoreConformance` in a pytest module (it collects as a test class when your subclass
is named `Test...`; async tests must be enabled, e.g. pytest-asyncio in auto mode).
Nothing here imports pytest: failures raise `StoreConformanceError`, an
`AssertionError`, so any runner reports them.

Some checks wait for real leases to expire (`SHORT_TTL` seconds), so the whole suite
takes a few seconds.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from automata.threads._errors import (
    LeaseLostError,
    PageBoundError,
    RequestConflictError,
    SchemaError,
    StoreClosedError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from automata.threads.store import Commit, NewRecord, RequestClaim, ThreadStore

__all__ = [
    "ALL_CHECKS",
    "CONCURRENT_WRITERS",
    "SHORT_TTL",
    "StoreConformance",
    "StoreConformanceError",
    "StoreFactory",
    "check_s1_a_failed_write_commits_nothing",
    "check_s1_create_commits_thread_and_records_together",
    "check_s2_concurrent_appends_get_consecutive_seqs",
    "check_s2_journal_is_ordered_and_paged_without_gaps",
    "check_s3_duplicate_and_conflicting_appends",
    "check_s3_duplicate_and_conflicting_creates",
    "check_s3_keys_outlive_deleted_threads",
    "check_s4_claims_exclude_other_owners",
    "check_s4_expiry_hands_the_lease_over",
    "check_s5_fence_refuses_after_claim_by_another_owner",
    "check_s5_fence_refuses_after_revoke",
    "check_s5_release_with_if_last_seq",
    "check_s6_pages_are_bounded",
    "check_s6_thread_list_pages_newest_first",
    "check_s7_active_flag_and_claimable_order",
    "check_s7_delete_cascades_to_children",
    "check_s8_incompatible_schema_fails_closed",
    "check_s8_open_reports_progress_and_closed_store_refuses",
    "run_store_conformance",
]

StoreFactory = Callable[[], ThreadStore | Awaitable[ThreadStore]]
"""Makes a fresh, unopened store for one check. Stores a factory makes may share their
data (two SQLite stores on one file) only when a check asks for a second one."""

SHORT_TTL = 0.2
"""The lease ttl (seconds) of the checks that wait for a lease to expire."""

CONCURRENT_WRITERS = 40
"""How many tasks `check_s2_concurrent_appends_get_consecutive_seqs` runs at once."""


class StoreConformanceError(AssertionError):
    """A store broke the storage contract; the message names the rule and how."""


def _expect(condition: bool, rule: str, message: str) -> None:
    if not condition:
        raise StoreConformanceError(f"{rule}: {message}")


async def _raises(
    error: type[BaseException], rule: str, what: str, call: Awaitable[object]
) -> BaseException:
    try:
        result = await call
    except error as raised:
        return raised
    raise StoreConformanceError(f"{rule}: {what} should raise {error.__name__}, got {result!r}")


@asynccontextmanager
async def _opened(factory: StoreFactory) -> AsyncIterator[ThreadStore]:
    made = factory()
    store = await made if inspect.isawaitable(made) else made
    await store.open()
    try:
        yield store
    finally:
        await store.close()


def _records(*texts: str) -> list[NewRecord]:
    return [NewRecord("note", text) for text in texts]


def _claim(key: str, fingerprint: str = "f", outcome: str = "done") -> RequestClaim:
    return RequestClaim(key, fingerprint, outcome)


async def _texts(store: ThreadStore, thread_id: str) -> list[str]:
    return [record.data for record in await store.read(thread_id)]


# -- S1 atomic commits --------------------------------------------------------------


async def check_s1_create_commits_thread_and_records_together(factory: StoreFactory) -> None:
    """S1: a created thread comes with all its first records, summary and flags; a
    create that fails (id taken, unknown parent) leaves no trace, not even its key."""
    rule = "S1"
    async with _opened(factory) as store:
        commit = await store.create_thread("t", _records("a", "b", "c"), summary="s", active=True)
        _expect(commit == Commit(1, 3), rule, f"create of 3 records committed {commit}")
        row = await store.thread("t")
        _expect(row is not None and row.last_seq == 3, rule, f"row after create: {row}")
        assert row is not None
        _expect(row.summary == "s" and row.active, rule, f"summary/active not kept: {row}")
        _expect(row.parent_id is None, rule, f"a top-level thread has a parent: {row}")
        _expect(await _texts(store, "t") == ["a", "b", "c"], rule, "records not all committed")
        await _raises(
            ThreadExistsError,
            rule,
            "creating a taken id",
            store.create_thread("t", _records("x"), request=_claim("k1")),
        )
        await _raises(
            ThreadNotFoundError,
            rule,
            "creating under an unknown parent",
            store.create_thread("u", _records("x"), parent_id="nope", request=_claim("k2")),
        )
        _expect(await store.thread("u") is None, rule, "a failed create left a thread")
        fresh = await store.create_thread("v", _records("x"), request=_claim("k1"))
        _expect(not fresh.duplicate, rule, "a failed create stored its request key")
        _expect(await _texts(store, "t") == ["a", "b", "c"], rule, "a failed create wrote")


async def check_s1_a_failed_write_commits_nothing(factory: StoreFactory) -> None:
    """S1: an append refused by its fence commits none of its records, summary, active
    flag, lease revoke or request key."""
    rule = "S1"
    async with _opened(factory) as store:
        await store.create_thread("t", _records("a"), summary="before")
        old = await store.claim("t", "first", 30)
        assert old is not None
        new = await store.claim("t", "first", 30)
        _expect(new is not None and new.generation == old.generation, rule, "renewal claim")
        await store.append("t", [], revoke_lease=True)
        current = await store.claim("t", "second", 30)
        _expect(current is not None, rule, "claim after revoke failed")
        assert current is not None
        await _raises(
            LeaseLostError,
            rule,
            "a write fenced by a lost lease",
            store.append(
                "t",
                _records("late"),
                fence=old,
                request=_claim("late-key"),
                active=True,
                summary="after",
                revoke_lease=True,
            ),
        )
        row = await store.thread("t")
        assert row is not None
        _expect(row.last_seq == 1 and row.summary == "before", rule, f"partial write: {row}")
        _expect(not row.active, rule, "a refused write set the active flag")
        again = await store.append("t", _records("ok"), fence=current, request=_claim("late-key"))
        _expect(not again.duplicate, rule, "a refused write stored its request key")
        _expect(again == Commit(2, 2), rule, f"a refused write revoked the lease: {again}")


# -- S2 ordered journal ---------------------------------------------------------------


async def check_s2_journal_is_ordered_and_paged_without_gaps(factory: StoreFactory) -> None:
    """S2: seqs run 1, 2, 3... in commit order across appends; `read(after=, limit=)`
    pages through them without gaps; commit times never go backwards."""
    rule = "S2"
    async with _opened(factory) as store:
        await store.create_thread("t", [])
        row = await store.thread("t")
        _expect(row is not None and row.last_seq == 0, rule, f"an empty thread: {row}")
        _expect(await store.read("t") == [], rule, "an empty journal reads as records")
        expected = [str(n) for n in range(1, 26)]
        for start in range(0, 25, 5):
            commit = await store.append("t", _records(*expected[start : start + 5]))
            _expect(commit == Commit(start + 1, start + 5), rule, f"append gave {commit}")
        empty = await store.append("t", [])
        _expect(empty == Commit(0, 0), rule, f"an empty append gave {empty}")
        records = await store.read("t")
        _expect([r.seq for r in records] == list(range(1, 26)), rule, "seqs not 1..n")
        _expect([r.data for r in records] == expected, rule, "records out of commit order")
        _expect(all(r.thread_id == "t" and r.kind == "note" for r in records), rule, "fields")
        times = [r.at for r in records]
        _expect(times == sorted(times), rule, "commit times go backwards")
        paged: list[int] = []
        after = 0
        while page := await store.read("t", after=after, limit=7):
            paged.extend(r.seq for r in page)
            after = page[-1].seq
        _expect(paged == list(range(1, 26)), rule, f"paging read {paged}")
        _expect(await store.read("t", after=25) == [], rule, "reading past the end")
        row = await store.thread("t")
        _expect(row is not None and row.last_seq == 25, rule, f"last_seq: {row}")


async def check_s2_concurrent_appends_get_consecutive_seqs(factory: StoreFactory) -> None:
    """S2: many tasks appending at once each get one consecutive run of seqs; together
    the runs cover 1..n exactly once."""
    rule = "S2"
    async with _opened(factory) as store:
        await store.create_thread("t", [])

        async def writer(n: int) -> Commit:
            return await store.append("t", _records(f"{n}.a", f"{n}.b"))

        commits = await asyncio.gather(*(writer(n) for n in range(CONCURRENT_WRITERS)))
        total = 2 * CONCURRENT_WRITERS
        seqs = sorted(s for c in commits for s in (c.first_seq, c.last_seq))
        _expect(seqs == list(range(1, total + 1)), rule, f"commit ranges overlap: {commits}")
        records = []
        after = 0
        while page := await store.read("t", after=after, limit=30):
            records.extend(page)
            after = page[-1].seq
        _expect([r.seq for r in records] == list(range(1, total + 1)), rule, "gaps or repeats")
        for n, commit in enumerate(commits):
            mine = [r.data for r in records[commit.first_seq - 1 : commit.last_seq]]
            _expect(mine == [f"{n}.a", f"{n}.b"], rule, f"writer {n}'s records split: {mine}")


# -- S3 request keys -----------------------------------------------------------------


async def check_s3_duplicate_and_conflicting_creates(factory: StoreFactory) -> None:
    """S3: a create repeated with its key and input answers the stored outcome and
    writes nothing; with other input it raises `RequestConflictError`."""
    rule = "S3"
    async with _opened(factory) as store:
        first = await store.create_thread("t", _records("a"), request=_claim("k", "f", "out"))
        _expect(not first.duplicate and first == Commit(1, 1), rule, f"first create: {first}")
        again = await store.create_thread("t", _records("a"), request=_claim("k", "f", "other"))
        _expect(again.duplicate and again.outcome == "out", rule, f"duplicate create: {again}")
        _expect(again.first_seq == 0 == again.last_seq, rule, "a duplicate appended records")
        await _raises(
            RequestConflictError,
            rule,
            "a create with a used key and other input",
            store.create_thread("t2", _records("a"), request=_claim("k", "g")),
        )
        _expect(await store.thread("t2") is None, rule, "a conflicting create made a thread")
        _expect(await _texts(store, "t") == ["a"], rule, "a duplicate create wrote records")


async def check_s3_duplicate_and_conflicting_appends(factory: StoreFactory) -> None:
    """S3: an append repeated with its key and input answers the stored outcome without
    appending; other input raises `RequestConflictError`; keys are store-wide (a key
    used by a create answers an append to another thread)."""
    rule = "S3"
    async with _opened(factory) as store:
        await store.create_thread("t", [], request=_claim("made", "f", "created"))
        await store.create_thread("u", [])
        first = await store.append("t", _records("a"), request=_claim("k", "f", "sent"))
        _expect(first == Commit(1, 1), rule, f"first append: {first}")
        again = await store.append("t", _records("a"), request=_claim("k", "f", "x"))
        _expect(again.duplicate and again.outcome == "sent", rule, f"duplicate append: {again}")
        await _raises(
            RequestConflictError,
            rule,
            "an append with a used key and other input",
            store.append("t", _records("b"), request=_claim("k", "g")),
        )
        _expect(await _texts(store, "t") == ["a"], rule, "a duplicate or conflict appended")
        across = await store.append("u", _records("z"), request=_claim("made", "f"))
        _expect(across.duplicate and across.outcome == "created", rule, "keys not store-wide")
        _expect(await _texts(store, "u") == [], rule, "a store-wide duplicate appended")


async def check_s3_keys_outlive_deleted_threads(factory: StoreFactory) -> None:
    """S3: a duplicate delete answers after the thread is gone; a conflicting one
    raises; the keys of a deleted thread's creates and appends still answer."""
    rule = "S3"
    async with _opened(factory) as store:
        await store.create_thread("t", _records("a"), request=_claim("create", "f", "made"))
        await store.append("t", _records("b"), request=_claim("append", "f", "sent"))
        deleted = await store.delete_thread("t", request=_claim("delete", "f", "gone"))
        _expect(not deleted.duplicate, rule, f"first delete: {deleted}")
        again = await store.delete_thread("t", request=_claim("delete", "f"))
        _expect(again.duplicate and again.outcome == "gone", rule, f"duplicate delete: {again}")
        await _raises(
            RequestConflictError,
            rule,
            "a delete with a used key and other input",
            store.delete_thread("t", request=_claim("delete", "g")),
        )
        await _raises(ThreadNotFoundError, rule, "deleting twice, no key", store.delete_thread("t"))
        append = await store.append("t", _records("b"), request=_claim("append", "f"))
        _expect(append.duplicate and append.outcome == "sent", rule, "append key dropped")
        create = await store.create_thread("t", _records("a"), request=_claim("create", "f"))
        _expect(create.duplicate and create.outcome == "made", rule, "create key dropped")
        _expect(await store.thread("t") is None, rule, "a duplicate create made the thread")


# -- S4 leases -----------------------------------------------------------------------


async def check_s4_claims_exclude_other_owners(factory: StoreFactory) -> None:
    """S4: a held lease excludes other owners; the holder's claim and `renew` keep the
    generation and push the expiry; each change of hands raises the generation."""
    rule = "S4"
    async with _opened(factory) as store:
        await _raises(ThreadNotFoundError, rule, "claiming no thread", store.claim("x", "a", 5))
        await store.create_thread("t", [])
        before = await store.now()
        lease = await store.claim("t", "a", 30)
        _expect(lease is not None, rule, "claiming a free thread failed")
        assert lease is not None
        _expect(lease.owner == "a" and lease.thread_id == "t", rule, f"lease: {lease}")
        _expect(before + 29 <= lease.expires_at <= await store.now() + 31, rule, "expiry")
        _expect(await store.claim("t", "b", 30) is None, rule, "a held lease was taken")
        again = await store.claim("t", "a", 60)
        _expect(again is not None and again.generation == lease.generation, rule, "re-claim")
        assert again is not None
        _expect(again.expires_at > lease.expires_at, rule, "re-claim did not extend")
        renewed = await store.renew(again, 90)
        _expect(renewed.generation == lease.generation, rule, "renew changed the generation")
        _expect(renewed.expires_at > again.expires_at, rule, "renew did not extend")
        _expect(await store.release(renewed), rule, "releasing a held lease")
        taken = await store.claim("t", "b", 30)
        _expect(taken is not None, rule, "a released lease could not be claimed")
        assert taken is not None
        _expect(taken.generation > lease.generation, rule, "a new owner kept the generation")
        await _raises(LeaseLostError, rule, "renewing a lost lease", store.renew(renewed, 30))


async def check_s4_expiry_hands_the_lease_over(factory: StoreFactory) -> None:
    """S4/S5: once a lease expires another owner claims it at a higher generation; the
    expired holder's fenced write succeeds only until then, and is refused after."""
    rule = "S4"
    async with _opened(factory) as store:
        await store.create_thread("t", [], active=True)
        old = await store.claim("t", "a", SHORT_TTL)
        assert old is not None
        _expect(await store.claim("t", "b", SHORT_TTL) is None, rule, "taken while held")
        _expect(await store.claimable() == [], rule, "a held thread listed as claimable")
        await asyncio.sleep(SHORT_TTL * 1.5)
        _expect(await store.claimable() == ["t"], rule, "an expired lease not claimable")
        expired = await store.append("t", _records("still mine"), fence=old)
        _expect(expired == Commit(1, 1), rule, "expiry alone failed a fence (S5)")
        new = await store.claim("t", "b", 30)
        _expect(new is not None, rule, "an expired lease could not be claimed")
        assert new is not None
        _expect(new.generation == old.generation + 1, rule, f"hand-over generation: {new}")
        await _raises(
            LeaseLostError, rule, "the old owner's late write", store.append("t", [], fence=old)
        )
        await _raises(LeaseLostError, rule, "the old owner's renew", store.renew(old, 30))
        own = await store.claim("t", "b", SHORT_TTL)
        assert own is not None
        await asyncio.sleep(SHORT_TTL * 1.5)
        back = await store.claim("t", "b", 30)
        _expect(
            back is not None and back.generation == own.generation + 1,
            rule,
            f"re-claiming one's own expired lease must raise the generation: {back}",
        )


# -- S5 fencing ----------------------------------------------------------------------


async def check_s5_fence_refuses_after_claim_by_another_owner(factory: StoreFactory) -> None:
    """S5: a fenced write by the holder commits; after a release and another owner's
    claim, the old lease's fenced write raises `LeaseLostError` and commits nothing."""
    rule = "S5"
    async with _opened(factory) as store:
        await store.create_thread("t", [])
        old = await store.claim("t", "a", 30)
        assert old is not None
        ok = await store.append("t", _records("mine"), fence=old)
        _expect(ok == Commit(1, 1), rule, f"the holder's fenced write: {ok}")
        await store.release(old)
        new = await store.claim("t", "b", 30)
        assert new is not None
        error = await _raises(
            LeaseLostError,
            rule,
            "a write fenced by a replaced lease",
            store.append("t", _records("late"), fence=old),
        )
        assert isinstance(error, LeaseLostError)
        _expect(error.generation == old.generation, rule, f"error names {error.generation}")
        _expect(await _texts(store, "t") == ["mine"], rule, "a refused write appended")
        ok = await store.append("t", _records("new"), fence=new)
        _expect(ok == Commit(2, 2), rule, f"the new holder's write: {ok}")


async def check_s5_fence_refuses_after_revoke(factory: StoreFactory) -> None:
    """S5: `revoke_lease` ends the held lease in the revoking write's transaction: the
    holder's next fenced write and renew fail, and the next claim raises the
    generation."""
    rule = "S5"
    async with _opened(factory) as store:
        await store.create_thread("t", [])
        lease = await store.claim("t", "a", 30)
        assert lease is not None
        revoked = await store.append("t", _records("cancel"), revoke_lease=True)
        _expect(revoked == Commit(1, 1), rule, f"the revoking write: {revoked}")
        await _raises(LeaseLostError, rule, "a revoked write", store.append("t", [], fence=lease))
        await _raises(LeaseLostError, rule, "renewing a revoked lease", store.renew(lease, 30))
        _expect(await store.release(lease), rule, "releasing a lost lease must return True")
        again = await store.claim("t", "a", 30)
        _expect(
            again is not None and again.generation > lease.generation,
            rule,
            f"a claim after a revoke must raise the generation: {again}",
        )


async def check_s5_release_with_if_last_seq(factory: StoreFactory) -> None:
    """S5: `release(if_last_seq=n)` keeps the lease (False) when the journal moved past
    n, and gives it up (True) when it ends at n."""
    rule = "S5"
    async with _opened(factory) as store:
        await store.create_thread("t", _records("a"))
        lease = await store.claim("t", "a", 30)
        assert lease is not None
        await store.append("t", _records("b"))
        kept = await store.release(lease, if_last_seq=1)
        _expect(kept is False, rule, "released although the journal moved on")
        _expect(await store.claim("t", "b", 30) is None, rule, "a kept lease was claimable")
        ok = await store.append("t", _records("c"), fence=lease)
        _expect(ok == Commit(3, 3), rule, "a kept lease no longer fences")
        _expect(await store.release(lease, if_last_seq=3) is True, rule, "release at the end")
        other = await store.claim("t", "b", 30)
        _expect(other is not None, rule, "a released lease could not be claimed")
        _expect(await store.release(lease, if_last_seq=0) is True, rule, "lost lease release")
        _expect(await store.claim("t", "c", 30) is None, rule, "releasing a lost lease freed it")


# -- S6 bounded pages ----------------------------------------------------------------


async def check_s6_pages_are_bounded(factory: StoreFactory) -> None:
    """S6: `read`, `list_threads` and `claimable` take a limit from 1 to `max_page`;
    0, `max_page + 1` and non-ints raise `PageBoundError`; `read` of an unknown thread
    raises `ThreadNotFoundError`."""
    rule = "S6"
    async with _opened(factory) as store:
        await store.create_thread("t", _records("a"))
        bad: list[object] = [0, -1, store.max_page + 1, True, 1.5, "10", None]
        for limit in bad:
            bounded: Any = limit  # deliberately not an int in 1..max_page
            await _raises(
                PageBoundError, rule, f"read(limit={limit!r})", store.read("t", limit=bounded)
            )
            await _raises(
                PageBoundError,
                rule,
                f"list_threads(limit={limit!r})",
                store.list_threads(limit=bounded),
            )
            await _raises(
                PageBoundError, rule, f"claimable(limit={limit!r})", store.claimable(limit=bounded)
            )
        _expect(len(await store.read("t", limit=store.max_page)) == 1, rule, "max_page read")
        _expect(len(await store.list_threads(limit=store.max_page)) == 1, rule, "max_page list")
        _expect(len(await store.read("t", limit=1)) == 1, rule, "a one-record page")
        await _raises(ThreadNotFoundError, rule, "reading no thread", store.read("nope"))


async def check_s6_thread_list_pages_newest_first(factory: StoreFactory) -> None:
    """S6: `list_threads` pages top-level threads (or one thread's children) newest
    first by ordinal, `before` continuing where the last page ended."""
    rule = "S6"
    async with _opened(factory) as store:
        for n in range(7):
            await store.create_thread(f"t{n}", [])
        await store.create_thread("child", [], parent_id="t3")
        ids: list[str] = []
        before: int | None = None
        while page := await store.list_threads(before=before, limit=3):
            _expect(len(page) <= 3, rule, f"a page of {len(page)} over limit 3")
            ids.extend(row.thread_id for row in page)
            before = page[-1].ordinal
        _expect(ids == [f"t{n}" for n in reversed(range(7))], rule, f"listed {ids}")
        rows = await store.list_threads(limit=100)
        ordinals = [row.ordinal for row in rows]
        _expect(ordinals == sorted(ordinals, reverse=True), rule, "not newest first")
        _expect(len(set(ordinals)) == len(ordinals), rule, "ordinals repeat")
        children = await store.list_threads(parent_id="t3")
        _expect([row.thread_id for row in children] == ["child"], rule, "children of t3")
        _expect(children[0].parent_id == "t3", rule, "child row lost its parent")
        _expect(await store.list_threads(parent_id="t4") == [], rule, "t4 has no children")


# -- S7 active threads ---------------------------------------------------------------


async def check_s7_active_flag_and_claimable_order(factory: StoreFactory) -> None:
    """S7: writes set and clear `active`; `claimable` lists active threads with a free
    or expired lease, oldest first, up to its limit."""
    rule = "S7"
    async with _opened(factory) as store:
        await store.create_thread("old", [], active=True)
        await store.create_thread("idle", [])
        await store.create_thread("mid", [], active=True)
        await store.create_thread("new", [], active=True)
        _expect(await store.claimable() == ["old", "mid", "new"], rule, "claimable order")
        _expect(await store.claimable(limit=2) == ["old", "mid"], rule, "claimable limit")
        await store.append("idle", [], active=True)
        await store.append("old", _records("done"), active=False)
        row = await store.thread("old")
        _expect(row is not None and not row.active, rule, "active=False not kept")
        held = await store.claim("mid", "runner", 30)
        assert held is not None
        _expect(await store.claimable() == ["idle", "new"], rule, "held or inactive listed")
        await store.append("new", [], summary="renamed")
        row = await store.thread("new")
        _expect(row is not None and row.active, rule, "active=None changed the flag")
        _expect(row is not None and row.summary == "renamed", rule, "summary not written")
        await store.release(held)
        _expect(await store.claimable() == ["idle", "mid", "new"], rule, "released not listed")


async def check_s7_delete_cascades_to_children(factory: StoreFactory) -> None:
    """S7: deleting a thread deletes its journal, lease and children recursively, and
    nothing else; an unknown thread raises `ThreadNotFoundError`."""
    rule = "S7"
    async with _opened(factory) as store:
        await store.create_thread("root", _records("r"), active=True)
        await store.create_thread("child", _records("c"), parent_id="root", active=True)
        await store.create_thread("grandchild", _records("g"), parent_id="child")
        await store.create_thread("other", _records("o"), active=True)
        await store.claim("root", "runner", 30)
        await store.delete_thread("root")
        for gone in ("root", "child", "grandchild"):
            _expect(await store.thread(gone) is None, rule, f"{gone} survived its parent")
            await _raises(ThreadNotFoundError, rule, f"reading {gone}", store.read(gone))
        _expect(await _texts(store, "other") == ["o"], rule, "an unrelated thread changed")
        _expect(await store.claimable() == ["other"], rule, "a deleted thread is claimable")
        _expect([r.thread_id for r in await store.list_threads()] == ["other"], rule, "list")
        await _raises(ThreadNotFoundError, rule, "deleting no thread", store.delete_thread("x"))
        await store.create_thread("root", _records("again"))
        _expect(await _texts(store, "root") == ["again"], rule, "an old journal came back")
        lease = await store.claim("root", "someone", 30)
        _expect(lease is not None, rule, "a re-created thread kept the deleted lease")


# -- S8 fail closed ------------------------------------------------------------------


async def check_s8_open_reports_progress_and_closed_store_refuses(factory: StoreFactory) -> None:
    """S8: `open` reports "verifying" as its last phase; outside open..close every call
    but `now` and `close` raises `StoreClosedError`; closing twice is harmless."""
    rule = "S8"
    made = factory()
    store = await made if inspect.isawaitable(made) else made
    await _raises(StoreClosedError, rule, "a call before open", store.thread("t"))
    phases: list[str] = []
    await store.open(phases.append)
    try:
        _expect(phases[-1:] == ["verifying"], rule, f"open reported {phases}")
        await store.create_thread("t", _records("a"))
    finally:
        await store.close()
    await store.close()
    closed: list[tuple[str, Callable[[], Awaitable[object]]]] = [
        ("read", lambda: store.read("t")),
        ("append", lambda: store.append("t", _records("b"))),
        ("claim", lambda: store.claim("t", "a", 1)),
        ("list_threads", lambda: store.list_threads()),
    ]
    for name, call in closed:
        await _raises(StoreClosedError, rule, f"{name} after close", call())
    _expect(isinstance(await store.now(), float), rule, "now after close")


async def check_s8_incompatible_schema_fails_closed(
    incompatible: Sequence[Callable[[], ThreadStore]],
) -> None:
    """S8: every store `incompatible` makes (on data newer than the backend knows, not
    a threads schema, or damaged) raises `SchemaError` at `open`."""
    rule = "S8"
    for make in incompatible:
        store = make()
        try:
            await _raises(SchemaError, rule, f"opening {store!r}", store.open())
        finally:
            await store.close()


# -- running the suite ---------------------------------------------------------------

ALL_CHECKS: tuple[Callable[[StoreFactory], Awaitable[None]], ...] = (
    check_s1_create_commits_thread_and_records_together,
    check_s1_a_failed_write_commits_nothing,
    check_s2_journal_is_ordered_and_paged_without_gaps,
    check_s2_concurrent_appends_get_consecutive_seqs,
    check_s3_duplicate_and_conflicting_creates,
    check_s3_duplicate_and_conflicting_appends,
    check_s3_keys_outlive_deleted_threads,
    check_s4_claims_exclude_other_owners,
    check_s4_expiry_hands_the_lease_over,
    check_s5_fence_refuses_after_claim_by_another_owner,
    check_s5_fence_refuses_after_revoke,
    check_s5_release_with_if_last_seq,
    check_s6_pages_are_bounded,
    check_s6_thread_list_pages_newest_first,
    check_s7_active_flag_and_claimable_order,
    check_s7_delete_cascades_to_children,
    check_s8_open_reports_progress_and_closed_store_refuses,
)
"""Every check that needs only a store factory (S8's schema check needs more)."""


async def run_store_conformance(
    factory: StoreFactory,
    *,
    checks: Sequence[Callable[[StoreFactory], Awaitable[None]]] = (),
) -> None:
    """Run the checks (all of them by default), each on a fresh store from `factory`;
    raise `StoreConformanceError` naming the check on the first failure (an unexpected
    exception from the store counts as one)."""
    for check in checks or ALL_CHECKS:
        try:
            await check(factory)
        except StoreConformanceError as error:
            raise StoreConformanceError(f"{check.__name__}: {error}") from error
        except Exception as error:
            raise StoreConformanceError(
                f"{check.__name__}: the store raised {type(error).__name__}: {error}"
            ) from error


class StoreConformance:
    """The suite as test methods, one per check. Subclass it as
    `class TestMyStore(StoreConformance)` and override `make_store` (a fresh, unopened
    store per call) and, for a backend with a persistent schema, `incompatible_stores`
    (stores on newer, foreign or damaged data, each of which must fail to open)."""

    def make_store(self) -> ThreadStore | Awaitable[ThreadStore]:
        raise NotImplementedError("override make_store() to return a fresh, unopened store")

    def incompatible_stores(self) -> Sequence[Callable[[], ThreadStore]]:
        """Makers of stores whose `open` must raise `SchemaError`; none by default (a
        backend with no persistent schema has nothing to refuse)."""
        return ()

    async def test_s1_create_commits_thread_and_records_together(self) -> None:
        await check_s1_create_commits_thread_and_records_together(self.make_store)

    async def test_s1_a_failed_write_commits_nothing(self) -> None:
        await check_s1_a_failed_write_commits_nothing(self.make_store)

    async def test_s2_journal_is_ordered_and_paged_without_gaps(self) -> None:
        await check_s2_journal_is_ordered_and_paged_without_gaps(self.make_store)

    async def test_s2_concurrent_appends_get_consecutive_seqs(self) -> None:
        await check_s2_concurrent_appends_get_consecutive_seqs(self.make_store)

    async def test_s3_duplicate_and_conflicting_creates(self) -> None:
        await check_s3_duplicate_and_conflicting_creates(self.make_store)

    async def test_s3_duplicate_and_conflicting_appends(self) -> None:
        await check_s3_duplicate_and_conflicting_appends(self.make_store)

    async def test_s3_keys_outlive_deleted_threads(self) -> None:
        await check_s3_keys_outlive_deleted_threads(self.make_store)

    async def test_s4_claims_exclude_other_owners(self) -> None:
        await check_s4_claims_exclude_other_owners(self.make_store)

    async def test_s4_expiry_hands_the_lease_over(self) -> None:
        await check_s4_expiry_hands_the_lease_over(self.make_store)

    async def test_s5_fence_refuses_after_claim_by_another_owner(self) -> None:
        await check_s5_fence_refuses_after_claim_by_another_owner(self.make_store)

    async def test_s5_fence_refuses_after_revoke(self) -> None:
        await check_s5_fence_refuses_after_revoke(self.make_store)

    async def test_s5_release_with_if_last_seq(self) -> None:
        await check_s5_release_with_if_last_seq(self.make_store)

    async def test_s6_pages_are_bounded(self) -> None:
        await check_s6_pages_are_bounded(self.make_store)

    async def test_s6_thread_list_pages_newest_first(self) -> None:
        await check_s6_thread_list_pages_newest_first(self.make_store)

    async def test_s7_active_flag_and_claimable_order(self) -> None:
        await check_s7_active_flag_and_claimable_order(self.make_store)

    async def test_s7_delete_cascades_to_children(self) -> None:
        await check_s7_delete_cascades_to_children(self.make_store)

    async def test_s8_open_reports_progress_and_closed_store_refuses(self) -> None:
        await check_s8_open_reports_progress_and_closed_store_refuses(self.make_store)

    async def test_s8_incompatible_schema_fails_closed(self) -> None:
        await check_s8_incompatible_schema_fails_closed(self.incompatible_stores())
