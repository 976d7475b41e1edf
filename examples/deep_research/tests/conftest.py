"""Fixtures: a local search server speaking Tavily's `/search` API (`search_server`),
an OpenAI-compatible endpoint that refuses every request (`model_server`), and
`pipeline`, which runs the whole research pipeline against the search server with
the demo's scripted models and the real `TavilySearch` client."""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import pytest
from automata_wire_testing import JSONServer
from deep_research import (
    ResearchOutcome,
    TeamProviders,
    build_orchestrator,
    demo_providers,
    research,
)

from automata.core import ModelRequest, Provider, StreamAccumulator, StreamEvent
from automata.core.testing import FunctionProvider, ScriptedProvider
from automata.tavily import TavilySearch

API_KEY = "tvly-test-key"


def sources_for(query: str) -> list[dict[str, Any]]:
    """What the server answers for `query`: two sources whose URLs name the query."""
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")
    return [
        {
            "title": f"Field study: {query}",
            "url": f"https://journal.test/{slug}/study",
            "content": f"A field study measured {query.lower()} across 40 sites.",
            "score": 0.91,
            "raw_content": None,
        },
        {
            "title": f"Review: {query}",
            "url": f"https://review.test/{slug}",
            "content": "A systematic review of 25 papers found consistent effects.",
            "score": 0.77,
            "raw_content": None,
        },
    ]


@dataclass
class SearchServer(JSONServer):
    """Answers POST /search like Tavily: results for the query, or `status` with an
    error body when `status` is not 200."""

    api_key = API_KEY
    sources_for = staticmethod(sources_for)

    def answer(self, body: Any) -> tuple[int, Any]:
        if self.status != 200:
            return self.status, {"detail": {"error": "Unauthorized: missing or invalid API key."}}
        query = str(body.get("query", ""))
        results = sources_for(query)[: int(body.get("max_results", 5))]
        return 200, {"query": query, "results": results}


@dataclass
class RefusingModelServer(JSONServer):
    """An OpenAI-compatible endpoint that refuses every request as OpenAI refuses a
    wrong key (HTTP 401 with OpenAI's error body), so a test sees where requests go."""

    def answer(self, body: Any) -> tuple[int, Any]:
        error = {
            "message": "Incorrect API key provided.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
        return 401, {"error": error}


@pytest.fixture
def model_server() -> Iterator[RefusingModelServer]:
    server = RefusingModelServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def search_server() -> Iterator[SearchServer]:
    server = SearchServer()
    server.start()
    yield server
    server.stop()


@dataclass
class Run:
    """A finished pipeline run and everything a test may inspect."""

    outcome: ResearchOutcome
    accumulator: StreamAccumulator
    providers: TeamProviders
    events: list[StreamEvent]


def requests_to(provider: Provider) -> list[ModelRequest]:
    """What a scripted model (the demo's, or a test's) was asked, in order."""
    assert isinstance(provider, FunctionProvider | ScriptedProvider), provider
    return provider.requests


class Pipeline(Protocol):
    """`await pipeline(topic, providers=, on_event=, accumulator=)`: one whole run."""

    def __call__(
        self,
        topic: str = ...,
        *,
        providers: TeamProviders | None = None,
        on_event: Callable[[StreamEvent], None] | None = None,
        accumulator: StreamAccumulator | None = None,
    ) -> Coroutine[Any, Any, Run]: ...


@pytest.fixture
def pipeline(search_server: SearchServer) -> Pipeline:
    """`await pipeline(topic, providers=, on_event=, accumulator=)` runs the whole pipeline:
    scripted models (the demo's unless given), real `TavilySearch` on `search_server`."""

    async def run(
        topic: str = "urban heat islands",
        *,
        providers: TeamProviders | None = None,
        on_event: Callable[[StreamEvent], None] | None = None,
        accumulator: StreamAccumulator | None = None,
    ) -> Run:
        team = providers or demo_providers()
        accumulator = accumulator if accumulator is not None else StreamAccumulator()
        events: list[StreamEvent] = []

        def record(event: StreamEvent) -> None:
            events.append(event)
            if on_event is not None:
                on_event(event)

        async with TavilySearch(API_KEY, base_url=search_server.base_url) as searcher:
            orchestrator = build_orchestrator(team, searcher)
            outcome = await research(orchestrator, topic, accumulator, on_event=record)
        return Run(outcome, accumulator, team, events)

    return run
