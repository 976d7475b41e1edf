"""Conformance checks of the journal: atomic commits (S1), order (S2), request keys
(S3) and bounded pages (S6)."""

from __future__ import annotations

import asyncio
from typing import Any

from automata.threads._conformance_support import (
    CONCURRENT_WRITERS,
    StoreFactory,
    claim,
    expect,
    notes,
    opened,
    raises,
    texts,
)
from automata.threads._errors import (
    LeaseLostError,
    PageBoundError,
    RequestConflictError,
    ThreadExistsError,
    ThreadNotFoundError,
)
from automata.threads.store import Commit

__all__ = [
    "check_s1_a_failed_write_commits_nothing",
    "check_s1_create_commits_thread_and_records_together",
    "check_s2_concurrent_appends_get_consecutive_seqs",
    "check_s2_journal_is_ordered_and_paged_without_gaps",
    "check_s3_duplicate_and_conflicting_appends",
    "check_s3_duplicate_and_conflicting_creates",
    "check_s3_keys_outlive_deleted_threads",
    "check_s6_pages_are_bounded",
    "check_s6_thread_list_pages_newest_first",
]


# -- S1 atomic commits --------------------------------------------------------------


async def check_s1_create_commits_thread_and_records_together(factory: StoreFactory) -> None:
    """S1: a created thread comes with all its first records, summary and flags; a
    create that fails (id taken, unknown parent) leaves no trace, not even its key."""
    rule = "S1"
    async with opened(factory) as store:
        commit = await store.create_thread("t", notes("a", "b", "c"), summary="s", active=True)
        expect(commit == Commit(1, 3), rule, f"create of 3 records committed {commit}")
        row = await store.thread("t")
        expect(row is not None and row.last_seq == 3, rule, f"row after create: {row}")
        assert row is not None
        expect(row.summary == "s" and row.active, rule, f"summary/active not kept: {row}")
        expect(row.parent_id is None, rule, f"a top-level thread has a parent: {row}")
        expect(await texts(store, "t") == ["a", "b", "c"], rule, "records not all committed")
        await raises(
            ThreadExistsError,
            rule,
            "creating a taken id",
            store.create_thread("t", notes("x"), request=claim("k1")),
        )
        await raises(
            ThreadNotFoundError,
            rule,
            "creating under an unknown parent",
            store.create_thread("u", notes("x"), parent_id="nope", request=claim("k2")),
        )
        expect(await store.thread("u") is None, rule, "a failed create left a thread")
        fresh = await store.create_thread("v", notes("x"), request=claim("k1"))
        expect(not fresh.duplicate, rule, "a failed create stored its request key")
        expect(await texts(store, "t") == ["a", "b", "c"], rule, "a failed create wrote")


async def check_s1_a_failed_write_commits_nothing(factory: StoreFactory) -> None:
    """S1: an append refused by its fence commits none of its records, summary, active
    flag, lease revoke or request key."""
    rule = "S1"
    async with opened(factory) as store:
        await store.create_thread("t", notes("a"), summary="before")
        old = await store.claim("t", "first", 30)
        assert old is not None
        new = await store.claim("t", "first", 30)
        expect(new is not None and new.generation == old.generation, rule, "renewal claim")
        await store.append("t", [], revoke_lease=True)
        current = await store.claim("t", "second", 30)
        expect(current is not None, rule, "claim after revoke failed")
        assert current is not None
        await raises(
            LeaseLostError,
            rule,
            "a write fenced by a lost lease",
            store.append(
                "t",
                notes("late"),
                fence=old,
                request=claim("late-key"),
                active=True,
                summary="after",
                revoke_lease=True,
            ),
        )
        row = await store.thread("t")
        assert row is not None
        expect(row.last_seq == 1 and row.summary == "before", rule, f"partial write: {row}")
        expect(not row.active, rule, "a refused write set the active flag")
        again = await store.append("t", notes("ok"), fence=current, request=claim("late-key"))
        expect(not again.duplicate, rule, "a refused write stored its request key")
        expect(again == Commit(2, 2), rule, f"a refused write revoked the lease: {again}")


# -- S2 ordered journal ---------------------------------------------------------------


async def check_s2_journal_is_ordered_and_paged_without_gaps(factory: StoreFactory) -> None:
    """S2: seqs run 1, 2, 3... in commit order across appends; `read(after=, limit=)`
    pages through them without gaps; commit times never go backwards."""
    rule = "S2"
    async with opened(factory) as store:
        await store.create_thread("t", [])
        row = await store.thread("t")
        expect(row is not None and row.last_seq == 0, rule, f"an empty thread: {row}")
        expect(await store.read("t") == [], rule, "an empty journal reads as records")
        expected = [str(n) for n in range(1, 26)]
        for start in range(0, 25, 5):
            commit = await store.append("t", notes(*expected[start : start + 5]))
            expect(commit == Commit(start + 1, start + 5), rule, f"append gave {commit}")
        empty = await store.append("t", [])
        expect(empty == Commit(0, 0), rule, f"an empty append gave {empty}")
        records = await store.read("t")
        expect([r.seq for r in records] == list(range(1, 26)), rule, "seqs not 1..n")
        expect([r.data for r in records] == expected, rule, "records out of commit order")
        expect(all(r.thread_id == "t" and r.kind == "note" for r in records), rule, "fields")
        times = [r.at for r in records]
        expect(times == sorted(times), rule, "commit times go backwards")
        paged: list[int] = []
        after = 0
        while page := await store.read("t", after=after, limit=7):
            paged.extend(r.seq for r in page)
            after = page[-1].seq
        expect(paged == list(range(1, 26)), rule, f"paging read {paged}")
        expect(await store.read("t", after=25) == [], rule, "reading past the end")
        row = await store.thread("t")
        expect(row is not None and row.last_seq == 25, rule, f"last_seq: {row}")


async def check_s2_concurrent_appends_get_consecutive_seqs(factory: StoreFactory) -> None:
    """S2: many tasks appending at once each get one consecutive run of seqs; together
    the runs cover 1..n exactly once."""
    rule = "S2"
    async with opened(factory) as store:
        await store.create_thread("t", [])

        async def writer(n: int) -> Commit:
            return await store.append("t", notes(f"{n}.a", f"{n}.b"))

        commits = await asyncio.gather(*(writer(n) for n in range(CONCURRENT_WRITERS)))
        total = 2 * CONCURRENT_WRITERS
        seqs = sorted(s for c in commits for s in (c.first_seq, c.last_seq))
        expect(seqs == list(range(1, total + 1)), rule, f"commit ranges overlap: {commits}")
        records = []
        after = 0
        while page := await store.read("t", after=after, limit=30):
            records.extend(page)
            after = page[-1].seq
        expect([r.seq for r in records] == list(range(1, total + 1)), rule, "gaps or repeats")
        for n, commit in enumerate(commits):
            mine = [r.data for r in records[commit.first_seq - 1 : commit.last_seq]]
            expect(mine == [f"{n}.a", f"{n}.b"], rule, f"writer {n}'s records split: {mine}")


# -- S3 request keys -----------------------------------------------------------------


async def check_s3_duplicate_and_conflicting_creates(factory: StoreFactory) -> None:
    """S3: a create repeated with its key and input answers the stored outcome and
    writes nothing; with other input it raises `RequestConflictError`."""
    rule = "S3"
    async with opened(factory) as store:
        first = await store.create_thread("t", notes("a"), request=claim("k", "f", "out"))
        expect(not first.duplicate and first == Commit(1, 1), rule, f"first create: {first}")
        again = await store.create_thread("t", notes("a"), request=claim("k", "f", "other"))
        expect(again.duplicate and again.outcome == "out", rule, f"duplicate create: {again}")
        expect(again.first_seq == 0 == again.last_seq, rule, "a duplicate appended records")
        await raises(
            RequestConflictError,
            rule,
            "a create with a used key and other input",
            store.create_thread("t2", notes("a"), request=claim("k", "g")),
        )
        expect(await store.thread("t2") is None, rule, "a conflicting create made a thread")
        expect(await texts(store, "t") == ["a"], rule, "a duplicate create wrote records")


async def check_s3_duplicate_and_conflicting_appends(factory: StoreFactory) -> None:
    """S3: an append repeated with its key and input answers the stored outcome without
    appending; other input raises `RequestConflictError`; keys are store-wide (a key
    used by a create answers an append to another thread)."""
    rule = "S3"
    async with opened(factory) as store:
        await store.create_thread("t", [], request=claim("made", "f", "created"))
        await store.create_thread("u", [])
        first = await store.append("t", notes("a"), request=claim("k", "f", "sent"))
        expect(first == Commit(1, 1), rule, f"first append: {first}")
        again = await store.append("t", notes("a"), request=claim("k", "f", "x"))
        expect(again.duplicate and again.outcome == "sent", rule, f"duplicate append: {again}")
        await raises(
            RequestConflictError,
            rule,
            "an append with a used key and other input",
            store.append("t", notes("b"), request=claim("k", "g")),
        )
        expect(await texts(store, "t") == ["a"], rule, "a duplicate or conflict appended")
        across = await store.append("u", notes("z"), request=claim("made", "f"))
        expect(across.duplicate and across.outcome == "created", rule, "keys not store-wide")
        expect(await texts(store, "u") == [], rule, "a store-wide duplicate appended")


async def check_s3_keys_outlive_deleted_threads(factory: StoreFactory) -> None:
    """S3: a duplicate delete answers after the thread is gone; a conflicting one
    raises; the keys of a deleted thread's creates and appends still answer."""
    rule = "S3"
    async with opened(factory) as store:
        await store.create_thread("t", notes("a"), request=claim("create", "f", "made"))
        await store.append("t", notes("b"), request=claim("append", "f", "sent"))
        deleted = await store.delete_thread("t", request=claim("delete", "f", "gone"))
        expect(not deleted.duplicate, rule, f"first delete: {deleted}")
        again = await store.delete_thread("t", request=claim("delete", "f"))
        expect(again.duplicate and again.outcome == "gone", rule, f"duplicate delete: {again}")
        await raises(
            RequestConflictError,
            rule,
            "a delete with a used key and other input",
            store.delete_thread("t", request=claim("delete", "g")),
        )
        await raises(ThreadNotFoundError, rule, "deleting twice, no key", store.delete_thread("t"))
        append = await store.append("t", notes("b"), request=claim("append", "f"))
        expect(append.duplicate and append.outcome == "sent", rule, "append key dropped")
        create = await store.create_thread("t", notes("a"), request=claim("create", "f"))
        expect(create.duplicate and create.outcome == "made", rule, "create key dropped")
        expect(await store.thread("t") is None, rule, "a duplicate create made the thread")


# -- S6 bounded pages ----------------------------------------------------------------


async def check_s6_pages_are_bounded(factory: StoreFactory) -> None:
    """S6: `read`, `list_threads` and `claimable` take a limit from 1 to `max_page`;
    0, `max_page + 1` and non-ints raise `PageBoundError`; `read` of an unknown thread
    raises `ThreadNotFoundError`."""
    rule = "S6"
    async with opened(factory) as store:
        await store.create_thread("t", notes("a"))
        bad: list[object] = [0, -1, store.max_page + 1, True, 1.5, "10", None]
        for limit in bad:
            bounded: Any = limit  # deliberately not an int in 1..max_page
            await raises(
                PageBoundError, rule, f"read(limit={limit!r})", store.read("t", limit=bounded)
            )
            await raises(
                PageBoundError,
                rule,
                f"list_threads(limit={limit!r})",
                store.list_threads(limit=bounded),
            )
            await raises(
                PageBoundError, rule, f"claimable(limit={limit!r})", store.claimable(limit=bounded)
            )
        expect(len(await store.read("t", limit=store.max_page)) == 1, rule, "max_page read")
        expect(len(await store.list_threads(limit=store.max_page)) == 1, rule, "max_page list")
        expect(len(await store.read("t", limit=1)) == 1, rule, "a one-record page")
        await raises(ThreadNotFoundError, rule, "reading no thread", store.read("nope"))


async def check_s6_thread_list_pages_newest_first(factory: StoreFactory) -> None:
    """S6: `list_threads` pages top-level threads (or one thread's children) newest
    first by ordinal, `before` continuing where the last page ended."""
    rule = "S6"
    async with opened(factory) as store:
        for n in range(7):
            await store.create_thread(f"t{n}", [])
        await store.create_thread("child", [], parent_id="t3")
        ids: list[str] = []
        before: int | None = None
        while page := await store.list_threads(before=before, limit=3):
            expect(len(page) <= 3, rule, f"a page of {len(page)} over limit 3")
            ids.extend(row.thread_id for row in page)
            before = page[-1].ordinal
        expect(ids == [f"t{n}" for n in reversed(range(7))], rule, f"listed {ids}")
        rows = await store.list_threads(limit=100)
        ordinals = [row.ordinal for row in rows]
        expect(ordinals == sorted(ordinals, reverse=True), rule, "not newest first")
        expect(len(set(ordinals)) == len(ordinals), rule, "ordinals repeat")
        children = await store.list_threads(parent_id="t3")
        expect([row.thread_id for row in children] == ["child"], rule, "children of t3")
        expect(children[0].parent_id == "t3", rule, "child row lost its parent")
        expect(await store.list_threads(parent_id="t4") == [], rule, "t4 has no children")
