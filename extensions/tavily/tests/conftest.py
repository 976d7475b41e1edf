"""A local server that speaks Tavily's search API, for the official client to talk to."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class Received:
    path: str
    headers: Mapping[str, str]
    body: Any
    client_port: int


@dataclass
class TavilyServer:
    """Answers POST /search with `reply` (status, JSON body) after `delay` seconds."""

    status: int = 200
    reply: Any = field(default_factory=lambda: {"query": "", "results": []})
    delay: float = 0.0
    received: list[Received] = field(default_factory=list)

    def start(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as Tavily's servers do

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.received.append(Received(self.path, headers, body, self.client_address[1]))
                if outer.delay:
                    time.sleep(outer.delay)
                data = json.dumps(outer.reply).encode()
                try:
                    self.send_response(outer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

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
def tavily_server() -> Iterator[TavilyServer]:
    server = TavilyServer()
    server.start()
    yield server
    server.stop()
