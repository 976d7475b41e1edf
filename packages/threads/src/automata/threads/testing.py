"""A reusable conformance suite for `ThreadStore` backends.

Every backend (the memory and SQLite stores, yours) proves from its own tests that it
keeps the storage contract S1-S8 of `automata.threads.store` and the retention
rules RT1-RT5 of docs/threads-storage.md. Each check is named after
the rule it pins (`check_s3_...`), takes a factory that makes a fresh, unopened store,
opens it, checks, and closes it.

Use the check functions directly, `run_store_conformance` for all of them, or subclass
`StoreConformance` in a pytest module (it collects as a test class when your subclass
is named `Test...`; async tests must be enabled, e.g. pytest-asyncio in auto mode).
Nothing here imports pytest: failures raise `StoreConformanceError`, an
`AssertionError`, so any runner reports them.

Some checks wait for real leases to expire (`SHORT_TTL` seconds), so the whole suite
takes a few seconds.

`WriteTap` wraps a store to tell a test about each committed write (a `StoreWrite`),
so a crash test can kill a host right after write N of a turn, for every N.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from automata.threads._conformance_activity import (
    check_s1_fact_records_commit_with_their_results_and_read_back_exact,
)
from automata.threads._conformance_artifacts import (
    check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere,
    check_s1_an_artifact_commits_with_its_results_or_not_at_all,
    check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end,
)
from automata.threads._conformance_context import (
    check_s2_context_records_read_back_and_fold_to_the_same_record,
)
from automata.threads._conformance_facts import check_s2_todo_records_read_back_exactly
from automata.threads._conformance_journal import (
    check_s1_a_failed_write_commits_nothing,
    check_s1_create_commits_thread_and_records_together,
    check_s2_concurrent_appends_get_consecutive_seqs,
    check_s2_journal_is_ordered_and_paged_without_gaps,
    check_s3_duplicate_and_conflicting_appends,
    check_s3_duplicate_and_conflicting_creates,
    check_s3_keys_outlive_deleted_threads,
    check_s6_pages_are_bounded,
    check_s6_thread_list_pages_newest_first,
)
from automata.threads._conformance_leases import (
    check_s4_claims_exclude_other_owners,
    check_s4_expiry_hands_the_lease_over,
    check_s5_fence_refuses_after_claim_by_another_owner,
    check_s5_fence_refuses_after_revoke,
    check_s5_release_with_if_last_seq,
    check_s7_active_flag_and_claimable_order,
    check_s7_an_abandoned_lease_makes_a_thread_claimable,
    check_s7_delete_cascades_to_children,
    check_s8_incompatible_schema_fails_closed,
    check_s8_open_reports_progress_and_closed_store_refuses,
)
from automata.threads._conformance_retention import (
    check_rt1_purge_takes_ended_trees_last_written_before_the_date,
    check_rt2_keep_last_purges_only_top_level_threads_over_the_count,
    check_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing,
    check_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing,
    check_rt5_request_keys_stay_and_bad_arguments_are_refused,
)
from automata.threads._conformance_support import (
    CONCURRENT_WRITERS,
    SHORT_TTL,
    StoreConformanceError,
    StoreFactory,
)
from automata.threads._write_tap import StoreWrite, WriteTap
from automata.threads.store import ThreadStore

__all__ = [
    "ALL_CHECKS",
    "CONCURRENT_WRITERS",
    "SHORT_TTL",
    "StoreConformance",
    "StoreConformanceError",
    "StoreFactory",
    "StoreWrite",
    "WriteTap",
    "check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere",
    "check_rt1_purge_takes_ended_trees_last_written_before_the_date",
    "check_rt2_keep_last_purges_only_top_level_threads_over_the_count",
    "check_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing",
    "check_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing",
    "check_rt5_request_keys_stay_and_bad_arguments_are_refused",
    "check_s1_a_failed_write_commits_nothing",
    "check_s1_an_artifact_commits_with_its_results_or_not_at_all",
    "check_s1_create_commits_thread_and_records_together",
    "check_s1_fact_records_commit_with_their_results_and_read_back_exact",
    "check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end",
    "check_s2_concurrent_appends_get_consecutive_seqs",
    "check_s2_context_records_read_back_and_fold_to_the_same_record",
    "check_s2_journal_is_ordered_and_paged_without_gaps",
    "check_s2_todo_records_read_back_exactly",
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
    "check_s7_an_abandoned_lease_makes_a_thread_claimable",
    "check_s7_delete_cascades_to_children",
    "check_s8_incompatible_schema_fails_closed",
    "check_s8_open_reports_progress_and_closed_store_refuses",
    "run_store_conformance",
]


# -- running the suite ---------------------------------------------------------------

ALL_CHECKS: tuple[Callable[[StoreFactory], Awaitable[None]], ...] = (
    check_s1_create_commits_thread_and_records_together,
    check_s1_a_failed_write_commits_nothing,
    check_s1_fact_records_commit_with_their_results_and_read_back_exact,
    check_s2_journal_is_ordered_and_paged_without_gaps,
    check_s2_concurrent_appends_get_consecutive_seqs,
    check_s2_todo_records_read_back_exactly,
    check_s2_context_records_read_back_and_fold_to_the_same_record,
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
    check_s7_an_abandoned_lease_makes_a_thread_claimable,
    check_s7_delete_cascades_to_children,
    check_s8_open_reports_progress_and_closed_store_refuses,
    check_rt1_purge_takes_ended_trees_last_written_before_the_date,
    check_rt2_keep_last_purges_only_top_level_threads_over_the_count,
    check_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing,
    check_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing,
    check_rt5_request_keys_stay_and_bad_arguments_are_refused,
    check_s1_an_artifact_commits_with_its_results_or_not_at_all,
    check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end,
    check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere,
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

    async def test_s1_fact_records_commit_with_their_results_and_read_back_exact(self) -> None:
        await check_s1_fact_records_commit_with_their_results_and_read_back_exact(self.make_store)

    async def test_s2_journal_is_ordered_and_paged_without_gaps(self) -> None:
        await check_s2_journal_is_ordered_and_paged_without_gaps(self.make_store)

    async def test_s2_concurrent_appends_get_consecutive_seqs(self) -> None:
        await check_s2_concurrent_appends_get_consecutive_seqs(self.make_store)

    async def test_s2_todo_records_read_back_exactly(self) -> None:
        await check_s2_todo_records_read_back_exactly(self.make_store)

    async def test_s2_context_records_read_back_and_fold_to_the_same_record(self) -> None:
        await check_s2_context_records_read_back_and_fold_to_the_same_record(self.make_store)

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

    async def test_s7_an_abandoned_lease_makes_a_thread_claimable(self) -> None:
        await check_s7_an_abandoned_lease_makes_a_thread_claimable(self.make_store)

    async def test_s7_delete_cascades_to_children(self) -> None:
        await check_s7_delete_cascades_to_children(self.make_store)

    async def test_s8_open_reports_progress_and_closed_store_refuses(self) -> None:
        await check_s8_open_reports_progress_and_closed_store_refuses(self.make_store)

    async def test_rt1_purge_takes_ended_trees_last_written_before_the_date(self) -> None:
        await check_rt1_purge_takes_ended_trees_last_written_before_the_date(self.make_store)

    async def test_rt2_keep_last_purges_only_top_level_threads_over_the_count(self) -> None:
        await check_rt2_keep_last_purges_only_top_level_threads_over_the_count(self.make_store)

    async def test_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing(self) -> None:
        await check_rt3_a_live_lease_refuses_the_purge_and_deletes_nothing(self.make_store)

    async def test_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing(
        self,
    ) -> None:
        await check_rt4_archive_holds_each_journal_and_a_failed_archive_deletes_nothing(
            self.make_store
        )

    async def test_rt5_request_keys_stay_and_bad_arguments_are_refused(self) -> None:
        await check_rt5_request_keys_stay_and_bad_arguments_are_refused(self.make_store)

    async def test_s1_an_artifact_commits_with_its_results_or_not_at_all(self) -> None:
        await check_s1_an_artifact_commits_with_its_results_or_not_at_all(self.make_store)

    async def test_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end(self) -> None:
        await check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end(self.make_store)

    async def test_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere(self) -> None:
        await check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere(self.make_store)

    async def test_s8_incompatible_schema_fails_closed(self) -> None:
        await check_s8_incompatible_schema_fails_closed(self.incompatible_stores())
