"""Calls of the store made while its earlier ones are in flight, run together.

A `BatchQueue` holds waiting calls; at most `flushers` flushes run at once, each taking
up to `MAX_BATCH` waiting calls and running them as one statement (`run_batch`). No
timer: a call made while nothing is in flight is sent at once, and the calls that
arrive while a batch is on the wire wait exactly as long as it takes, so batches grow
with the load and cost nothing without it. With a `key`, a batch holds at most one call
per key and none of a key whose call is being run, so calls with one key run one
after another, in the order they were made.

An item `run_batch` answers with `RunAlone` (a row it would have had to wait for) is
run again on its own (`run_one`, which waits) in a task of its own, once the batch's
other calls are answered; the queue goes on meanwhile, only that item's key waits.

A batch whose `run_batch` raises a `StoreUnavailableError` answers each of its calls
with that error (each its own copy); any other exception means the statement failed
and changed nothing, so each call is then run on its own and gets its own answer.
A caller that stops waiting (cancelled) leaves its call to run all the same.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from automata.threads import StoreError, StoreUnavailableError

__all__ = ["MAX_BATCH", "BatchQueue", "RunAlone"]

MAX_BATCH = 64
"""The most calls one statement runs together."""

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


class RunAlone(Exception):
    """A batch's answer for an item it did not run (a row another transaction held
    locked): run it again on its own, which waits for what it needs."""


def _each(error: StoreUnavailableError) -> StoreUnavailableError:
    """A copy of `error` for one caller (each raises its own exception object)."""
    copy = StoreUnavailableError(str(error), committed=error.committed)
    copy.__cause__ = error.__cause__
    return copy


def _alone(outcome: object) -> bool:
    return isinstance(outcome, RunAlone)


def _answer(waiter: asyncio.Future[_Result], outcome: _Result | BaseException) -> None:
    if waiter.done():  # its caller was cancelled; the call ran all the same
        return
    if isinstance(outcome, BaseException):
        waiter.set_exception(outcome)
    else:
        waiter.set_result(outcome)


class BatchQueue(Generic[_Item, _Result]):
    """Calls waiting to run. `run_batch` runs items as one statement and answers, per
    item, its result or the error it is refused with (`RunAlone` included); `run_one`
    runs one item on its own, waiting for whatever it needs, and raises its error;
    `spawn` starts a task the store waits for when it closes; `key` (optional) orders
    calls per key."""

    def __init__(
        self,
        run_batch: Callable[[Sequence[_Item]], Awaitable[Sequence[_Result | Exception]]],
        run_one: Callable[[_Item], Awaitable[_Result]],
        spawn: Callable[[Awaitable[None]], object],
        *,
        flushers: int,
        key: Callable[[_Item], str] | None = None,
    ) -> None:
        self._run_batch, self._run_one = run_batch, run_one
        self._spawn = spawn
        self._flushers = flushers
        self._key = key
        self._flushing = 0
        self._waiting: deque[tuple[_Item, asyncio.Future[_Result]]] = deque()
        self._in_flight: set[str] = set()  # keys of the calls being run

    def submit(self, item: _Item) -> asyncio.Future[_Result]:
        """Queue `item`; the future answers its result or its error."""
        waiter: asyncio.Future[_Result] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, waiter))
        self._kick()
        return waiter

    def _kick(self) -> None:
        if self._waiting and self._flushing < self._flushers:
            self._flushing += 1
            self._spawn(self._flush())

    def _take(self) -> list[tuple[_Item, asyncio.Future[_Result]]]:
        """The next batch: waiting calls in order, within the `key` rule."""
        key = self._key
        if key is None:
            size = min(len(self._waiting), MAX_BATCH)
            return [self._waiting.popleft() for _ in range(size)]
        batch: list[tuple[_Item, asyncio.Future[_Result]]] = []
        keys = set(self._in_flight)
        later: deque[tuple[_Item, asyncio.Future[_Result]]] = deque()
        while self._waiting and len(batch) < MAX_BATCH:
            entry = self._waiting.popleft()
            if key(entry[0]) in keys:
                later.append(entry)
            else:
                keys.add(key(entry[0]))
                batch.append(entry)
        later.extend(self._waiting)
        self._waiting = later
        self._in_flight.update(key(item) for item, _ in batch)
        return batch

    async def _flush(self) -> None:
        try:
            while batch := self._take():
                await self._run(batch)
        finally:
            self._flushing -= 1

    def _done(self, item: _Item) -> None:
        if self._key is not None:
            self._in_flight.discard(self._key(item))

    async def _run(self, batch: list[tuple[_Item, asyncio.Future[_Result]]]) -> None:
        """Run a batch and answer its calls; a call answered `RunAlone` runs again in
        a task of its own (keeping its key), so the queue goes on meanwhile."""
        outcomes: Sequence[_Result | BaseException] = []
        try:
            outcomes = await self._outcomes([item for item, _ in batch])
        finally:
            for (item, waiter), outcome in itertools.zip_longest(batch, outcomes):
                if isinstance(outcome, RunAlone):
                    self._spawn(self._again(item, waiter))
                    continue
                self._done(item)
                if outcome is None:  # the flush itself was interrupted (cancelled)
                    outcome = StoreError("the store's call was interrupted before it ended")
                _answer(waiter, outcome)

    async def _again(self, item: _Item, waiter: asyncio.Future[_Result]) -> None:
        try:
            _answer(waiter, await self._alone(item))
        finally:
            self._done(item)
            self._kick()  # calls of its key may wait for it

    async def _outcomes(self, items: list[_Item]) -> Sequence[_Result | BaseException]:
        try:
            return await self._run_batch(items)
        except StoreUnavailableError as error:  # sent or not, the batch as a whole
            return [_each(error) for _ in items]
        except Exception as error:  # the statement failed: nothing was changed
            if len(items) == 1:
                return [error]
            return [await self._alone(item) for item in items]  # each its own answer

    async def _alone(self, item: _Item) -> _Result | BaseException:
        try:
            return await self._run_one(item)
        except Exception as error:
            return error
