"""Fixtures: a local search server speaking Tavily's `/search` API (`search_server`),
an OpenAI-compatible endpoint that refuses every request (`model_server`), and
`pipeline`, which runs the whole research pipeline against the search server with
the demo's scripted models and the real `TavilySearch` client."""

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
class JSONRequest:
    path: str
    authorization: str
    body: dict[str, Any]


@dataclass
class JSONServer:
    """A threaded HTTP server on loopback answering each JSON POST with `answer`, and
    recording what it received."""

    received: list[JSONRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        raise NotImplementedError

    def start(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer.lock:
                    outer.received.append(
                        JSONRequest(self.path, self.headers.get("Authorization", ""), body)
                    )
                status, reply = outer.answer(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
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


@dataclass
class SearchServer(JSONServer):
    """Answers POST /search like Tavily: results for the query, or `status` with an
    error body when `status` is not 200."""

    api_key = API_KEY
    sources_for = staticmethod(sources_for)

    status: int = 200

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.status != 200:
            return self.status, {"detail": {"error": "Unauthorized: missing or invalid API key."}}
        query = str(body.get("query", ""))
        results = sources_for(query)[: int(body.get("max_results", 5))]
        return 200, {"query": query, "results": results}


@dataclass
class RefusingModelServer(JSONServer):
    """An OpenAI-compatible endpoint that refuses every request as OpenAI refuses a
    wrong key (HTTP 401 with OpenAI's error body), so a test sees where requests go."""

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
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
