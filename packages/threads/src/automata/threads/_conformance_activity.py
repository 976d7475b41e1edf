"""Conformance checks of the records that carry thread facts beyond messages (tool
activity, AC rules of docs/threads.md): they commit whole with the records they
belong to (S1) and read back exactly as written, at the largest size the service
writes them."""

from __future__ import annotations

from automata.core import Activity, ActivityRow
from automata.core._activity import MAX_ACTIVITY_ROWS, MAX_LABEL_CHARS, MAX_ROW_CHARS
from automata.threads._conformance_support import StoreFactory, expect, opened
from automata.threads._records import encode
from automata.threads.store import NewRecord

__all__ = ["check_s1_fact_records_commit_with_their_results_and_read_back_exact"]


def largest_activity() -> Activity:
    """An activity at every bound: rows of markdown, code and text with newlines,
    quotes, backslashes and characters outside the BMP."""
    text = ('é"\\\n🙂' * MAX_ROW_CHARS)[:MAX_ROW_CHARS]
    activity = Activity().with_label("л" * MAX_LABEL_CHARS).with_status("3/5 ✓")
    kinds = ("text", "markdown", "code")
    for n in range(MAX_ACTIVITY_ROWS):
        kind = kinds[n % 3]
        row = ActivityRow.of(text, kind, "python" if kind == "code" else None)
        activity = activity.with_row(row)
    return activity


async def check_s1_fact_records_commit_with_their_results_and_read_back_exact(
    factory: StoreFactory,
) -> None:
    """S1: a fenced append of a call's `activity` record (at its largest, over 200 kB
    of multi-byte text) with the call's `results` commits both as one run and reads
    back character for character, in order."""
    rule = "S1"
    activity = largest_activity().to_data()
    records: list[NewRecord] = [
        encode("activity", turn="turn-2", call="c1", activity=activity),
        encode("results", turn="turn-2", message={"role": "tool", "content": []}),
    ]
    async with opened(factory) as store:
        await store.create_thread("t", [encode("created", title="", parent_id=None, agent=None)])
        lease = await store.claim("t", "owner", 30.0)
        expect(lease is not None, rule, "a fresh thread could not be claimed")
        assert lease is not None
        commit = await store.append("t", records, fence=lease)
        expect(commit.first_seq == 2 and commit.last_seq == 3, rule, f"committed {commit}")
        read = await store.read("t")
        expect(
            [(r.kind, r.data) for r in read[1:]] == [(r.kind, r.data) for r in records],
            rule,
            "fact records did not read back exactly as written",
        )
        expect(len(read) == 3, rule, f"the journal holds {len(read)} records, not 3")
