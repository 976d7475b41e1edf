"""Peak memory, time and event-loop stall of a provider call answered by a gzip bomb.

Run: uv run python bench/provider_gzip_bomb.py

A server on loopback (a thread of this process) answers every call with a ~1 MB gzip
body that decodes to 1 GB: for a call that does not stream, JSON (1 GB of spaces
before `{}`); for a stream, an event stream of 1 GB of `: keepalive` comments. Each
case (OpenAI Chat Completions, on the default path and through the SDK's `create`,
streaming or not)
runs in a fresh child process capped at 3 GB of address space (`RLIMIT_AS`) and
killed after 120 s, with `stream_idle_timeout=2` and no retries. The child prints its peak RSS above
its own baseline, how long the call took, the longest stall of its event loop (a
ticker every 5 ms) and how the call ended. Benchmarks measure; they never assert.

To compare with another version, put its sources first on the path:
`PYTHONPATH=/old/packages/core/src:/old/extensions/openai/src \\
uv run python bench/provider_gzip_bomb.py`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_CHILD = r"""
import asyncio, json, resource, sys, time
cap = 3 << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from automata.core import Message, ModelRequest, TextBlock
from automata.core.providers import RetryPolicy, cap_reply_size
from automata.openai import OpenAIProvider
from automata_wire_testing.older_clients import without_raw_post
from openai import AsyncOpenAI, DefaultAsyncHttpxClient
import warnings

async def main(url, fast, streamed):
    options = dict(stream_idle_timeout=2, stream_usage=False, retry_policy=RetryPolicy.never())
    if fast:
        provider = OpenAIProvider("m", api_key="k", base_url=url, **options)
    else:
        # the SDK's path: a client whose post takes no raw body, so through `create`,
        # its replies capped as the provider caps the clients it builds
        client = without_raw_post(AsyncOpenAI)(
            api_key="k", base_url=url, http_client=cap_reply_size(DefaultAsyncHttpxClient())
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "OpenAIProvider: calls go through")
            provider = OpenAIProvider("m", client=client, **options)
    request = ModelRequest(messages=(Message(role="user", content=(TextBlock(text="hi"),)),))
    gap = 0.0
    async def tick():
        nonlocal gap
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gap = max(gap, now - last)
            last = now
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    try:
        if streamed:
            async for _ in provider.stream(request):
                pass
        else:
            await provider.complete(request)
        outcome = "answered"
    except BaseException as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    ticker.cancel()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    await provider.aclose()
    if not fast:
        await client.close()
    return {"seconds": seconds, "added_kb": peak - baseline, "gap": gap,
            "outcome": " ".join(outcome.split())[:80]}

url, fast, streamed = sys.argv[1], sys.argv[2] == "fast", sys.argv[3] == "stream"
print(json.dumps(asyncio.run(main(url, fast, streamed))))
"""


def _gzip(pattern: bytes, size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = pattern * ((1 << 20) // len(pattern))
    parts = [compressor.compress(block) for _ in range(size // len(block))]
    return b"".join([*parts, compressor.flush()])


def _serve(json_bomb: bytes, sse_bomb: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["content-length"])))
            streamed = bool(request.get("stream"))
            body = sse_bomb if streamed else json_bomb
            self.send_response(200)
            kind = "text/event-stream" if streamed else "application/json"
            self.send_header("content-type", kind)
            self.send_header("content-encoding", "gzip")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that stops reading a bomb resets the connection

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    json_bomb = _gzip(b" ", 1 << 30)
    sse_bomb = _gzip(b": keepalive\n\n", 1 << 30)
    server = _serve(json_bomb, sse_bomb)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    print(f"wire: {len(json_bomb)} B (JSON), {len(sse_bomb)} B (SSE); each decodes to ~1 GB")
    print(f"{'case':16} {'seconds':>8} {'added RSS':>10} {'loop stall':>11}  outcome")
    for path in ("fast", "sdk"):
        for mode in ("complete", "stream"):
            case = f"{path} {mode}"
            try:
                done = subprocess.run(
                    [sys.executable, "-c", _CHILD, url, path, mode],
                    capture_output=True, text=True, timeout=120, env=env, check=False,
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                print(f"{case:16} killed after 120 s")
                continue
            lines = done.stdout.strip().splitlines()
            if not lines:
                tail = " ".join(done.stderr.split()[-12:])
                print(f"{case:16} child died (code {done.returncode}): {tail}")
                continue
            r = json.loads(lines[-1])
            print(
                f"{case:16} {r['seconds']:>8.2f} {r['added_kb'] / 1024:>8.0f}MB"
                f" {r['gap']:>10.3f}s  {r['outcome']}"
            )
    server.shutdown()


if __name__ == "__main__":
    main()
