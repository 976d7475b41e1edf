"""automata beside a hand-written SDK loop, pydantic-ai and the OpenAI Agents SDK.

Run (the peers are installed for this run only, never in the workspace):

    uv run --with 'pydantic-ai-slim[openai,anthropic]==2.68.0' \\
        --with 'openai-agents==0.24.0' python bench/peers.py [--table]

The task, the local server and the hand-written loops are those of
`provider_overhead.py`: one tool call, then the answer (two model calls, one tool
call), on the Anthropic Messages and the OpenAI Chat Completions wires, streaming and
not, with every side on its own official SDK client against the same child-process
server. Each library runs its own agent loop with an async `weather` tool: automata's
`Agent` (`run`, `stream`), pydantic-ai's `Agent` (`run`, `run_stream_events`) and the
Agents SDK's `Runner` (`run`, `run_streamed`, Chat Completions only: it has no
Anthropic Messages model of its own). Client CPU per run (`time.process_time`), every
side in turn run by run (ABCD, then DCBA), per round; the figure is each side's median
over the rounds of its CPU as a ratio of the hand-written loop's in the same round.
`--table` also writes the table into bench/README.md between its markers. Benchmarks
measure; they never assert.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.metadata
import platform
import statistics
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.provider_overhead import (
    ALL_CASES,
    TASK,
    TEXT,
    agent_run,
    async_weather,
    cpu_rounds,
    hand_anthropic,
    hand_openai,
    hand_responses,
    local_server,
    make_agent,
    make_client,
)

README = Path(__file__).with_name("README.md")
BEGIN, END = "<!-- peers:begin -->", "<!-- peers:end -->"
PEERS = ("pydantic-ai", "openai-agents")
Run = Callable[[], Awaitable[str]]


def _import(name: str) -> Any:
    """A peer's module, typed loosely: the peers live in the bench environment only."""
    return importlib.import_module(name)


def pydantic_ai_run(wire: str, base_url: str, stream: bool) -> tuple[Run, Any]:
    pai = _import("pydantic_ai")
    client = make_client(wire, base_url)
    if wire == "anthropic":
        model = _import("pydantic_ai.models.anthropic").AnthropicModel(
            "claude-bench",
            provider=_import("pydantic_ai.providers.anthropic").AnthropicProvider(
                anthropic_client=client
            ),
        )
        settings: dict[str, Any] = {"max_tokens": 1024}
    else:
        models = _import("pydantic_ai.models.openai")
        kind = models.OpenAIResponsesModel if wire == "openai-responses" else models.OpenAIChatModel
        model = kind(
            "gpt-bench",
            provider=_import("pydantic_ai.providers.openai").OpenAIProvider(openai_client=client),
        )
        settings = {}
    agent = pai.Agent(model, tools=[pai.Tool(async_weather, name="weather")])
    result_event = _import("pydantic_ai.run").AgentRunResultEvent

    async def run() -> str:
        if not stream:
            return str((await agent.run(TASK, model_settings=settings)).output)
        output = ""
        async with agent.run_stream_events(TASK, model_settings=settings) as events:
            async for event in events:
                if isinstance(event, result_event):
                    output = str(event.result.output)
        return output

    return run, client


def openai_agents_run(wire: str, base_url: str, stream: bool) -> tuple[Run, Any] | None:
    if wire == "anthropic":
        return None
    agents = _import("agents")
    agents.set_tracing_disabled(True)  # nothing leaves the machine
    client = make_client(wire, base_url)
    kind = (
        agents.OpenAIResponsesModel
        if wire == "openai-responses"
        else agents.OpenAIChatCompletionsModel
    )
    agent = agents.Agent(
        name="bench",
        model=kind("gpt-bench", openai_client=client),
        tools=[agents.function_tool(async_weather, name_override="weather")],
    )

    async def run() -> str:
        if not stream:
            return str((await agents.Runner.run(agent, TASK)).final_output)
        result = agents.Runner.run_streamed(agent, TASK)
        async for _ in result.stream_events():
            pass
        return str(result.final_output)

    return run, client


@dataclass(frozen=True)
class Row:
    """One case: the hand-written loop's CPU per run (fastest round) and each side's
    median ratio to it (None where the side does not speak the wire)."""

    case: str
    hand: float
    ratios: dict[str, float | None]


async def measure(case: str, base_url: str, runs: int, rounds: int) -> Row:
    wire, _, mode = case.rpartition("-")
    stream = mode == "stream"
    hand_client = make_client(wire, base_url)
    agent, provider = make_agent(wire, base_url)
    model = "claude-bench" if wire == "anthropic" else "gpt-bench"
    hand_loop = {"anthropic": hand_anthropic, "openai-responses": hand_responses}.get(
        wire, hand_openai
    )

    async def hand() -> str:
        return await hand_loop(hand_client, model, stream)

    async def automata() -> str:
        return await agent_run(agent, stream)

    sides: dict[str, Run] = {"hand-written": hand, "automata": automata}
    clients = [hand_client]
    for name, build in (("pydantic-ai", pydantic_ai_run), ("openai-agents", openai_agents_run)):
        built = build(wire, base_url, stream)
        if built is not None:
            sides[name], client = built
            clients.append(client)
    for name, run in sides.items():
        output = (await run()).strip()
        if output != TEXT:
            raise SystemExit(f"{name} on {case} answered {output[:80]!r}")
    for _ in range(max(runs // 4, 10)):  # warm up every side
        for run in sides.values():
            await run()
    spent = dict(zip(sides, await cpu_rounds(list(sides.values()), runs, rounds), strict=True))
    base = spent["hand-written"]
    ratios: dict[str, float | None] = {
        name: statistics.median(s / h for s, h in zip(spent[name], base, strict=True))
        for name in ("automata", *PEERS)
        if name in spent
    }
    for name in PEERS:
        ratios.setdefault(name, None)
    for client in clients:
        await client.close()
    await provider.aclose()
    return Row(case, min(base), ratios)


def table(rows: list[Row], runs: int, rounds: int) -> str:
    versions = ", ".join(
        f"{name} {importlib.metadata.version(dist)}"
        for name, dist in (
            ("openai", "openai"),
            ("anthropic", "anthropic"),
            ("pydantic-ai-slim", "pydantic-ai-slim"),
            ("openai-agents", "openai-agents"),
        )
    )
    lines = [
        "| case | hand-written SDK loop | automata | pydantic-ai | OpenAI Agents SDK |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        cells = [
            f"{row.ratios[name]:.2f}x" if row.ratios[name] is not None else "n/a"
            for name in ("automata", *PEERS)
        ]
        lines.append(
            f"| {row.case.replace('-', ' ')} | 1.00x ({row.hand * 1e3:.2f} ms) | "
            + " | ".join(cells)
            + " |"
        )
    lines.append("")
    lines.append(
        f"Client CPU per run as a ratio of the hand-written loop's, median of {rounds} "
        f"rounds of {runs} runs per side; Python {platform.python_version()}, {versions}."
    )
    return "\n".join(lines)


def write_readme(text: str) -> None:
    readme = README.read_text()
    head, found, rest = readme.partition(BEGIN)
    _, ended, tail = rest.partition(END)
    if not found or not ended:
        raise SystemExit(f"{README} has no {BEGIN} ... {END} markers")
    README.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=40, help="runs per side per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--case", action="append", choices=ALL_CASES, help="repeatable")
    parser.add_argument("--table", action="store_true", help="write the table into README.md")
    args = parser.parse_args()
    for name in PEERS:
        try:
            importlib.metadata.version(name if name != "pydantic-ai" else "pydantic-ai-slim")
        except importlib.metadata.PackageNotFoundError as missing:
            raise SystemExit(
                f"{name} is not installed: run this with uv run --with (see --help)"
            ) from missing
    rows: list[Row] = []
    with local_server() as base_url:
        for case in args.case or ALL_CASES:
            rows.append(asyncio.run(measure(case, base_url, args.runs, args.rounds)))
            print(table(rows[-1:], args.runs, args.rounds).splitlines()[2], flush=True)
    text = table(rows, args.runs, args.rounds)
    print(text)
    if args.table:
        write_readme(text)


if __name__ == "__main__":
    main()
