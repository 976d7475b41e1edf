"""The errors of durable threads: each names what went wrong and what was kept.

Every error here derives from `ThreadsError` (itself an `AutomataError`), so a host can
catch the family at once. A store error never means a half-written commit: a commit
either happened in full or not at all.
"""

from __future__ import annotations

from automata.core import AutomataError

__all__ = [
    "HostClosedError",
    "ItemNotFoundError",
    "LeaseLostError",
    "PageBoundError",
    "PurgeRefusedError",
    "RequestConflictError",
    "SchemaError",
    "StoreClosedError",
    "StoreError",
    "StoreUnavailableError",
    "ThreadExistsError",
    "ThreadNotFoundError",
    "ThreadStateError",
    "ThreadsError",
]


class ThreadsError(AutomataError):
    """Base of every durable-threads error."""


class StoreError(ThreadsError):
    """The store could not do what was asked; nothing of the failed call was committed
    (except with a `StoreUnavailableError` whose `committed` is None: unknown)."""


class StoreUnavailableError(StoreError):
    """The store's server could not be reached, or the connection was lost during the
    call, and the store could not safely run it again.

    `committed` is False when the call is known not to have committed (nothing was
    written; it may be tried again) and None when the connection was lost while its
    commit was under way, so its outcome is unknown: the journal tells (a durable
    runner stops without writing and the host's recovery resumes the turn from what
    the journal holds; a write with a request key may simply be sent again)."""

    def __init__(self, message: str, *, committed: bool | None) -> None:
        super().__init__(message)
        self.committed = committed


class StoreClosedError(StoreError):
    """The store was used before `open` or after `close`."""


class SchemaError(StoreError):
    """The store's schema is newer than this code, or is not a threads schema, or is
    damaged. The store fails closed: nothing was read or changed."""


class ThreadNotFoundError(ThreadsError, LookupError):
    """No thread has this id (it never existed, or it was deleted)."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"no thread with id {thread_id!r}")
        self.thread_id = thread_id


class ThreadExistsError(ThreadsError):
    """A thread with this id exists already."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"a thread with id {thread_id!r} exists already")
        self.thread_id = thread_id


class RequestConflictError(ThreadsError):
    """A request key was used again with different input. The first request's outcome
    stands; nothing of the second was committed."""

    def __init__(self, key: str) -> None:
        super().__init__(
            f"request key {key!r} was already used for a different request; "
            "choose a new key for a new request"
        )
        self.key = key


class LeaseLostError(ThreadsError):
    """This runner no longer owns the thread (its lease was taken over or revoked),
    so its write was refused. The journal holds everything committed before."""

    def __init__(self, thread_id: str, owner: str, generation: int) -> None:
        super().__init__(
            f"runner {owner!r} lost its lease on thread {thread_id!r} "
            f"(generation {generation}); its write was refused"
        )
        self.thread_id = thread_id
        self.owner = owner
        self.generation = generation


class PageBoundError(ThreadsError, ValueError):
    """A page was asked for beyond the bound a store serves in one call."""


class HostClosedError(ThreadsError):
    """The host is shutting down or shut down; it admits nothing more."""


class ItemNotFoundError(ThreadsError, LookupError):
    """The thread has no item (or queued input) with this id."""


class ThreadStateError(ThreadsError):
    """The thread is not in a state that allows this (retry with no failed turn, fork
    at a call still running, ...). Nothing was committed."""


class PurgeRefusedError(ThreadsError):
    """A purge was refused because a live lease is held on threads it would delete
    (`thread_ids`): a host is running them. Nothing was deleted or archived."""

    def __init__(self, thread_ids: tuple[str, ...]) -> None:
        super().__init__(
            f"purge refused: a host holds the lease of {', '.join(map(repr, thread_ids))}; "
            "nothing was deleted"
        )
        self.thread_ids = thread_ids
