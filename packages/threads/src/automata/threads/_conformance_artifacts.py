"""Conformance checks of the records that keep artifacts (docs/threads.md, AR rules): a
tool's whole output, up to megabytes of text or bytes, in the append that commits its
preview. A store keeps such a record whole or not at all with the rest of its append
(S1), reads it back exactly and alone in a page of one (S2, S6), so the service pages
its content to the end, and a purge takes a thread's artifact records and never
another thread's copy of them (RT1)."""

from __future__ import annotations

import json
from typing import Any

from automata.core import Artifact
from automata.threads._artifacts import (
    ARTIFACT_PAGE,
    artifact_info,
    artifact_page,
    artifact_record,
    copied_record,
)
from automata.threads._conformance_support import StoreFactory, claim, expect, opened, raises
from automata.threads._errors import LeaseLostError, RequestConflictError
from automata.threads._records import decode, encode
from automata.threads._retention import record_bytes
from automata.threads.store import NewRecord, ThreadStore

__all__ = [
    "LARGE_TEXT_CHARS",
    "check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere",
    "check_s1_an_artifact_commits_with_its_results_or_not_at_all",
    "check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end",
]

LARGE_TEXT_CHARS = 1_200_000
"""The characters of the large text artifact the checks store (about 2.4 MB of UTF-8:
Latin, accented, CJK and characters outside the BMP, quotes and backslashes)."""


def large_artifacts() -> tuple[Artifact, Artifact]:
    """A large text artifact (`LARGE_TEXT_CHARS` characters) and a binary one holding
    every byte value (300 kB, journaled as base64)."""
    text = ('line "é" \\ 🙂 修正 \n' * LARGE_TEXT_CHARS)[:LARGE_TEXT_CHARS]
    return (
        Artifact(text, "text/markdown", name="page.md"),
        Artifact(bytes(range(256)) * 1200, "application/octet-stream", name="blob.bin"),
    )


def _results() -> NewRecord:
    return encode("results", turn="turn-2", message={"role": "tool", "content": []})


async def _thread(store: ThreadStore, thread_id: str) -> None:
    await store.create_thread(thread_id, [encode("created", title="", parent_id=None, agent=None)])


async def check_s1_an_artifact_commits_with_its_results_or_not_at_all(
    factory: StoreFactory,
) -> None:
    """S1 (AR3): a fenced append of two large `artifact` records with the `results`
    record previewing them commits all three as one run; the same append refused by
    its fence, or by a request key another request holds, commits none of them, not
    even its request key."""
    rule = "S1"
    text, blob = large_artifacts()
    records = [
        artifact_record("turn-2", "c1", text),
        artifact_record("turn-2", "c2", blob),
        _results(),
    ]
    async with opened(factory) as store:
        await _thread(store, "t")
        lease = await store.claim("t", "first", 30.0)
        expect(lease is not None, rule, "a fresh thread could not be claimed")
        assert lease is not None
        await store.append("t", [], revoke_lease=True)
        current = await store.claim("t", "second", 30.0)
        expect(current is not None, rule, "a claim after a revoke failed")
        assert current is not None
        await raises(
            LeaseLostError,
            rule,
            "an artifact append fenced by a lost lease",
            store.append("t", records, fence=lease, request=claim("k1")),
        )
        expect(len(await store.read("t")) == 1, rule, "a refused artifact append wrote")
        await store.append("t", [], request=claim("k2", "another request"))
        await raises(
            RequestConflictError,
            "S3",
            "an artifact append under a key another request holds",
            store.append("t", records, fence=current, request=claim("k2")),
        )
        expect(len(await store.read("t")) == 1, rule, "a conflicting artifact append wrote")
        commit = await store.append("t", records, fence=current, request=claim("k1"))
        expect(
            not commit.duplicate and (commit.first_seq, commit.last_seq) == (2, 4),
            rule,
            f"the artifact append committed {commit} (its key kept by a refused write?)",
        )
        read = await store.read("t")
        expect(
            [(r.kind, r.data) for r in read[1:]] == [(r.kind, r.data) for r in records],
            rule,
            "the artifact append did not read back as written",
        )


async def check_s2_a_large_artifact_reads_back_exactly_and_pages_to_its_end(
    factory: StoreFactory,
) -> None:
    """S2, S6 (AR5): large `artifact` records read back with the same kind and data,
    in order, and alone in a page of one (`read(after=seq - 1, limit=1)`, as the
    service serves them); their content pages back whole, character for character
    and byte for byte, in pages of `ARTIFACT_PAGE`."""
    rule = "S2"
    artifacts = large_artifacts()
    written = [artifact_record("turn-2", f"c{n}", a) for n, a in enumerate(artifacts)]
    async with opened(factory) as store:
        await _thread(store, "t")
        await store.append("t", [*written, _results()])
        read = await store.read("t")
        expect(
            [(r.kind, r.data) for r in read[1:3]] == [(w.kind, w.data) for w in written],
            rule,
            "artifact records did not read back exactly as written",
        )
        for seq, artifact in zip((2, 3), artifacts, strict=True):
            page = await store.read("t", after=seq - 1, limit=1)
            expect(
                [r.seq for r in page] == [seq],
                "S6",
                f"a page of one after {seq - 1} held {[r.seq for r in page]}",
            )
            data = decode(page[0]).data
            info = artifact_info(seq, data)
            expect(
                (info.id, info.size, info.length) == (artifact.id, artifact.size, artifact.length),
                rule,
                f"the record describes another artifact: {info}",
            )
            pieces: list[str | bytes] = []
            offset: int | None = 0
            while offset is not None:
                got = artifact_page(info, data, offset, ARTIFACT_PAGE)
                pieces.append(got.content)
                offset = got.next_offset
            whole = (
                "".join(p for p in pieces if isinstance(p, str))
                if artifact.is_text
                else b"".join(p for p in pieces if isinstance(p, bytes))
            )
            expect(whole == artifact.content, rule, f"{info.id} paged back other content")


async def check_rt1_a_purge_takes_its_threads_artifacts_and_no_copy_elsewhere(
    factory: StoreFactory,
) -> None:
    """RT1 (AR10): of two ended threads holding the same artifact (a source and the
    copy a fork wrote), a purge of the older takes its artifact record, counted in
    the report's records and bytes, and leaves the other's copy reading back exactly."""
    rule = "RT1"
    text, _ = large_artifacts()
    original = artifact_record("turn-2", "c1", text)
    copy = copied_record(_fields(original))
    async with opened(factory) as store:
        await _thread(store, "source")
        await store.append("source", [original, _results()])
        await _thread(store, "fork")
        await store.append("fork", [copy])
        gone = await store.read("source")
        report = await store.purge(keep_last=1)
        expect(report.thread_ids == ("source",), rule, f"purged {report.thread_ids}")
        expect(
            (report.records, report.bytes) == (len(gone), record_bytes(gone)),
            rule,
            f"the report counts {report.records} records, {report.bytes} bytes; the "
            f"source held {len(gone)}, {record_bytes(gone)}",
        )
        expect(await store.thread("source") is None, rule, "the purged source is listed")
        kept = await store.read("fork")
        expect(
            [(r.kind, r.data) for r in kept[1:]] == [(copy.kind, copy.data)],
            rule,
            "the fork's copy of a purged thread's artifact did not read back exactly",
        )


def _fields(record: NewRecord) -> dict[str, Any]:
    """The fields of a record not yet committed (what a fork reads from its source)."""
    data: dict[str, Any] = json.loads(record.data)
    return data
