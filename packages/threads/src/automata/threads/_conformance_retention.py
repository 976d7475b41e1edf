"""Conformance checks of retention (RT1-RT5 of docs/threads-storage.md): what a purge
takes, what it reports, what it archives, and when it refuses."""

from __future__ import annotations

import asyncio
import io
import json

from automata.core import InvalidArgumentError
from automata.threads._conformance_support import (
    SHORT_TTL,
    StoreFactory,
    claim,
    expect,
    notes,
    opened,
    raises,
    texts,
)
from automata.threads._errors import PageBoundError, PurgeRefusedError, ThreadNotFoundError
from automata.threads.store import ThreadStore

__all__ = [
    "check_rt1_purge_takes_ended_trees_last_written_before_the_date",
    "check_rt2_keep_last_purges_only_top_level_threads_over_the_count",
    "check_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing",
    "check_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing",
    "check_rt5_request_keys_stay_and_bad_arguments_are_refused",
]

_TICK = 0.05  # between writes whose times a check compares with a cutoff


async def _ids(store: ThreadStore) -> set[str]:
    return {row.thread_id for row in await store.list_threads(limit=1000)}


async def check_rt1_purge_takes_ended_trees_last_written_before_the_date(
    factory: StoreFactory,
) -> None:
    """RT1: `purge(ended_before=t)` deletes each ended top-level thread whose tree was
    last written before t, with its children and journals, and reports their ids
    (root first), record count and bytes exactly; active trees, trees written since,
    and other threads stay."""
    rule = "RT1"
    async with opened(factory) as store:
        await store.create_thread("old", notes("o1", "o2"))
        await store.create_thread("kid", notes("k1"), parent_id="old")
        await store.create_thread("busy", notes("b"), active=True)
        await store.create_thread("late", notes("l"))
        await store.create_thread("late-kid", [], parent_id="late")
        await asyncio.sleep(_TICK)
        cutoff = await store.now()
        await asyncio.sleep(_TICK)
        await store.append("late-kid", notes("written after the cutoff"))
        await store.create_thread("new", notes("n"))
        report = await store.purge(ended_before=cutoff)
        expect(report.thread_ids == ("old", "kid"), rule, f"purged {report.thread_ids}")
        expect(report.threads == 2 and report.records == 3, rule, f"counts: {report}")
        expect(report.bytes == 3 * len("note") + 6, rule, f"bytes: {report.bytes}")
        expect(not report.archived, rule, "reported an archive that was not asked for")
        for gone in ("old", "kid"):
            expect(await store.thread(gone) is None, rule, f"{gone} survived the purge")
            await raises(ThreadNotFoundError, rule, f"reading {gone}", store.read(gone))
        expect(await _ids(store) == {"busy", "late", "new"}, rule, "the wrong threads stayed")
        expect(await texts(store, "late-kid") == ["written after the cutoff"], rule, "late-kid")
        again = await store.purge(ended_before=cutoff)
        expect(again.threads == 0 and again.records == 0, rule, f"a second purge: {again}")


async def check_rt2_keep_last_purges_only_top_level_threads_over_the_count(
    factory: StoreFactory,
) -> None:
    """RT2: `purge(keep_last=n)` keeps the n newest top-level threads (active ones
    count) and deletes the older ended ones, oldest first, at most `limit` trees."""
    rule = "RT2"
    async with opened(factory) as store:
        for name in ("a", "b", "c", "d"):
            await store.create_thread(name, notes(name))
        await store.create_thread("e", notes("e"), active=True)
        first = await store.purge(keep_last=3, limit=1)
        expect(first.thread_ids == ("a",), rule, f"limit 1 purged {first.thread_ids}")
        second = await store.purge(keep_last=3)
        expect(second.thread_ids == ("b",), rule, f"keep_last 3 purged {second.thread_ids}")
        expect(await _ids(store) == {"c", "d", "e"}, rule, "the newest three did not stay")
        everything = await store.purge(keep_last=0)
        expect(everything.thread_ids == ("c", "d"), rule, f"keep 0: {everything.thread_ids}")
        expect(await _ids(store) == {"e"}, rule, "an active thread was purged")


async def check_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing(
    factory: StoreFactory,
) -> None:
    """RT3: a live lease on any thread a purge would take raises `PurgeRefusedError`
    naming it, and nothing is deleted; a lease that expired unreleased (recovery due)
    keeps its thread out of the purge; once released, the thread is purged."""
    rule = "RT3"
    async with opened(factory) as store:
        await store.create_thread("free", notes("f"))
        await store.create_thread("held", notes("h"))
        await store.create_thread("held-kid", notes("k"), parent_id="held")
        await store.create_thread("abandoned", notes("a"))
        lease = await store.claim("held-kid", "host-1", 30)
        assert lease is not None
        dead = await store.claim("abandoned", "host-2", SHORT_TTL)
        assert dead is not None
        await asyncio.sleep(SHORT_TTL * 1.5)
        error = await raises(
            PurgeRefusedError, rule, "a purge of a leased thread", store.purge(keep_last=0)
        )
        assert isinstance(error, PurgeRefusedError)
        expect(error.thread_ids == ("held-kid",), rule, f"the error names {error.thread_ids}")
        expect(await _ids(store) == {"free", "held", "abandoned"}, rule, "a refused purge deleted")
        expect(await texts(store, "held-kid") == ["k"], rule, "a refused purge changed a journal")
        await store.append("held-kid", notes("still fenced"), fence=lease)
        await store.release(lease)
        report = await store.purge(keep_last=0)
        expect(report.thread_ids == ("free", "held", "held-kid"), rule, f"{report.thread_ids}")
        expect(await _ids(store) == {"abandoned"}, rule, "a thread due a recovery was purged")


class _FailingSink(io.StringIO):
    """Takes one thread's archive, then fails as a full disk would."""

    def write(self, text: str, /) -> int:
        if self.getvalue():
            raise OSError("no space left on the archive's device")
        return super().write(text)


async def check_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing(
    factory: StoreFactory,
) -> None:
    """RT4: with `archive_to`, each purged thread is written there before it is
    deleted, as JSON lines (a `thread` line, then its records in order); an archive
    write that fails raises, and the purge deletes nothing."""
    rule = "RT4"
    async with opened(factory) as store:
        await store.create_thread("one", notes("a", "ü"), summary="first")
        await store.create_thread("two", notes("b"), parent_id="one")
        await store.create_thread("three", notes("c"))
        failing = _FailingSink()
        await raises(
            OSError,
            rule,
            "a purge whose archive fails",
            store.purge(keep_last=0, archive_to=failing),
        )
        expect(await _ids(store) == {"one", "three"}, rule, "a failed archive deleted threads")
        expect(await texts(store, "two") == ["b"], rule, "a failed archive deleted a child")
        archive = io.StringIO()
        report = await store.purge(keep_last=0, archive_to=archive)
        expect(report.archived and report.threads == 3, rule, f"report: {report}")
        lines = [json.loads(line) for line in archive.getvalue().splitlines()]
        heads = [(line["thread_id"], line["summary"]) for line in lines if line["type"] == "thread"]
        expect([h[0] for h in heads] == ["one", "two", "three"], rule, f"threads: {heads}")
        expect(heads[0][1] == "first", rule, "the thread line lost its summary")
        journal = [(r["thread_id"], r["seq"], r["data"]) for r in lines if r["type"] == "record"]
        expected = [("one", 1, "a"), ("one", 2, "ü"), ("two", 1, "b"), ("three", 1, "c")]
        expect(journal == expected, rule, f"archived records: {journal}")
        expect(lines[0]["type"] == "thread" and lines[3]["type"] == "thread", rule, "order")


async def check_rt5_request_keys_stay_and_bad_arguments_are_refused(
    factory: StoreFactory,
) -> None:
    """RT5: request keys outlive purged threads (a repeated request still answers as
    a duplicate) and a purged id can be created afresh; a purge with no criterion or
    a bad `keep_last` raises `InvalidArgumentError`, a bad `limit` `PageBoundError`."""
    rule = "RT5"
    async with opened(factory) as store:
        await store.create_thread("t", notes("first"), request=claim("k", outcome="made"))
        await store.purge(keep_last=0)
        duplicate = await store.create_thread("t", notes("x"), request=claim("k", outcome="?"))
        expect(duplicate.duplicate and duplicate.outcome == "made", rule, f"{duplicate}")
        expect(await store.thread("t") is None, rule, "a duplicate re-created a purged thread")
        await store.create_thread("t", notes("again"))
        expect(await texts(store, "t") == ["again"], rule, "a purged journal came back")
        await raises(InvalidArgumentError, rule, "a purge without criteria", store.purge())
        await raises(InvalidArgumentError, rule, "keep_last -1", store.purge(keep_last=-1))
        await raises(PageBoundError, rule, "limit 0", store.purge(keep_last=1, limit=0))
        await raises(
            PageBoundError, rule, "limit above max_page", store.purge(keep_last=1, limit=10**6)
        )
        expect(await texts(store, "t") == ["again"], rule, "a refused purge deleted")
