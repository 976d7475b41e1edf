"""An HTTP server on plain sockets, for endings a framework server cannot script.

`RawSSEServer` answers every request with the same `text/event-stream` body, sent
chunk by chunk, and then ends the connection the way a broken server or network does:
`"reset"` sends a TCP reset (RST, through `SO_LINGER` 0) without finishing the body;
`"stall"` keeps the connection open and sends nothing more until the server stops.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Sequence
from typing import Literal

__all__ = ["RawSSEServer"]

_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


class RawSSEServer:
    """Serves `events` on 127.0.0.1, then resets or stalls the connection (`then`).

    Use as a context manager, or `start()` and `stop()`. `requests` counts the
    requests answered. Stopping releases every stalled connection.
    """

    def __init__(self, events: Sequence[bytes], *, then: Literal["reset", "stall"]) -> None:
        self.events = tuple(events)
        self.then = then
        self.requests = 0
        self._stopped = threading.Event()
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen()
        self._listener.settimeout(0.05)
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    @property
    def base_url(self) -> str:
        port: int = self._listener.getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def start(self) -> RawSSEServer:
        self._acceptor.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._acceptor.join(timeout=10)
        for thread in self._threads:
            thread.join(timeout=10)
        self._listener.close()

    def __enter__(self) -> RawSSEServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            if not _read_request(conn):
                return
            self.requests += 1
            conn.sendall(_HEAD)
            for event in self.events:
                conn.sendall(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            if self.then == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                self._stopped.wait(60)


def _read_request(conn: socket.socket) -> bool:
    """Read one request (headers and a `content-length` body); False if the client
    went away first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return False
        body += chunk
    return True
