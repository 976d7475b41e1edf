"""automata.threads: durable threads for automata agents.

A conversation's journal is the only durable truth; it survives crashes, restarts and
a second process. Depends only on automata-ai-core and the standard library.
"""

from __future__ import annotations

from automata.threads._errors import (
    HostClosedError,
    LeaseLostError,
    PageBoundError,
    RequestConflictError,
    SchemaError,
    StoreClosedError,
    StoreError,
    ThreadExistsError,
    ThreadNotFoundError,
    ThreadsError,
)
from automata.threads._maintenance import (
    MaintenanceReport,
    StoreInUseError,
    maintain_sqlite,
    maintain_sqlite_sync,
)
from automata.threads._memory import MemoryStore
from automata.threads._sqlite import SQLiteStore

__all__ = [
    "HostClosedError",
    "LeaseLostError",
    "MaintenanceReport",
    "MemoryStore",
    "PageBoundError",
    "RequestConflictError",
    "SQLiteStore",
    "SchemaError",
    "StoreClosedError",
    "StoreError",
    "StoreInUseError",
    "ThreadExistsError",
    "ThreadNotFoundError",
    "ThreadsError",
    "maintain_sqlite",
    "maintain_sqlite_sync",
]
