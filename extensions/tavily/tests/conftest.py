"""A local server that speaks Tavily's search API, for the official client to talk to."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from automata_wire_testing import JSONServer


@dataclass
class TavilyServer(JSONServer):
    """Answers POST /search with `reply` (status, JSON body) after `delay` seconds."""

    reply: Any = field(default_factory=lambda: {"query": "", "results": []})


@pytest.fixture
def tavily_server() -> Iterator[TavilyServer]:
    server = TavilyServer()
    server.start()
    yield server
    server.stop()
