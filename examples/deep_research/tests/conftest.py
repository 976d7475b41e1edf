"""Fixtures: a local search server speaking Tavily's `/search` API (`search_server`),
and `pipeline`, which runs the whole research pipeline against it with the demo's
scripted models and the real `TavilySearch` client."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

import pytest
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


@dataclass(frozen=True)
class SearchRequest:
    path: str
    authorization: str
    body: dict[str, Any]


@dataclass
class SearchServer:
    """Answers POST /search like Tavily: results for the query, or `status` with an
    error body when `status` is not 200."""

    api_key = API_KEY
    sources_for = staticmethod(sources_for)

    status: int = 200
    received: list[SearchRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer.lock:
                    outer.received.append(
                        SearchRequest(self.path, self.headers.get("Authorization", ""), body)
                    )
                if outer.status == 200:
                    query = str(body.get("query", ""))
                    results = sources_for(query)[: int(body.get("max_results", 5))]
                    reply: dict[str, Any] = {"query": query, "results": results}
                else:
                    reply = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
                data = json.dumps(reply).encode()
                self.send_response(outer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


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
