"""10,000 concurrent streamed sessions in one process: memory per session, event latency.

Run: uv run python bench/scale_sessions.py [--sessions 10000] [--wire openai]
     [--interval 10] [--deltas 3] [--pool 100] [--traced 2000] [--baseline]
     [--gc-freeze] [--gc-threshold 50000[,10[,10]]]

The sessions stream through the real provider (`OpenAIProvider` or
`AnthropicProvider` on the official SDK client) from a local server in a child
process (`bench/_scale_server.py`: plain asyncio sockets, both wires), so this process
holds the clients only. Each session starts from a short transcript of its own (system
prompt, a question, a tool call, its result, the answer) and streams one answer.

1. Idle: N sessions created and holding their transcripts, not running. Memory per
   session: the growth of RSS over N, and (created again under tracemalloc) the Python
   memory they allocate, over N.
2. Running: each session's `stream()` consumed by a task of its own, until every
   session has received its first text delta; the server holds every reply there
   (response open, mid-stream). Memory per session as above, the idle share included.
3. Under that load the server is released: every reply sends `--deltas` more text
   deltas, one `--interval` apart (N / interval deltas per second in all). Event
   latency: from the server writing a delta to the consumer task seeing its
   `TextEvent`, p50 / p99 / max. The server writes its `time.monotonic_ns()` into the
   delta's text, and the client reads the same clock (CLOCK_MONOTONIC is one clock per
   machine), so the figure is the socket write, the kernel's loopback, the SDK's
   parsing, the provider, the loop and the stream queue, and the wait for this
   process's event loop under the load. Printed with it: the phase's wall time beside
   an unloaded client's, the client's CPU share and CPU per delta, the garbage
   collector's pauses over the phase, and two counts that hold under any load: the
   peak rise of the collector's trigger (the young generation's count) over the phase,
   and the event loop's timers at release with the cancelled ones not yet dropped.

`--gc-freeze` calls `gc.freeze()` once start-up is over (clients made and warmed up,
before any session), as a server would after importing and configuring everything:
the collector then never traverses what start-up made. `--gc-threshold` sets the
collector's thresholds (`gc.set_threshold`) for the whole run: a larger first one
means fewer young collections. Both apply to both sides.

`--baseline` then measures hand-written streams on the same SDK clients the same way:
each session a list of the wire's message dicts, each turn one streamed SDK call whose
text deltas are handed on as they arrive (the floor automata's figures compare with;
its RSS can be understated by memory the automata side freed, so compare tracemalloc).

The runs share the provider's clients: one SDK client per `--pool` sessions (each with
a connection pool of that size), because the SDKs' HTTP client (httpx2; its pool is
httpcore2's) scans all of a pool's connections whenever a request is assigned or
released, which makes one pool of 10,000 connections cost quadratic time. Benchmarks
measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from automata.core import (
    Agent,
    Message,
    Session,
    TextBlock,
    TextEvent,
    ToolResultBlock,
    ToolUseBlock,
)

SERVER = Path(__file__).with_name("_scale_server.py")
TASK = "Summarise the forecast."
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    """This process's resident set size in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def transcript(n: int) -> list[Message]:
    """A short conversation of its own for session `n`: question, call, result, answer."""
    call = ToolUseBlock(id=f"call_{n}", name="weather", input={"city": f"City {n}"})
    return [
        Message.user(f"What's the weather in city {n}?"),
        Message(role="assistant", content=(TextBlock(text="Let me check."), call)),
        Message(
            role="tool",
            content=(
                ToolResultBlock(
                    tool_use_id=call.id, content=(TextBlock(text=f"snow and -{n % 9}C"),)
                ),
            ),
        ),
        Message.assistant(f"It is snowing in city {n}, minus {n % 9} degrees."),
    ]


class Server:
    """The child process serving both wires, and its command line."""

    def __init__(self) -> None:
        self.child = subprocess.Popen(
            [sys.executable, str(SERVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.child.stdout is not None
        self.url = f"http://127.0.0.1:{self.child.stdout.readline().strip()}"

    def command(self, line: str) -> None:
        assert self.child.stdin is not None
        self.child.stdin.write(line + "\n")
        self.child.stdin.flush()

    def stop(self) -> None:
        self.child.terminate()
        self.child.wait()


def agents(wire: str, url: str, count: int, pool: int) -> tuple[list[Agent[None]], list[Any]]:
    """`count` agents, each on a provider with its own SDK client of `pool` connections."""
    import httpx2

    made: list[Agent[None]] = []
    closers: list[Any] = []
    limits = httpx2.Limits(max_connections=pool, max_keepalive_connections=pool)
    for _ in range(count):
        http = httpx2.AsyncClient(limits=limits, timeout=600)
        provider: Any
        if wire == "anthropic":
            from anthropic import AsyncAnthropic

            from automata.anthropic import AnthropicProvider

            client: Any = AsyncAnthropic(api_key="k", base_url=url, http_client=http, max_retries=0)
            provider = AnthropicProvider(
                "claude-scale", client=client, max_tokens=256, cache_prompt=False
            )
        else:
            from openai import AsyncOpenAI

            from automata.openai import OpenAIProvider

            client = AsyncOpenAI(api_key="k", base_url=f"{url}/v1", http_client=http, max_retries=0)
            provider = OpenAIProvider("gpt-scale", client=client)
        made.append(Agent(provider, system_prompt="You answer briefly."))
        closers.append(client)
    return made, closers


class SDKSession:
    """The baseline: a conversation kept by hand as the wire's dicts, one streamed SDK
    call per turn, its text deltas handed on as they arrive."""

    __slots__ = ("client", "messages", "wire")

    def __init__(self, client: Any, wire: str, n: int) -> None:
        self.client = client
        self.wire = wire
        call = {"id": f"call_{n}", "name": "weather", "input": {"city": f"City {n}"}}
        answer = f"It is snowing in city {n}, minus {n % 9} degrees."
        question = f"What's the weather in city {n}?"
        if wire == "anthropic":
            self.messages: list[dict[str, Any]] = [
                {"role": "user", "content": question},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Let me check."},
                        {"type": "tool_use", **call},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call["id"],
                            "content": f"snow and -{n % 9}C",
                        }
                    ],
                },
                {"role": "assistant", "content": answer},
            ]
        else:
            function = {"name": "weather", "arguments": json.dumps(call["input"])}
            self.messages = [
                {"role": "system", "content": "You answer briefly."},
                {"role": "user", "content": question},
                {
                    "role": "assistant",
                    "content": "Let me check.",
                    "tool_calls": [{"id": call["id"], "type": "function", "function": function}],
                },
                {"role": "tool", "tool_call_id": call["id"], "content": f"snow and -{n % 9}C"},
                {"role": "assistant", "content": answer},
            ]

    async def texts(self) -> AsyncIterator[str]:
        self.messages.append({"role": "user", "content": TASK})
        parts: list[str] = []
        if self.wire == "anthropic":
            events = await self.client.messages.create(
                model="claude-scale",
                max_tokens=256,
                system="You answer briefly.",
                messages=self.messages,
                stream=True,
            )
            async for event in events:
                if event.type == "content_block_delta" and event.delta.type == "text_delta":
                    parts.append(event.delta.text)
                    yield event.delta.text
        else:
            chunks = await self.client.chat.completions.create(
                model="gpt-scale",
                messages=self.messages,
                stream=True,
                stream_options={"include_usage": True},
            )
            async for chunk in chunks:
                for choice in chunk.choices:
                    if choice.delta.content:
                        parts.append(choice.delta.content)
                        yield choice.delta.content
        self.messages.append({"role": "assistant", "content": "".join(parts)})


async def automata_texts(session: Session[None]) -> AsyncIterator[str]:
    """A session's streamed turn, its text events' text."""
    async for event in session.stream(TASK):
        if isinstance(event, TextEvent):
            yield event.text


@dataclass(frozen=True)
class Side:
    """How one side makes an idle session, and streams a turn of it."""

    name: str
    make: Callable[[int], Any]
    texts: Callable[[Any], AsyncIterator[str]]


@dataclass
class Round:
    """What the consumers of one round saw: first deltas, then latencies after release."""

    sessions: int
    first_seen: int = 0
    all_first: asyncio.Event = field(default_factory=asyncio.Event)
    released: bool = False
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def seen_first(self) -> None:
        self.first_seen += 1
        if self.first_seen == self.sessions:
            self.all_first.set()

    async def consume(self, texts: AsyncIterator[str]) -> None:
        first = True
        try:
            async for text in texts:
                seen = time.monotonic_ns()
                if first:
                    first = False
                    self.seen_first()
                elif self.released:
                    self.latencies.append((seen - int(text)) / 1e6)
        except Exception as exc:  # reported, so one failure does not hide the figures
            self.failures.append(f"{type(exc).__name__}: {exc}")
            if first:
                self.seen_first()


async def hold_all(server: Server, side: Side, sessions: list[Any]) -> tuple[Round, list[Any]]:
    """Start every session's stream and return once each has seen its first delta."""
    server.command("hold")
    round_ = Round(len(sessions))
    tasks = [asyncio.create_task(round_.consume(side.texts(s))) for s in sessions]
    await round_.all_first.wait()
    return round_, tasks


def per_session(grown: float, count: int) -> str:
    return f"{grown / count / 1024:8.1f} KiB"


def settle() -> None:
    gc.collect()
    gc.collect()


class Pauses:
    """The garbage collector's pauses while it is installed (`gc.callbacks`): wall
    time, and this process's CPU time (the same on a machine other work shares).

    It also keeps the collector's trigger: the young generation's count
    (allocations minus deallocations of tracked objects) that each collection found,
    so `growth()` is how far that count has risen since, collections or not, and
    `sample()` keeps its peak: a load-independent figure that sets how often young
    collections come (one each time the count passes the first threshold)."""

    def __init__(self) -> None:
        self.started = (0.0, 0.0)
        self.pauses: list[tuple[int, float, float]] = []
        self.first_count = gc.get_count()[0]
        self.counted = 0
        self.peak = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.counted += gc.get_count()[0]
            self.started = (time.perf_counter(), time.process_time())
        else:
            wall, cpu = self.started
            self.pauses.append(
                (info["generation"], time.perf_counter() - wall, time.process_time() - cpu)
            )

    def growth(self) -> int:
        """The rise of the young generation's count since this was made."""
        return self.counted + gc.get_count()[0] - self.first_count

    async def sample(self, every: float = 0.05) -> None:
        """Keep the peak of `growth()` until cancelled."""
        while True:
            self.peak = max(self.peak, self.growth())
            await asyncio.sleep(every)

    def summary(self) -> str:
        full = [pause for pause in self.pauses if pause[0] == 2]
        wall = sum(pause[1] for pause in self.pauses)
        cpu = sum(pause[2] for pause in self.pauses)
        longest = max(self.pauses, key=lambda pause: pause[1], default=(0, 0.0, 0.0))
        return (
            f"{len(self.pauses)} collections ({len(full)} full) took {cpu:.2f} s of CPU "
            f"({wall:.2f} s wall); the longest {longest[2] * 1e3:.0f} ms of CPU "
            f"({longest[1] * 1e3:.0f} ms wall)"
        )


def waiting_timers() -> tuple[int, int]:
    """The event loop's scheduled timers, and how many of them are cancelled ones it
    has not dropped yet (asyncio drops them once they are over half of all)."""
    loop = asyncio.get_running_loop()
    scheduled = getattr(loop, "_scheduled", ())
    return len(scheduled), int(getattr(loop, "_timer_cancelled_count", 0))


async def measure(
    server: Server, side: Side, count: int, traced_count: int, interval: float, deltas: int
) -> None:
    """The three phases for one side, printed."""
    base = rss()
    idle = [side.make(n) for n in range(count)]
    settle()
    idle_rss = rss() - base
    started = time.perf_counter()
    round_, tasks = await hold_all(server, side, idle)
    ramp = time.perf_counter() - started
    settle()
    running_rss = rss() - base
    loads = os.getloadavg()

    timers = waiting_timers()
    pauses = Pauses()
    gc.callbacks.append(pauses)
    wall, cpu = time.perf_counter(), time.process_time()
    round_.released = True
    server.command("go")
    sampler = asyncio.create_task(pauses.sample())
    await asyncio.gather(*tasks)
    sampler.cancel()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    gc.callbacks.remove(pauses)
    latencies = sorted(round_.latencies)
    del idle, tasks
    settle()

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    idle = [side.make(n) for n in range(traced_count)]
    settle()
    idle_py = tracemalloc.get_traced_memory()[0] - before
    traced, tasks = await hold_all(server, side, idle)
    settle()
    running_py = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    server.command("go")
    await asyncio.gather(*tasks)
    del idle, tasks
    settle()

    print(f"{side.name}: {count} streams to their first delta in {ramp:.1f} s")
    print(f"  memory per session    RSS ({count})  tracemalloc ({traced_count})")
    print(
        f"    idle (transcript)   {per_session(idle_rss, count)}     "
        f"{per_session(idle_py, traced_count)}"
    )
    print(
        f"    running (mid-stream){per_session(running_rss, count)}     "
        f"{per_session(running_py, traced_count)}"
    )
    delivered = len(latencies)
    print(
        f"  event latency, server write -> consumer ({delivered} deltas, "
        f"{count / interval:,.0f}/s offered; the phase took {wall:.1f} s, "
        f"{(deltas + 1) * interval:.0f} s if the client keeps up; "
        f"client CPU {cpu / wall:.0%} of one core):"
    )
    if latencies:
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        print(f"    p50 {p50:.2f} ms   p99 {p99:.2f} ms   max {latencies[-1]:.2f} ms")
    print(
        f"  client CPU per delta {cpu / max(delivered, 1) * 1e6:.0f} us (the runs' ends "
        f"included); machine load average {loads[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"  garbage collector over that phase: {pauses.summary()}")
    print(
        f"  the collector's trigger (young count) peaked {pauses.peak:,} above its start "
        f"({pauses.peak / count:.1f} per session; first threshold {gc.get_threshold()[0]:,}); "
        f"{timers[0]:,} timers scheduled when released, {timers[1]:,} of them cancelled "
        "ones not yet dropped"
    )
    failures = round_.failures + traced.failures
    if failures:
        print(f"  {len(failures)} sessions failed, e.g. {failures[0]}")


def thresholds(text: str) -> tuple[int, ...]:
    """`--gc-threshold`'s value: one to three comma-separated integers."""
    values = tuple(int(part) for part in text.split(","))
    if not 1 <= len(values) <= 3:
        raise argparse.ArgumentTypeError("give one to three integers, e.g. 50000,10,10")
    return values


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--wire", choices=("openai", "anthropic"), default="openai")
    parser.add_argument(
        "--interval", type=float, default=10.0, help="seconds between a reply's deltas (10)"
    )
    parser.add_argument("--deltas", type=int, default=3, help="deltas per reply after release")
    parser.add_argument("--pool", type=int, default=100, help="sessions per SDK client")
    parser.add_argument(
        "--traced",
        type=int,
        default=2000,
        help="sessions measured again under tracemalloc (default 2000, at most --sessions)",
    )
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="then measure hand-written SDK streams the same way (its RSS can be understated "
        "by memory the first side freed; compare tracemalloc)",
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="gc.freeze() after start-up (clients made and warmed up), before any session",
    )
    parser.add_argument(
        "--gc-threshold",
        type=thresholds,
        default=None,
        help="the collector's thresholds for the run, e.g. 50000 or 50000,10,10 "
        "(gc.set_threshold; the default is 700,10,10)",
    )
    options = parser.parse_args()
    if options.gc_threshold is not None:
        gc.set_threshold(*options.gc_threshold)
    count: int = options.sessions
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < count + 1000:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count * 2 + 1000), hard))
    server = Server()
    made, clients = agents(options.wire, server.url, -(-count // options.pool), options.pool)
    try:
        # warm up every client (and every code path) with a few quick runs
        server.command("pace 0.001 2")
        for n, agent in enumerate(made):
            async for _ in agent.stream(TASK):
                pass
            async for _ in SDKSession(clients[n], options.wire, n).texts():
                pass
        server.command(f"pace {options.interval} {options.deltas}")
        settle()
        if options.gc_freeze:
            gc.freeze()
        print(
            f"{count} sessions, {options.wire} wire, {len(made)} SDK clients of "
            f"{options.pool} connections; {options.deltas} deltas {options.interval} s apart; "
            f"collector thresholds {gc.get_threshold()}"
            + (f", {gc.get_freeze_count():,} start-up objects frozen" if options.gc_freeze else "")
        )
        sides = [
            Side(
                "automata",
                lambda n: made[n % len(made)].session(messages=transcript(n)),
                automata_texts,
            )
        ]
        if options.baseline:
            sides.append(
                Side(
                    "hand-written SDK streams",
                    lambda n: SDKSession(clients[n % len(clients)], options.wire, n),
                    SDKSession.texts,
                )
            )
        for side in sides:
            traced = min(count, options.traced)
            await measure(server, side, count, traced, options.interval, options.deltas)
    finally:
        for client in clients:
            await client.close()
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
