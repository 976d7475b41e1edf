"""The in-memory store keeps the storage contract: it passes the conformance suite."""

from __future__ import annotations

from automata.threads import MemoryStore
from automata.threads.testing import StoreConformance


class TestMemoryStoreConformance(StoreConformance):
    def make_store(self) -> MemoryStore:
        return MemoryStore()
