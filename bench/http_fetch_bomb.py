"""Peak memory and time of `http_fetch` against compression bombs, next to ordinary pages.

Run: uv run python bench/http_fetch_bomb.py [--timeout SECONDS]

A server on loopback (a thread of this process) serves four bodies: a ~270-byte
reply with `Content-Encoding: gzip, gzip, gzip` that expands to 1 GB, a ~1 MB
single-layer gzip reply that expands to 1 GB, and, for comparison, ordinary pages of
the same two wire sizes. Each is fetched by a fresh child process whose address space
is capped at 1 GB (`RLIMIT_AS`) and which is killed after 120 s, so a regression
cannot exhaust the machine. Each child warms up with one small fetch, then prints its
peak RSS, the seconds the measured fetch took, the longest stall of its event loop
during it, and the start of the tool's answer. Benchmarks measure; they never assert.

To compare with another version of the tools, put its source first on the path:
`PYTHONPATH=/path/to/old/packages/tools/src uv run python bench/http_fetch_bomb.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
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
cap = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from automata.core import ToolContext, ToolUseBlock
from automata.tools import http_fetch

async def main(url, timeout):
    gap = 0.0
    async def tick():
        nonlocal gap
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gap = max(gap, now - last)
            last = now
    tool = http_fetch(allow_private=True, timeout=timeout)  # loads the trust store
    call = ToolUseBlock(id="c", name="f", input={})
    context = ToolContext(call=call, agent="a", invocation_id="i")
    # Warm up: the first request imports parts of httpx on the event loop.
    await tool.execute({"url": url.rsplit("/", 1)[0] + "/warm-up"}, context)
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.05)
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    try:
        result = await tool.execute({"url": url}, context)
        text = result.as_text()
    except BaseException as exc:
        text = f"raised {type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    ticker.cancel()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "peak_kb": peak, "baseline_kb": baseline, "gap": gap,
            "answer": " ".join(text.split())[:90]}

print(json.dumps(asyncio.run(main(sys.argv[1], float(sys.argv[2])))))
"""


def _zeros_gzip(size: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    return b"".join([*parts, compressor.flush()])


def _ordinary(size: int) -> bytes:
    line = b"<p>An ordinary paragraph of an ordinary page, line %d.</p>\n"
    out = bytearray(b"<html><body>")
    n = 0
    while len(out) < size:
        out += line % n
        n += 1
    return bytes(out[:size])


def _serve(bodies: dict[str, tuple[bytes, str | None]]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, coding = bodies.get(self.path, (b"<p>warm</p>", None))
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            if coding:
                self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=5.0, help="http_fetch timeout (s)")
    options = parser.parse_args()
    one_gb = _zeros_gzip(1 << 30)
    triple = gzip.compress(gzip.compress(one_gb, 9), 9)
    bodies: dict[str, tuple[bytes, str | None]] = {
        "/bomb-3-layers": (triple, "gzip, gzip, gzip"),
        "/page-same-size-as-3-layers": (_ordinary(len(triple)), None),
        "/bomb-1-layer": (one_gb, "gzip"),
        "/page-same-size-as-1-layer": (_ordinary(len(one_gb)), None),
    }
    server = _serve(bodies)
    port = server.server_address[1]
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    print(f"{'case':30} {'wire bytes':>10} {'seconds':>8} {'peak RSS':>9} {'loop gap':>9}  answer")
    for path, (body, _coding) in bodies.items():
        url = f"http://127.0.0.1:{port}{path}"
        try:
            done = subprocess.run(
                [sys.executable, "-c", _CHILD, url, str(options.timeout)],
                capture_output=True, text=True, timeout=120, env=env, check=False,
            )  # fmt: skip
            lines = done.stdout.strip().splitlines()
            if not lines:
                tail = " ".join(done.stderr.split()[-12:])
                print(f"{path:30} {len(body):>10} child died (code {done.returncode}): {tail}")
                continue
            r = json.loads(lines[-1])
            print(
                f"{path:30} {len(body):>10} {r['seconds']:>8.2f} {r['peak_kb'] / 1024:>7.0f}MB"
                f" {r['gap']:>8.3f}s  {r['answer']}"
            )
        except subprocess.TimeoutExpired:
            print(f"{path:30} {len(body):>10} killed after 120 s")
    server.shutdown()


if __name__ == "__main__":
    main()
