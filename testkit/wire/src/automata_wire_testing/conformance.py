"""The core provider conformance suite, run against the local wire server.

Subclass `WireConformance` as `Test<Vendor>Conformance` in a module whose conftest
provides the `server` fixture; give it `answer()` (what the server replies to every
request), `new_provider(base_url)` and `scenario()` (which can pass `self.server` as
its `gate`). Providers it builds are closed after each test.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any

import pytest

from automata.core.providers import SDKProvider
from automata.core.testing.conformance import ConformanceScenario, ProviderConformance
from automata_wire_testing._server import Responder, WireServer

__all__ = ["ConformanceScenario", "WireConformance"]


class WireConformance(ProviderConformance, ABC):
    """`ProviderConformance` with the server scripted and the providers closed."""

    server: WireServer

    @abstractmethod
    def answer(self) -> Responder:
        """The reply to every request of the suite."""

    @abstractmethod
    def new_provider(self, base_url: str) -> SDKProvider[Any]:
        """The provider under test, talking to the server at `base_url`."""

    @pytest.fixture(autouse=True)
    async def _serve(self, server: WireServer) -> AsyncIterator[None]:
        server.always(self.answer())
        self.server = server
        self._made: list[SDKProvider[Any]] = []
        yield
        for provider in self._made:
            await provider.aclose()

    def make_provider(self) -> SDKProvider[Any]:
        provider = self.new_provider(self.server.base_url)
        self._made.append(provider)
        return provider

    @abstractmethod
    def scenario(self) -> ConformanceScenario: ...
