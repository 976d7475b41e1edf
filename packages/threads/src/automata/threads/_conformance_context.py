"""Conformance check of the context record's journal records (docs/threads.md CX): a
store keeps them exactly, in commit order, so every process folds the same policy,
totals and compaction operations from them."""

from __future__ import annotations

from automata.core import CompactionSummary, Message, Usage
from automata.threads._conformance_support import StoreFactory, expect, opened
from automata.threads._context import (
    CompactionOperation,
    CompactionPolicy,
    ContextPolicy,
    ThreadContext,
    UsageTotals,
)
from automata.threads._fold import ThreadFold
from automata.threads._records import compaction_record, decode, encode, message_data
from automata.threads.store import NewRecord

__all__ = ["check_s2_context_records_read_back_and_fold_to_the_same_record"]

_USAGE = Usage(input_tokens=7, output_tokens=3, cache_read_tokens=11, cache_write_tokens=5)


def _context_journal() -> list[NewRecord]:
    """A turn (`turn-2`) with a policy, a completed operation named by its summary, a
    failed one, one a crash left open, and an old-style summary without an operation."""
    summary = CompactionSummary(key="ab" * 32, covered=3, summary="résumé « court »\n🙂")
    policy = CompactionPolicy(4000, 6, 8, "scripted:sum-1").to_data()
    step = encode(
        "step",
        turn="turn-2",
        message=message_data(Message.assistant("ok")),
        usage=_USAGE.model_dump(mode="json"),
        stop_reason="end_turn",
        totals=UsageTotals.of(_USAGE).to_data(),
    )
    return [
        encode("input", message=message_data(Message.user("hi")), request_key="s"),
        encode("turn_started", turn="turn-2", run=1, surface={}, fingerprint="f"),
        encode("context_policy", turn="turn-2", compactors=[policy]),
        encode("compaction_started", turn="turn-2"),  # seq 5
        compaction_record("turn-2", summary, "compaction-5"),
        step,
        encode("compaction_started", turn="turn-2"),  # seq 8
        encode("compaction_ended", turn="turn-2", op="compaction-8", state="failed", error="down"),
        compaction_record("turn-2", summary),  # seq 10: a journal written before CX
        encode("compaction_started", turn="turn-2"),  # seq 11: left open by a crash
    ]


async def check_s2_context_records_read_back_and_fold_to_the_same_record(
    factory: StoreFactory,
) -> None:
    """S2 (CX5): the context records (a policy, operations started, completed, failed
    and left open, a step's totals; multi-byte text), each start committed on its own
    under the runner's lease, read back with the same kind and bytes in commit order,
    and fold to the context record they were written for."""
    rule = "S2"
    written = [encode("created", title="", parent_id=None, agent=None), *_context_journal()]
    async with opened(factory) as store:
        await store.create_thread("t", written[:1])
        lease = await store.claim("t", "owner", 30.0)
        expect(lease is not None, rule, "a fresh thread could not be claimed")
        assert lease is not None
        for new in written[1:]:
            await store.append("t", [new], fence=lease)
        records = await store.read("t")
        expect(
            [(r.kind, r.data) for r in records] == [(w.kind, w.data) for w in written],
            rule,
            "context records did not read back byte for byte",
        )
        fold = ThreadFold("t")
        for read in records:
            fold.apply(decode(read))
    expected = ThreadContext(
        "t",
        ContextPolicy((CompactionPolicy(4000, 6, 8, "scripted:sum-1"),), "turn-2"),
        UsageTotals(7, 3, 11, 5),
        (
            CompactionOperation("compaction-5", "turn-2", "completed", 3, "ab" * 32),
            CompactionOperation("compaction-8", "turn-2", "failed", error="down"),
            CompactionOperation("compaction-10", "turn-2", "completed", 3, "ab" * 32),
            CompactionOperation("compaction-11", "turn-2", "started"),
        ),
    )
    got = fold.context()
    expect(got == expected, rule, f"the journal folds to another context record: {got}")
