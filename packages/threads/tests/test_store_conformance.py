"""The conformance suite can fail: a store that breaks one rule fails that rule's
checks. Each broken store is the memory store with one behaviour changed."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

import pytest

from automata.threads import MemoryStore, PurgeReport
from automata.threads.store import (
    Commit,
    Lease,
    NewRecord,
    ProgressCallback,
    Record,
    RequestClaim,
)
from automata.threads.testing import (
    StoreConformanceError,
    StoreFactory,
    check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere,
    check_s1_a_failed_write_commits_nothing,
    check_s1_an_artifact_commits_with_its_results_or_not_at_all,
    check_s1_fact_records_commit_with_their_results_and_read_back_exact,
    check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end,
    check_s2_concurrent_appends_get_consecutive_seqs,
    check_s3_duplicate_and_conflicting_appends,
    check_s4_claims_exclude_other_owners,
    check_s5_fence_refuses_after_claim_by_another_owner,
    check_s6_pages_are_bounded,
    check_s7_active_flag_and_claimable_order,
    check_s7_an_abandoned_lease_makes_a_thread_claimable,
    check_s7_delete_cascades_to_children,
    check_s8_incompatible_schema_fails_closed,
    check_s8_open_reports_progress_and_closed_store_refuses,
    run_store_conformance,
)


class ForgetsRequestKeys(MemoryStore):
    def _duplicate(self, request: RequestClaim | None) -> Commit | None:
        return None


class IgnoresFences(MemoryStore):
    async def append(
        self, thread_id: str, records: Sequence[NewRecord], **options: object
    ) -> Commit:
        options.pop("fence", None)
        return await super().append(thread_id, records, **options)  # type: ignore[arg-type]


class WritesSummaryBeforeItsFence(MemoryStore):
    async def append(
        self, thread_id: str, records: Sequence[NewRecord], **options: object
    ) -> Commit:
        summary = options.get("summary")
        if isinstance(summary, str) and thread_id in self._threads:
            found = self._threads[thread_id]
            found.row = replace(found.row, summary=summary)
        return await super().append(thread_id, records, **options)  # type: ignore[arg-type]


class AppendsWithoutATransaction(MemoryStore):
    async def append(
        self, thread_id: str, records: Sequence[NewRecord], **options: object
    ) -> Commit:
        for record in records:  # one record at a time, yielding between them
            await super().append(thread_id, [record], **options)  # type: ignore[arg-type]
            await asyncio.sleep(0)
        return Commit(0, 0)


class KeepsTheGeneration(MemoryStore):
    async def claim(self, thread_id: str, owner: str, ttl: float) -> Lease | None:
        lease = await super().claim(thread_id, owner, ttl)
        if lease is not None:
            self._threads[thread_id].generation = 1
            lease = replace(lease, generation=1)
        return lease


class ServesAnyPageSize(MemoryStore):
    async def read(self, thread_id: str, *, after: int = 0, limit: int = 1000) -> list[Record]:
        return await super().read(thread_id, after=after, limit=1000)


class ListsNewestClaimableFirst(MemoryStore):
    async def claimable(self, *, limit: int = 100) -> list[str]:
        return list(reversed(await super().claimable(limit=limit)))


class TrustsTheActiveFlagOnly(MemoryStore):
    async def claimable(self, *, limit: int = 100) -> list[str]:
        return [t for t in await super().claimable(limit=limit) if self._threads[t].row.active]


class LeavesChildrenBehind(MemoryStore):
    async def delete_thread(self, thread_id: str, *, request: RequestClaim | None = None) -> Commit:
        self._get(thread_id)
        del self._threads[thread_id]
        return Commit(0, 0)


class CutsLongRecords(MemoryStore):
    async def append(
        self, thread_id: str, records: Sequence[NewRecord], **options: object
    ) -> Commit:
        cut = [NewRecord(record.kind, record.data[:65_536]) for record in records]
        return await super().append(thread_id, cut, **options)  # type: ignore[arg-type]


class SharesArtifactsByContent(MemoryStore):
    """Keeps each artifact once for every thread (by its content id), so a purge takes
    a fork's copy along with its source's."""

    async def purge(self, **options: object) -> PurgeReport:
        doomed = [
            record.data
            for thread in self._threads.values()
            for record in thread.records
            if record.kind == "artifact"
        ]
        report = await super().purge(**options)  # type: ignore[arg-type]
        for thread in self._threads.values():
            thread.records = [r for r in thread.records if r.data not in doomed]
        return report


class OpensSilently(MemoryStore):
    async def open(self, progress: ProgressCallback | None = None) -> None:
        await super().open(None)


BROKEN: list[tuple[type[MemoryStore], Callable[[StoreFactory], Awaitable[None]]]] = [
    (WritesSummaryBeforeItsFence, check_s1_a_failed_write_commits_nothing),
    (IgnoresFences, check_s1_an_artifact_commits_with_its_results_or_not_at_all),
    (CutsLongRecords, check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end),
    (SharesArtifactsByContent, check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere),
    (CutsLongRecords, check_s1_fact_records_commit_with_their_results_and_read_back_exact),
    (AppendsWithoutATransaction, check_s2_concurrent_appends_get_consecutive_seqs),
    (ForgetsRequestKeys, check_s3_duplicate_and_conflicting_appends),
    (KeepsTheGeneration, check_s4_claims_exclude_other_owners),
    (IgnoresFences, check_s5_fence_refuses_after_claim_by_another_owner),
    (ServesAnyPageSize, check_s6_pages_are_bounded),
    (ListsNewestClaimableFirst, check_s7_active_flag_and_claimable_order),
    (TrustsTheActiveFlagOnly, check_s7_an_abandoned_lease_makes_a_thread_claimable),
    (LeavesChildrenBehind, check_s7_delete_cascades_to_children),
    (OpensSilently, check_s8_open_reports_progress_and_closed_store_refuses),
]


@pytest.mark.parametrize(("store", "check"), BROKEN, ids=[b[0].__name__ for b in BROKEN])
async def test_a_store_breaking_a_rule_fails_that_rules_check(
    store: type[MemoryStore], check: Callable[[StoreFactory], Awaitable[None]]
) -> None:
    rule = check.__name__.split("_")[1].upper()
    with pytest.raises(StoreConformanceError, match=rf"^{rule}"):
        await check(store)


async def test_the_whole_suite_names_the_failing_check() -> None:
    with pytest.raises(StoreConformanceError, match="check_s3_"):
        await run_store_conformance(ForgetsRequestKeys)


async def test_a_store_that_opens_on_incompatible_data_fails_the_schema_check() -> None:
    with pytest.raises(StoreConformanceError, match=r"^S8"):
        await check_s8_incompatible_schema_fails_closed([MemoryStore])
