"""Time to read one large server-sent event: the fast path against the SDK's path.

Run: uv run python bench/sse_large_event.py [--sizes 8,16,32] [--repeat 3]

A local server (`automata_wire_testing.WireServer`, a thread of this process) streams
an OpenAI Chat Completions reply whose first chunk carries a text delta of N MB (one
SSE event of N MB), then a finish chunk. For each size, `OpenAIProvider` reads it
on the default path (automata's `SSEStream`) and through `chat.completions.create` (on a
client whose `post` takes no raw body: the SDK's `AsyncStream` and models),
alternating, and the best of `--repeat` runs is printed for each with the ratio
fast / SDK. A reader that is linear in the event's size keeps the
ratio flat as N doubles; a quadratic one doubles it. Benchmarks measure; they never
assert.

To compare with another version of core, put its source first on the path:
`PYTHONPATH=/path/to/old/packages/core/src uv run python bench/sse_large_event.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import warnings

from automata_wire_testing import Reply, WireServer, sse_data
from automata_wire_testing.older_clients import without_raw_post
from openai import AsyncOpenAI

from automata.core import Message, ModelRequest, TextBlock
from automata.core.providers import ModelResponse
from automata.openai import OpenAIProvider


def _reply(megabytes: int) -> Reply:
    def chunk(delta: dict[str, object], finish: str | None) -> bytes:
        body = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return sse_data(body)

    text = "x" * (megabytes << 20)
    return Reply(events=[chunk({"content": text}, None), chunk({}, "stop"), b"data: [DONE]\n\n"])


async def _read(provider: OpenAIProvider) -> float:
    request = ModelRequest(messages=(Message(role="user", content=(TextBlock(text="hi"),)),))
    started = time.perf_counter()
    final = None
    async for item in provider.stream(request):
        if isinstance(item, ModelResponse):
            final = item
    seconds = time.perf_counter() - started
    assert final is not None
    return seconds


async def main(sizes: list[int], repeat: int) -> None:
    server = WireServer(record=False).start()
    base = f"{server.base_url}/v1"
    fast = OpenAIProvider("m", api_key="k", base_url=base, stream_usage=False)
    older = without_raw_post(AsyncOpenAI)(api_key="k", base_url=base)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "OpenAIProvider: calls go through")
        sdk = OpenAIProvider("m", client=older, stream_usage=False)
    print(f"{'event':>8} {'fast path':>10} {'SDK path':>10} {'fast / SDK':>11}")
    try:
        for megabytes in sizes:
            server.always(_reply(megabytes))
            timings: dict[str, list[float]] = {"fast": [], "sdk": []}
            for _ in range(repeat):
                timings["fast"].append(await _read(fast))
                timings["sdk"].append(await _read(sdk))
            best_fast, best_sdk = min(timings["fast"]), min(timings["sdk"])
            print(
                f"{megabytes:>6}MB {best_fast:>9.2f}s {best_sdk:>9.2f}s"
                f" {best_fast / best_sdk:>10.2f}x"
            )
    finally:
        await fast.aclose()
        await sdk.aclose()
        await older.close()
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="8,16,32", help="event sizes in MB, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size and path")
    options = parser.parse_args()
    asyncio.run(main([int(s) for s in options.sizes.split(",")], options.repeat))
