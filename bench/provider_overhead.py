"""Client CPU per agent run: automata's Agent + provider vs a hand-written SDK loop.

Run: uv run python bench/provider_overhead.py [--runs N] [--rounds R]

One run = one tool call, then a final answer (two model calls and one tool call).
Both sides use the same official SDK client against the same local server, which runs
in a child process so that `time.process_time()` in this process counts client CPU
only. For each wire (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses;
and Gemini's `generateContent` in the `--opcodes` and `--instructions` tables, its
case in `bench/_gemini_sides.py`), streaming and not,
the script warms up, then alternates rounds of hand-written runs and agent runs and
prints CPU per run for each and their ratio (agent / hand-written). Runs alternate one
by one, so drift in the machine's speed hits both sides alike; each round gives a ratio,
and the median over the rounds is the figure to quote (the range shows the noise).
Target: <= 1.00x, aiming for 0.60x (the Messages, Chat Completions and Responses providers
skip the SDK's parameter transformation and response models: the fast path). A
second table isolates the provider: one model call through
`provider.complete`/`provider.stream` against the same call made by hand.
`--sdk-path` builds those providers on the SDK's own calls and models instead
(on a client whose `post` takes no raw body, so through the SDK's `create`, its
models dumped into the one reader), to
measure them the same way.

`--profile WIRE-MODE` (e.g. `anthropic-stream`) instead runs only the agent side of
one case under cProfile and prints the top functions by cumulative time.

`--instructions` counts CPU instructions instead of seconds, with valgrind's callgrind:
for each case, three processes run side by side with the same string-hash seed and the
same warm-up, then nothing, N hand-written runs, or N agent runs; the per-run difference
to the first is each side's cost, and the ratio of the two is immune to other load on
the machine (slow: minutes per case). `--opcodes` counts the Python bytecodes each side
executes instead (quick, and steady under load: it moves only with how the network
splits reads; blind to work done in C); its "HTTP floor" column is the agent side's
bytecodes in the HTTP stack under the client (httpx, httpcore, h11, anyio, sniffio)
over the hand-written total: the ratio no path through the client can go below. With
`--top N` it names the functions that add the most. `--case` picks cases for any of the tables.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from automata_wire_testing.older_clients import without_raw_post

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._hand_loops import (
    SCHEMA,
    TASK,
    TEXT,
    async_weather,
    hand_anthropic,
    hand_anthropic_call,
    hand_openai,
    hand_openai_call,
    hand_responses,
    hand_responses_call,
)
from bench._overhead_server import _gemini_sides, local_server

__all__ = [
    "ALL_CASES",
    "TASK",
    "TEXT",
    "Timing",
    "agent_run",
    "async_weather",
    "cpu_rounds",
    "hand_anthropic",
    "hand_openai",
    "hand_responses",
    "interleaved",
    "local_server",
    "make_agent",
    "make_client",
]

# ----------------------------------------------------------------- the agent side


SDK_PATH_ENV = "AUTOMATA_BENCH_SDK_PATH"


def make_agent(wire: str, base_url: str) -> tuple[Any, Any]:
    from anthropic import AsyncAnthropic
    from anthropic import DefaultAsyncHttpxClient as DefaultAnthropicHttpx
    from openai import AsyncOpenAI
    from openai import DefaultAsyncHttpxClient as DefaultOpenAIHttpx

    from automata.anthropic import AnthropicProvider
    from automata.core import Agent, tool
    from automata.core.providers import cap_reply_size
    from automata.openai import OpenAIProvider, OpenAIResponsesProvider

    # `--sdk-path` (inherited by the callgrind children through the environment): the
    # provider gets a client whose `post` takes no raw body (its replies capped as the
    # provider caps the clients it builds), so its calls go through the SDK's `create`
    # and its models, dumped into the same reader. Otherwise the provider builds its
    # own client, as by default.
    sdk_path = bool(os.environ.get(SDK_PATH_ENV))
    url = base_url if wire == "anthropic" else f"{base_url}/v1"
    connection: dict[str, Any] = {"api_key": "k", "base_url": url}
    if sdk_path:
        older: Any = without_raw_post(AsyncAnthropic if wire == "anthropic" else AsyncOpenAI)
        http = DefaultAnthropicHttpx if wire == "anthropic" else DefaultOpenAIHttpx
        connection = {"client": older(**connection, http_client=cap_reply_size(http()))}
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "[A-Za-z]+Provider: calls go through")
        if wire == "anthropic":
            provider: Any = AnthropicProvider(
                "claude-bench", **connection, max_tokens=1024, cache_prompt=False
            )
        elif wire == "openai-responses":
            provider = OpenAIResponsesProvider("gpt-bench", **connection)
        else:
            provider = OpenAIProvider("gpt-bench", **connection)
    # An async tool, like the hand-written loop's direct call: a sync tool would run
    # in a worker thread (the core keeps blocking functions off the event loop).
    return Agent(provider, tools=[tool(async_weather, name="weather")]), provider


async def agent_run(agent: Any, stream: bool) -> str:
    if not stream:
        result = await agent.run(TASK)
        return str(result.output)
    run = agent.stream(TASK)
    async for _ in run:
        pass
    return str(run.result.output)


def make_client(wire: str, base_url: str) -> Any:
    if wire == "anthropic":
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(api_key="k", base_url=base_url, max_retries=0)
    from openai import AsyncOpenAI

    return AsyncOpenAI(api_key="k", base_url=f"{base_url}/v1", max_retries=0)


# ----------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Timing:
    """CPU per run of two sides measured in alternation: the fastest round of each, and
    the ratio second / first of every round (the median is the figure to quote)."""

    first: float
    second: float
    ratios: tuple[float, ...]

    def row(self, case: str) -> str:
        low, high = min(self.ratios), max(self.ratios)
        return (
            f"{case:<22}{self.first * 1e3:>11.3f} ms{self.second * 1e3:>9.3f} ms"
            f"{statistics.median(self.ratios):>8.3f}x   {low:.3f}-{high:.3f}"
        )


async def interleaved(
    first: Callable[[], Awaitable[str]],
    second: Callable[[], Awaitable[str]],
    runs: int,
    rounds: int,
) -> Timing:
    """Alternate `first` and `second` run by run (in ABBA order), so that drift in the
    machine's speed hits both alike, for `rounds` rounds of `runs` runs each."""
    firsts, seconds = await cpu_rounds((first, second), runs, rounds)
    return Timing(
        first=min(firsts),
        second=min(seconds),
        ratios=tuple(b / a for a, b in zip(firsts, seconds, strict=True)),
    )


async def cpu_rounds(
    sides: Sequence[Callable[[], Awaitable[object]]], runs: int, rounds: int
) -> list[list[float]]:
    """Client CPU per run of each side, one figure per round: `rounds` rounds of `runs`
    runs of every side, the sides taking turns run by run, in order and then in reverse
    (ABBA, ABCDDCBA), so that drift in the machine's speed hits every side alike."""
    spent_per_round: list[list[float]] = [[] for _ in sides]
    forward = list(enumerate(sides))
    backward = forward[::-1]
    for _ in range(rounds):
        gc.collect()
        spent = [0.0] * len(sides)
        for index in range(runs):
            # a side that runs second can find the machine in another state (the
            # server still finishing the other side's reply); alternating cancels it
            for side, run in forward if index % 2 == 0 else backward:
                start = time.process_time()
                await run()
                spent[side] += time.process_time() - start
        for side, total in enumerate(spent):
            spent_per_round[side].append(total / runs)
    return spent_per_round


@dataclass(frozen=True)
class Sides:
    """One case's two sides on their own clients: a hand-written run and an agent run."""

    hand_run: Callable[[], Awaitable[str]]
    automata_run: Callable[[], Awaitable[str]]
    aclose: Callable[[], Awaitable[None]]


def open_sides(wire: str, stream: bool, base_url: str) -> Sides:
    if wire == "google":
        sdk_path = bool(os.environ.get(SDK_PATH_ENV))
        return Sides(*_gemini_sides().open_sides(stream, base_url, sdk_path=sdk_path))
    client = make_client(wire, base_url)
    agent, provider = make_agent(wire, base_url)
    hand = {"anthropic": hand_anthropic, "openai-responses": hand_responses}.get(wire, hand_openai)
    model = "claude-bench" if wire == "anthropic" else "gpt-bench"

    async def hand_run() -> str:
        return str(await hand(client, model, stream))

    async def automata_run() -> str:
        return await agent_run(agent, stream)

    async def aclose() -> None:
        await client.close()
        await provider.aclose()
        if os.environ.get(SDK_PATH_ENV):
            await provider.client.close()  # given to the provider, so not closed by it

    return Sides(hand_run, automata_run, aclose)


async def measure(wire: str, stream: bool, base_url: str, runs: int, rounds: int) -> Timing:
    sides = open_sides(wire, stream, base_url)
    hand_run, automata_run = sides.hand_run, sides.automata_run

    assert (await hand_run()).strip() == TEXT
    assert (await automata_run()).strip() == TEXT
    for _ in range(max(runs // 4, 20)):  # warm up both
        await hand_run()
        await automata_run()
    result = await interleaved(hand_run, automata_run, runs, rounds)
    await sides.aclose()
    return result


async def measure_call(wire: str, stream: bool, base_url: str, runs: int, rounds: int) -> Timing:
    """One model call (the first of the run: it answers with a tool call): the
    provider alone against the same call made by hand through the SDK."""
    from automata.core import Message, ModelRequest, ModelResponse, ToolSpec

    client = make_client(wire, base_url)
    _, provider = make_agent(wire, base_url)
    model = "claude-bench" if wire == "anthropic" else "gpt-bench"
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    request = ModelRequest(
        messages=(Message.user(TASK),),
        tools=(ToolSpec("weather", "Current weather for a city.", SCHEMA),),
    )

    async def hand_call() -> str:
        if wire == "anthropic":
            await hand_anthropic_call(client, model, messages, stream)
        elif wire == "openai-responses":
            await hand_responses_call(client, model, messages, stream)
        else:
            await hand_openai_call(client, model, messages, stream)
        return ""

    async def provider_call() -> str:
        if not stream:
            await provider.complete(request)
            return ""
        async for item in provider.stream(request):
            if isinstance(item, ModelResponse):
                return ""
        return ""

    for _ in range(max(runs // 4, 20)):
        await hand_call()
        await provider_call()
    result = await interleaved(hand_call, provider_call, runs, rounds)
    await client.close()
    await provider.aclose()
    return result


async def profile(case: str, base_url: str, runs: int, sort: str) -> None:
    wire, _, mode = case.rpartition("-")
    agent, provider = make_agent(wire, base_url)
    stream = mode == "stream"
    for _ in range(20):
        await agent_run(agent, stream)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        await agent_run(agent, stream)
    profiler.disable()
    await provider.aclose()
    pstats.Stats(profiler).sort_stats(sort).print_stats(45)


def _code_site(frame: FrameType) -> tuple[str, str]:
    """A frame's module, shortened to the package path, and its function name."""
    path = frame.f_code.co_filename
    for marker in (
        "site-packages/",
        "/src/",
        f"python{sys.version_info[0]}.{sys.version_info[1]}/",
    ):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return path, frame.f_code.co_name


HTTP_STACK = ("httpx", "httpx2", "httpcore", "httpcore2", "h11", "anyio", "sniffio")
"""The packages that carry an HTTP exchange under both SDKs' clients: every path through
the client pays them alike."""


def _in_http_stack(path: str) -> bool:
    return path.split("/", 1)[0] in HTTP_STACK


async def count_opcodes(run: Callable[[], Awaitable[str]], runs: int) -> Counter[tuple[str, str]]:
    """Python bytecodes executed by `runs` calls of `run`, per function (sys.settrace
    with opcode events: deterministic, but blind to work done in C)."""
    counts: Counter[tuple[str, str]] = Counter()

    def local(frame: FrameType, event: str, arg: object) -> Any:
        if event == "opcode":
            counts[_code_site(frame)] += 1
        return local

    def enter(frame: FrameType, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        return local

    sys.settrace(enter)
    try:
        for _ in range(runs):
            await run()
    finally:
        sys.settrace(None)
    return counts


async def opcodes_case(case: str, base_url: str, runs: int, top: int) -> None:
    wire, _, mode = case.rpartition("-")
    stream = mode == "stream"
    sides = open_sides(wire, stream, base_url)
    hand_run, automata_run = sides.hand_run, sides.automata_run

    for _ in range(10):
        await hand_run()
        await automata_run()
    by_hand = await count_opcodes(hand_run, runs)
    by_agent = await count_opcodes(automata_run, runs)
    await sides.aclose()
    hand_total, agent_total = sum(by_hand.values()) / runs, sum(by_agent.values()) / runs
    label = case.replace("-", " ")
    stack = sum(count for (path, _), count in by_agent.items() if _in_http_stack(path)) / runs
    print(
        f"{label:<22}{hand_total:>14,.0f}{agent_total:>12,.0f}{agent_total / hand_total:>8.3f}x"
        f"{stack / hand_total:>12.3f}x"
    )
    extra = Counter({site: by_agent[site] - by_hand[site] for site in by_agent | by_hand})
    for (path, function), count in extra.most_common(top):
        print(f"    {count / runs:>+8,.0f}  {path} {function}")


async def one_side(case: str, side: str, runs: int, base_url: str) -> None:
    """Warm up both sides, then make `runs` runs of one side (`none` makes none)."""
    wire, _, mode = case.rpartition("-")
    sides = open_sides(wire, mode == "stream", base_url)
    for _ in range(10):
        await sides.hand_run()
        await sides.automata_run()
    measured = sides.hand_run if side == "hand" else sides.automata_run
    for _ in range(runs if side != "none" else 0):
        await measured()
    await sides.aclose()


def count_instructions(case: str, runs: int, base_url: str) -> dict[str, int]:
    """Instructions of the three processes of one case (`none`, `hand`, `agent`), run
    side by side. Each uses the same string-hash seed, so the work they share (start-up,
    imports, warm-up) costs the same in each and cancels out in the differences."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as scratch:
        children = {
            side: subprocess.Popen(
                [
                    "valgrind",
                    "--tool=callgrind",
                    f"--callgrind-out-file={scratch}/{side}.out",
                    sys.executable,
                    __file__,
                    "--side",
                    f"{case}:{side}:{runs}",
                    "--base-url",
                    base_url,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for side in ("none", "hand", "agent")
        }
        counts: dict[str, int] = {}
        for side, child in children.items():
            _, stderr = child.communicate()
            match = re.search(r"Collected : (\d+)", stderr)
            if child.returncode != 0 or match is None:
                sys.exit(f"callgrind run {case}:{side} failed:\n{stderr[-2000:]}")
            counts[side] = int(match.group(1))
    return counts


ALL_CASES = (
    "anthropic-complete",
    "anthropic-stream",
    "openai-complete",
    "openai-stream",
    "openai-responses-complete",
    "openai-responses-stream",
    "google-complete",
    "google-stream",
)


def instructions_table(base_url: str, runs: int, cases: list[str]) -> None:
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind (Debian package valgrind)")
    print(f"CPU instructions per agent run, callgrind, {runs} runs per side")
    print("{:<22}{:>14}{:>12}{:>9}".format("case", "hand-written", "automata", "ratio"))
    for case in cases:
        counts = count_instructions(case, runs, base_url)
        hand = (counts["hand"] - counts["none"]) / runs
        agent = (counts["agent"] - counts["none"]) / runs
        label = case.replace("-", " ")
        print(f"{label:<22}{hand / 1e6:>12.2f} M{agent / 1e6:>10.2f} M{agent / hand:>8.3f}x")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=100, help="runs per round (default 100)")
    parser.add_argument("--rounds", type=int, default=9, help="alternating rounds (default 9)")
    parser.add_argument("--profile", metavar="WIRE-MODE", help="e.g. anthropic-stream")
    parser.add_argument(
        "--opcodes", action="store_true", help="count Python bytecodes (sys.settrace)"
    )
    parser.add_argument(
        "--top", type=int, default=0, help="--opcodes: list the N functions adding most"
    )
    parser.add_argument(
        "--sort", default="cumulative", help="--profile order: cumulative (default), tottime"
    )
    parser.add_argument(
        "--case",
        action="append",
        metavar="WIRE-MODE",
        help="measure only this case (repeatable), e.g. openai-stream",
    )
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions with callgrind"
    )
    parser.add_argument(
        "--sdk-path",
        action="store_true",
        help="build the providers on the SDK's own calls and models (see the docstring)",
    )
    parser.add_argument("--side", help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sdk_path:
        os.environ[SDK_PATH_ENV] = "1"
    if args.side:
        case, side, runs = args.side.split(":")
        asyncio.run(one_side(case, side, int(runs), args.base_url))
        return
    with local_server() as base_url:
        if args.profile:
            asyncio.run(profile(args.profile, base_url, args.runs, args.sort))
            return
        if args.opcodes:
            print(f"Python bytecodes per agent run, {args.runs} runs per side")
            print(
                "{:<22}{:>14}{:>12}{:>9}{:>13}".format(
                    "case", "hand-written", "automata", "ratio", "HTTP floor"
                )
            )
            for case in args.case or ALL_CASES:
                asyncio.run(opcodes_case(case, base_url, args.runs, args.top))
            return
        if args.instructions:
            instructions_table(base_url, min(args.runs, 40), args.case or list(ALL_CASES))
            return
        wires = ("anthropic", "openai", "openai-responses")
        cases = [(wire, stream) for wire in wires for stream in (False, True)]
        if args.case:
            cases = [
                (wire, stream)
                for wire, stream in cases
                if f"{wire}-{'stream' if stream else 'complete'}" in args.case
            ]
        columns = "{:<22}{:>14}{:>12}{:>9}   {}"
        print(
            "client CPU per agent run: one tool call, then the answer "
            f"({args.rounds} rounds x {args.runs} runs, interleaved; fastest round of each "
            "side, median and range of the per-round ratios)"
        )
        print(columns.format("case", "hand-written", "automata", "ratio", "range"))
        for wire, stream in cases:
            timing = asyncio.run(measure(wire, stream, base_url, args.runs, args.rounds))
            print(timing.row(f"{wire} {'stream' if stream else 'complete'}"))
        print()
        print("client CPU per model call: the provider alone vs the same SDK call by hand")
        print(columns.format("case", "hand-written", "provider", "ratio", "range"))
        for wire, stream in cases:
            timing = asyncio.run(measure_call(wire, stream, base_url, args.runs, args.rounds))
            print(timing.row(f"{wire} {'stream' if stream else 'complete'}"))


if __name__ == "__main__":
    main()
