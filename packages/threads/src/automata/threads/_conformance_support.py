"""What the store conformance checks share: the factory type, the failure type, and
small helpers to open a store, expect an outcome and build records."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from automata.threads.store import NewRecord, RequestClaim, ThreadStore

__all__ = [
    "CONCURRENT_WRITERS",
    "SHORT_TTL",
    "StoreConformanceError",
    "StoreFactory",
    "claim",
    "expect",
    "notes",
    "opened",
    "raises",
    "texts",
]

StoreFactory = Callable[[], ThreadStore | Awaitable[ThreadStore]]
"""Makes a fresh, unopened, empty store for one check (each call a new one)."""

SHORT_TTL = 0.2
"""The lease ttl (seconds) of the checks that wait for a lease to expire."""

CONCURRENT_WRITERS = 40
"""How many tasks `check_s2_concurrent_appends_get_consecutive_seqs` runs at once."""


class StoreConformanceError(AssertionError):
    """A store broke the storage contract; the message names the rule and how."""


def expect(condition: bool, rule: str, message: str) -> None:
    if not condition:
        raise StoreConformanceError(f"{rule}: {message}")


async def raises(
    error: type[BaseException], rule: str, what: str, call: Awaitable[object]
) -> BaseException:
    try:
        result = await call
    except error as raised:
        return raised
    raise StoreConformanceError(f"{rule}: {what} should raise {error.__name__}, got {result!r}")


@asynccontextmanager
async def opened(factory: StoreFactory) -> AsyncIterator[ThreadStore]:
    made = factory()
    store = await made if inspect.isawaitable(made) else made
    await store.open()
    try:
        yield store
    finally:
        await store.close()


def notes(*texts: str) -> list[NewRecord]:
    return [NewRecord("note", text) for text in texts]


def claim(key: str, fingerprint: str = "f", outcome: str = "done") -> RequestClaim:
    return RequestClaim(key, fingerprint, outcome)


async def texts(store: ThreadStore, thread_id: str) -> list[str]:
    return [record.data for record in await store.read(thread_id)]
