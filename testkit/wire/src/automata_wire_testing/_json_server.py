"""A threaded HTTP server on loopback that answers JSON POSTs, for tests of clients
that are not model providers (search backends, refusing endpoints)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class JSONRequest:
    """One request as the server received it."""

    path: str
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: Any
    client_port: int

    @property
    def authorization(self) -> str:
        return self.headers.get("authorization", "")


@dataclass
class JSONServer:
    """Answers every POST with `answer(body)` (a status and a JSON body) after `delay`
    seconds, keeping connections alive as real API servers do, and records each
    request in `received`. Subclasses override `answer`; the default answers `reply`
    with `status`."""

    status: int = 200
    reply: Any = None
    delay: float = 0.0
    received: list[JSONRequest] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _httpd: ThreadingHTTPServer | None = field(default=None, repr=False)

    def answer(self, body: Any) -> tuple[int, Any]:
        return self.status, self.reply

    def start(self) -> JSONServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"null")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with outer._lock:
                    outer.received.append(
                        JSONRequest(self.path, headers, body, self.client_address[1])
                    )
                if outer.delay:
                    time.sleep(outer.delay)
                status, reply = outer.answer(body)
                data = json.dumps(reply).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
