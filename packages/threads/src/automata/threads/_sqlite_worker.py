"""The SQLite store's worker: one thread that owns the connection and runs the store's
calls, writes committed in groups (group commit).

What it guarantees:

- **One connection, one thread.** Every call runs on the worker thread, in the order
  the calls were submitted except that reads may run before writes submitted with
  them (a read never sees a write that has not committed, and every write still
  starts after the calls its caller awaited).
- **Group commit.** The writes waiting when the worker turns to them (at most
  `GROUP_LIMIT`) run in one `BEGIN IMMEDIATE` transaction, one after the other: a
  write refused before it changed a row (a lost lease, an unknown thread, a request
  key reused) gets its error and the others go on; they commit together with one
  `COMMIT`, hence one sync of the log when any of them asked to be durable (the group
  then commits at `synchronous = FULL`). No caller is answered before the commit that
  holds its write returned.
- **Failing closed.** When anything else fails (the write lock not taken in time, a
  write failing after it changed rows, the commit failing), nothing of the group
  committed; it is rolled back and each of its writes runs again alone in a
  transaction of its own, as if it had never been grouped.
- **Cancellation.** A call cancelled before the worker took it up is not run; one
  taken up runs to its end (commit or rollback), its result dropped.
- **Gathering.** While writes of several callers keep arriving, a durable commit
  waits for them a little (a quarter of the last durable commit's time at most, never
  over `GATHER_LIMIT`) so that one sync of the log serves them all; a lone writer
  never waits.
- **Answers.** The results of everything the worker ran in one pass reach the event
  loop in one callback.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

__all__ = ["GROUP_LIMIT", "SQLiteWorker"]

GROUP_LIMIT = 256
"""The most writes one transaction commits together."""

GATHER_LIMIT = 0.002
"""The longest a durable commit waits for more writes to share its sync (seconds)."""

_T = TypeVar("_T")
Kind = Literal["read", "write", "solo"]


@dataclass(eq=False)
class _Call:
    kind: Kind
    run: Callable[[], Any]
    future: asyncio.Future[Any]
    durable: bool = False
    outcome: tuple[bool, Any] | None = field(default=None)


class SQLiteWorker:
    """Runs calls on one thread for the connection `connection()` returns there.

    `read` calls run as they are; `write` calls (each doing its work on the
    connection, without beginning or ending a transaction) are grouped into
    transactions; `solo` calls run alone between the two, managing their own
    transactions (opening, closing, a purge)."""

    def __init__(self, connection: Callable[[], sqlite3.Connection], name: str) -> None:
        self._connection = connection
        self._queue: queue.SimpleQueue[list[_Call] | None] = queue.SimpleQueue()
        self._outbox: list[_Call] = []
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread.start()

    def submit(self, kind: Kind, run: Callable[[], _T], *, durable: bool = False) -> Any:
        """The future of `run`'s result (or error), run on the worker as `kind`."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        future: asyncio.Future[_T] = loop.create_future()
        if not self._outbox:
            loop.call_soon(self._flush)
        self._outbox.append(_Call(kind, run, future, durable))
        return future

    def _flush(self) -> None:
        """Hand the calls submitted in this turn of the event loop to the worker at
        once: one wake-up of its thread for all of them."""
        calls, self._outbox = self._outbox, []
        if calls:
            self._queue.put(calls)

    def stop(self) -> None:
        """End the thread once the calls submitted before are done (not waiting)."""
        self._flush()
        self._queue.put(None)

    # -- on the worker ----------------------------------------------------------------

    def _serve(self) -> None:
        busy = False  # the last pass had writes of several callers
        sync = 0.0  # how long the last durable commit took
        while True:
            calls: list[_Call | None] = []
            self._add(calls, self._queue.get())
            self._drain(calls)
            if busy and any(call is not None and call.durable for call in calls):
                self._gather(calls, sync)
            stopping = None in calls
            taken = [call for call in calls if call is not None and not call.future.cancelled()]
            started = time.perf_counter()
            self._run_pass(taken)
            if any(call.durable for call in taken):
                sync = time.perf_counter() - started
            self._answer(taken)
            busy = sum(call.kind == "write" for call in taken) > 1
            if stopping:
                return

    def _drain(self, calls: list[_Call | None]) -> int:
        """Add the calls waiting now to `calls` (until it holds `GROUP_LIMIT`); how
        many."""
        added = 0
        while len(calls) < GROUP_LIMIT:
            try:
                added += self._add(calls, self._queue.get_nowait())
            except queue.Empty:
                break
        return added

    @staticmethod
    def _add(calls: list[_Call | None], handed: list[_Call] | None) -> int:
        if handed is None:
            calls.append(None)
            return 1
        calls.extend(handed)
        return len(handed)

    def _gather(self, calls: list[_Call | None], sync: float) -> None:
        """Before a durable commit while several callers write, wait a little for the
        writes still coming (at most a quarter of the last durable commit's time, and
        only while more keep arriving), so one sync of the log serves them too."""
        step = min(sync, GATHER_LIMIT * 4) / 16
        for _ in range(4):
            time.sleep(step)
            if not self._drain(calls):
                return

    def _run_pass(self, calls: list[_Call]) -> None:
        pending: list[_Call] = []
        for call in calls:
            if call.kind == "solo":
                self._run_segment(pending)
                pending = []
                _run_one(call)
            else:
                pending.append(call)
        self._run_segment(pending)

    def _run_segment(self, calls: list[_Call]) -> None:
        writes = [call for call in calls if call.kind == "write"]
        for call in calls:
            if call.kind == "read":
                _run_one(call)
        if len(writes) == 1:
            self._write_alone(writes[0])
        elif writes:
            self._write_group(writes)

    def _write_alone(self, call: _Call) -> None:
        try:
            with self.transaction(durable=call.durable):
                call.outcome = (True, call.run())
        except BaseException as error:
            call.outcome = (False, error)

    def _write_group(self, calls: list[_Call]) -> None:
        db = self._connection()
        try:
            with self.transaction(durable=any(call.durable for call in calls)):
                for call in calls:
                    changes = db.total_changes
                    try:
                        call.outcome = (True, call.run())
                    except Exception as error:
                        if db.total_changes != changes or not db.in_transaction:
                            raise _GroupFailed from error  # it wrote part of its work
                        call.outcome = (False, error)  # refused before writing anything
        except BaseException:
            for call in calls:  # nothing of the group committed: each alone, again
                call.outcome = None
                self._write_alone(call)

    @contextlib.contextmanager
    def transaction(self, *, durable: bool = False) -> Iterator[sqlite3.Connection]:
        """One `BEGIN IMMEDIATE` transaction: committed when the block ends, rolled
        back (nothing kept) when it raises. With `durable`, the commit runs at
        `synchronous = FULL`: the write-ahead log is synced to disk before `COMMIT`
        returns, making this commit and every earlier one survive a power loss."""
        db = self._connection()
        if durable:
            db.execute("PRAGMA synchronous = FULL")
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            if durable:
                db.execute("PRAGMA synchronous = NORMAL")

    def _answer(self, calls: list[_Call]) -> None:
        loop = self._loop
        if not calls or loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits
            loop.call_soon_threadsafe(_deliver, calls)


class _GroupFailed(Exception):
    """A grouped write left no transaction behind: the group is run again alone."""


def _run_one(call: _Call) -> None:
    try:
        call.outcome = (True, call.run())
    except BaseException as error:
        call.outcome = (False, error)


def _deliver(calls: list[_Call]) -> None:
    for call in calls:
        if call.future.done() or call.outcome is None:
            continue
        succeeded, value = call.outcome
        if succeeded:
            call.future.set_result(value)
        else:
            call.future.set_exception(value)
