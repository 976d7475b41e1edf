"""Appends of the PostgreSQL store, and how concurrent ones share a commit.

Every append runs `Queries.append`: one statement that locks the rows of its threads,
checks each item's fence against its own locked row and writes only the items whose
fence holds (see `_queries`). An append without a request key is one item of that
statement on its own connection in autocommit, so it is its own transaction: one
round trip, with `durable` included (the statement sets `synchronous_commit` for its
own transaction when the session's setting is `off`).

**Group commit.** Appends without a request key made while the store's earlier ones
are in flight wait in a queue (`AppendQueue`); whichever flush comes next takes every
waiting append whose thread is not already in its batch (at most one item per thread,
in arrival order, so one thread's appends keep their order) and runs them as one
statement. What each item promises is unchanged:

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

Rows are locked in thread id order, so two hosts' batches over the same threads wait
for each other rather than deadlock.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import TupleRow

from automata.postgres._queries import Queries
from automata.threads import LeaseLostError, StoreUnavailableError, ThreadNotFoundError
from automata.threads.store import Commit, Lease, NewRecord

__all__ = ["MAX_BATCH", "AppendItem", "AppendQueue", "append_many"]

_Connection = AsyncConnection[TupleRow]

MAX_BATCH = 64
"""The most appends one flush commits together."""


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


def _parameters(items: Sequence[AppendItem], channel: str) -> dict[str, Any]:
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


def _outcome(item: AppendItem, last_seq: int | None, wrote: bool) -> Commit | Exception:
    if last_seq is None:
        return ThreadNotFoundError(item.thread_id)
    if not wrote:
        assert item.fence is not None
        return LeaseLostError(item.thread_id, item.fence.owner, item.fence.generation)
    count = len(item.records)
    return Commit(last_seq + 1, last_seq + count) if count else Commit(0, 0)


async def append_many(
    connection: _Connection, queries: Queries, channel: str, items: Sequence[AppendItem]
) -> list[Commit | Exception]:
    """Run `items` (at most one per thread) as one statement on `connection`; answers
    each item's commit, or the error it is refused with (`ThreadNotFoundError`,
    `LeaseLostError`), in order."""
    cursor = await connection.execute(queries.append, _parameters(items, channel))
    rows = await cursor.fetchall()
    return [
        _outcome(item, None if last_seq is None else int(last_seq), bool(wrote))
        for item, (_, last_seq, wrote) in zip(items, rows, strict=True)
    ]


def _answer(waiter: asyncio.Future[Commit], outcome: Commit | BaseException) -> None:
    if waiter.done():  # its caller was cancelled; the append ran all the same
        return
    if isinstance(outcome, BaseException):
        waiter.set_exception(outcome)
    else:
        waiter.set_result(outcome)


def _each(error: StoreUnavailableError) -> StoreUnavailableError:
    """A copy of `error` for one caller (each raises its own exception object)."""
    copy = StoreUnavailableError(str(error), committed=error.committed)
    copy.__cause__ = error.__cause__
    return copy


RunBatch = Callable[[Sequence[AppendItem]], Awaitable[list[Commit | Exception]]]
"""Runs a batch as one statement on a connection of its own (`append_many`), raising
what the store's calls raise (`StoreError`, `StoreUnavailableError`, ...)."""


class AppendQueue:
    """Appends waiting to be committed, flushed by at most `flushers` batches at a
    time, each of at most `MAX_BATCH` appends. `spawn` starts a flush as a task the
    store waits for when it closes."""

    def __init__(
        self,
        run_batch: RunBatch,
        spawn: Callable[[Awaitable[None]], object],
        *,
        flushers: int,
    ) -> None:
        self._run_batch = run_batch
        self._spawn = spawn
        self._flushers = flushers
        self._flushing = 0
        self._waiting: deque[tuple[AppendItem, asyncio.Future[Commit]]] = deque()
        self._in_flight: set[str] = set()  # threads of the batches being committed

    def append(self, item: AppendItem) -> asyncio.Future[Commit]:
        """Queue `item`; the future answers its commit or its error."""
        waiter: asyncio.Future[Commit] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, waiter))
        if self._flushing < self._flushers:
            self._flushing += 1
            self._spawn(self._flush())
        return waiter

    def _take(self) -> list[tuple[AppendItem, asyncio.Future[Commit]]]:
        """The next batch: waiting appends in order, at most one per thread and none of
        a thread whose append is being committed (so a thread's appends commit one
        after another, in the order they were made)."""
        batch: list[tuple[AppendItem, asyncio.Future[Commit]]] = []
        threads = set(self._in_flight)
        later: deque[tuple[AppendItem, asyncio.Future[Commit]]] = deque()
        while self._waiting and len(batch) < MAX_BATCH:
            entry = self._waiting.popleft()
            if entry[0].thread_id in threads:
                later.append(entry)
            else:
                threads.add(entry[0].thread_id)
                batch.append(entry)
        later.extend(self._waiting)
        self._waiting = later
        self._in_flight.update(item.thread_id for item, _ in batch)
        return batch

    async def _flush(self) -> None:
        try:
            while batch := self._take():
                await self._commit(batch)
        finally:
            self._flushing -= 1

    async def _commit(self, batch: list[tuple[AppendItem, asyncio.Future[Commit]]]) -> None:
        items = [item for item, _ in batch]
        try:
            outcomes = await self._outcomes(items)
        finally:
            self._in_flight.difference_update(item.thread_id for item in items)
        for (_, waiter), outcome in zip(batch, outcomes, strict=True):
            _answer(waiter, outcome)

    async def _outcomes(self, items: list[AppendItem]) -> Sequence[Commit | BaseException]:
        try:
            return await self._run_batch(items)
        except StoreUnavailableError as error:  # sent or not, the batch as a whole
            return [_each(error) for _ in items]
        except Exception as error:  # the statement failed: nothing was written
            if len(items) == 1:
                return [error]
            return [await self._alone(item) for item in items]  # each its own answer

    async def _alone(self, item: AppendItem) -> Commit | BaseException:
        try:
            return (await self._run_batch([item]))[0]
        except Exception as error:
            return error
