"""Appends of the PostgreSQL store, and how concurrent ones share a commit.

Every append runs `Queries.append`: one statement that locks the rows of its threads,
checks each item's fence against its own locked row and writes only the items whose
fence holds (see `_queries`). An append without a request key is one item of that
statement on its own connection in autocommit, so it is its own transaction: one
round trip, with `durable` included (the statement sets `synchronous_commit` for its
own transaction when the session's setting is `off`).

**Group commit.** Appends without a request key made while the store's earlier ones
are in flight wait in a queue (`_batches.BatchQueue`, keyed by thread); whichever flush
comes next takes every waiting append whose thread is neither in its batch nor in one
being committed (one item per thread, in arrival order, so one thread's appends commit
in the order they were made) and runs them as one statement. What each item promises
is unchanged:

- each item's fence is checked against its own row under that row's lock, so a write
  whose lease was lost is refused and writes nothing, whatever else shares its batch;
- each item is all or nothing, and a batch commits as a whole: no item is ever half
  written, and one answered as committed is committed;
- a batch holding a durable item commits durably (the others with it: more durable
  than asked, never less);
- a batch whose statement fails (an error of the database, text that cannot be sent)
  wrote nothing, and each of its items is then run on its own, so each caller gets its
  own answer; a batch whose connection broke during its commit fails every item with
  `StoreUnavailableError(committed=None)`, none sent again, as a single append does.

A batch of several threads never waits for a row lock: it skips a row another
transaction holds (`SKIP LOCKED`), and that item runs again on its own once the
others are answered, waiting for the lock while holding no other. So a batch is never
in a deadlock, whatever order other writers lock rows in (a tree's delete locks the
root first, then the rest).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import TupleRow

from automata.postgres._batches import RunAlone
from automata.postgres._queries import Queries
from automata.threads import LeaseLostError, ThreadNotFoundError
from automata.threads.store import Commit, Lease, NewRecord

__all__ = ["AppendItem", "answer", "append_many", "parameters"]

_Connection = AsyncConnection[TupleRow]


@dataclass(frozen=True, slots=True)
class AppendItem:
    """One append's arguments, as `ThreadStore.append` takes them (no request key)."""

    thread_id: str
    records: tuple[NewRecord, ...]
    fence: Lease | None = None
    active: bool | None = None
    summary: str | None = None
    revoke_lease: bool = False
    durable: bool = False


def parameters(items: Sequence[AppendItem], channel: str) -> dict[str, Any]:
    """The parameters of `Queries.append` for `items` (one per thread). Text that is
    not valid Unicode (a lone surrogate) stays in the JSON as it is, so sending it
    fails as sending it as a parameter of its own does."""
    asked = [
        {
            "item": number,
            "thread_id": item.thread_id,
            "fenced": item.fence is not None,
            "owner": None if item.fence is None else item.fence.owner,
            "generation": None if item.fence is None else item.fence.generation,
            "count": len(item.records),
            "active": item.active,
            "summary": item.summary,
            "revoke": item.revoke_lease,
        }
        for number, item in enumerate(items, 1)
    ]
    records = [
        {"item": number, "pos": pos, "kind": new.kind, "data": new.data}
        for number, item in enumerate(items, 1)
        for pos, new in enumerate(item.records, 1)
    ]
    return {
        "durable": any(item.durable for item in items),
        "items": _json(asked),
        "records": _json(records),
        "channel": channel,
    }


def _json(values: list[dict[str, Any]]) -> str:
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


def answer(item: AppendItem, last_seq: int | None, wrote: bool) -> Commit | Exception:
    """An item's commit, or its error, from its row's last_seq before the append (None:
    no such thread) and whether it wrote."""
    if last_seq is None:
        return ThreadNotFoundError(item.thread_id)
    if not wrote:
        assert item.fence is not None
        return LeaseLostError(item.thread_id, item.fence.owner, item.fence.generation)
    count = len(item.records)
    return Commit(last_seq + 1, last_seq + count) if count else Commit(0, 0)


async def append_many(
    connection: _Connection,
    queries: Queries,
    channel: str,
    items: Sequence[AppendItem],
    *,
    wait: bool,
) -> list[Commit | Exception]:
    """Run `items` (at most one per thread) as one statement on `connection`; answers
    each item's commit, or the error it is refused with (`ThreadNotFoundError`,
    `LeaseLostError`, or, unless `wait`, `_batches.RunAlone` for a row another
    transaction held locked), in order. With `wait`, the statement waits for its
    locks: hold no other lock then (one item, or a transaction that holds only its
    row's), and a row deleted meanwhile is no thread."""
    statement = queries.append if wait else queries.append_skipping
    cursor = await connection.execute(statement, parameters(items, channel))
    rows = await cursor.fetchall()
    return [
        RunAlone()
        if skipped and not wait
        else answer(item, None if seq is None else int(seq), bool(wrote))
        for item, (_, seq, wrote, skipped) in zip(items, rows, strict=True)
    ]
