"""Peak memory of the chat server (`python -m chat`) when a client posts a 40 MB message.

Run: uv run python bench/http_body_limit.py [--megabytes 40] [--chunked]

The chat app serves the routes of `threads_server` too, so one server process covers
both examples. The server runs in a process of its own (`chat.process.ChatProcess`,
demo model, a fresh SQLite file) on a loopback port. The script creates a chat, sends
one small message as the baseline, then one message of `--megabytes` MB (by default
with its `Content-Length`, as a browser's `fetch` sends it), and prints the HTTP
status, the server's peak RSS (`VmHWM` of /proc/PID/status) after the baseline and
after the big post, and the database's size (the file and its WAL) before and after. With
`--chunked` the body goes in 64 KiB chunks with no `Content-Length`, so the server
learns its size only by reading it. Benchmarks measure; they never assert.

To measure another version of the examples, put its source first on the path:
`PYTHONPATH=/old/examples/chat/src:/old/examples/threads_server/src uv run python ...`.
"""

from __future__ import annotations

import argparse
import json
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from chat.process import ChatProcess

JSON = {"content-type": "application/json"}


def peak_rss_mib(pid: int) -> float:
    """The process's peak resident set size (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/PID/status")


def database_mib(database: Path) -> float:
    files = [database, database.with_name(database.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists()) / (1 << 20)


def settle(client: httpx.Client, timeout: float = 60.0) -> None:
    """Wait until no chat has a turn running (the server has done all it will)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(0.5)
        if not any(t["active"] for t in client.get("/threads").json()["threads"]):
            return
    raise RuntimeError(f"a turn still runs after {timeout} s")


def sent(body: bytes, chunked: bool) -> bytes | Iterator[bytes]:
    """`body` whole (sent with its `Content-Length`), or in 64 KiB chunks (sent with
    `Transfer-Encoding: chunked`, so the server learns its length only by reading)."""
    if not chunked:
        return body
    return (body[i : i + (1 << 16)] for i in range(0, len(body), 1 << 16))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=int, default=40)
    parser.add_argument(
        "--chunked", action="store_true", help="send the body chunked, with no Content-Length"
    )
    options = parser.parse_args()
    megabytes: int = options.megabytes
    chunked: bool = options.chunked
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "chat.db"
        server = ChatProcess(database, Path(folder) / "server.log", pace=0.0)
        server.start()
        try:
            pid = server.pid
            with httpx.Client(base_url=server.url, timeout=120, trust_env=False) as client:
                thread = client.post("/threads", json={"request_key": "c1"}).json()
                messages = f"/threads/{thread['thread_id']}/messages"
                client.post(messages, json={"request_key": "s1", "text": "hello"})
                settle(client)
                baseline_rss, baseline_db = peak_rss_mib(pid), database_mib(database)
                body = json.dumps({"request_key": "s2", "text": "x" * (megabytes << 20)})
                started = time.monotonic()
                try:
                    status: object = client.post(
                        messages, content=sent(body.encode(), chunked), headers=JSON
                    ).status_code
                except httpx.TransportError as error:
                    status = f"{type(error).__name__} ({error})"
                took = time.monotonic() - started
                settle(client)
                after_rss, after_db = peak_rss_mib(pid), database_mib(database)
        finally:
            server.stop(signal.SIGTERM)
    how = "chunked" if chunked else "with its Content-Length"
    print(f"a {megabytes} MB message, {how}: status {status}, {took:.2f} s")
    print(
        f"server peak RSS: {baseline_rss:.0f} MiB after the baseline, {after_rss:.0f} MiB "
        f"after the post ({after_rss / baseline_rss:.2f}x)"
    )
    print(
        f"database: {baseline_db:.2f} MiB before, {after_db:.2f} MiB after "
        f"(+{after_db - baseline_db:.2f} MiB)"
    )


if __name__ == "__main__":
    main()
