"""The command line: `python -m deep_research` (see `__main__`) calls `main`.

The live view goes to stderr and the report to stdout, so `> report.md` keeps just
the report. Configuration problems exit with status 2, a failed run with 1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import cast

from rich.console import Console
from rich.markdown import Markdown

from automata.core import AutomataError, StreamAccumulator
from deep_research.config import (
    PROVIDERS,
    ConfigError,
    SearchName,
    Settings,
    open_team,
    pick_provider,
)
from deep_research.pipeline import ResearchOutcome, research
from deep_research.team import build_orchestrator
from deep_research.ui import LiveDashboard, PlainLog


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m deep_research",
        description="Research a topic with an orchestrator, researchers and a writer.",
    )
    parser.add_argument("topic", nargs="+", help="what to research")
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="the models to use (default: $DEEP_RESEARCH_PROVIDER, else the first of "
        "anthropic/openai whose API key is set, else demo)",
    )
    parser.add_argument(
        "--model", help="model name (default: $DEEP_RESEARCH_MODEL, else a current model)"
    )
    parser.add_argument(
        "--search",
        choices=("tavily", "demo"),
        help="search backend (default: demo with --provider demo, else tavily, which "
        "needs TAVILY_API_KEY)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI-compatible endpoint for the openai provider, such as "
        "http://localhost:11434/v1 (default: $OPENAI_BASE_URL, else OpenAI's API); "
        "without --provider it chooses openai, which still needs OPENAI_API_KEY (any "
        "value, for an endpoint that checks none)",
    )
    parser.add_argument("--tavily-base-url", metavar="URL", help="a server speaking Tavily's API")
    parser.add_argument(
        "--fetch",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="let researchers read pages with http_fetch (default: on, off for demo)",
    )
    parser.add_argument("--plain", action="store_true", help="log lines instead of the live view")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.1,
        help="demo only: seconds each scripted model turn and search takes (default 0.1)",
    )
    parser.add_argument("--output", type=Path, help="also write the report to this file")
    return parser.parse_args(argv)


async def run(options: argparse.Namespace, environ: Mapping[str, str]) -> ResearchOutcome:
    """Set the team up as `options` say and research the topic. Raises `ConfigError`
    or the run's `AutomataError`."""
    topic = " ".join(options.topic).strip()
    if not topic:
        raise ConfigError("the topic is empty")
    settings = Settings(
        provider=pick_provider(options.provider, environ, base_url=options.base_url),
        model=options.model or environ.get("DEEP_RESEARCH_MODEL") or None,
        search=cast(SearchName | None, options.search),
        tavily_base_url=options.tavily_base_url,
        base_url=options.base_url,
        pace=max(0.0, float(options.pace)),
    )
    fetch = options.fetch if options.fetch is not None else settings.provider != "demo"
    view_console = Console(stderr=True)
    async with AsyncExitStack() as stack:
        providers, searcher = await open_team(settings, environ, stack)
        orchestrator = build_orchestrator(providers, searcher, fetch=fetch)
        accumulator = StreamAccumulator()
        if options.plain or not view_console.is_terminal:
            print(f"researching {topic!r} with {settings.provider}", file=sys.stderr)
            return await research(orchestrator, topic, accumulator, on_event=PlainLog(sys.stderr))
        with LiveDashboard(accumulator, topic=topic, console=view_console) as dashboard:
            return await research(orchestrator, topic, accumulator, on_event=dashboard.on_event)


def show(outcome: ResearchOutcome, output: Path | None) -> None:
    """The report on stdout (as Markdown on a terminal), a summary on stderr."""
    report_console = Console()
    if report_console.is_terminal:
        report_console.print(Markdown(outcome.report))
    else:
        sys.stdout.write(outcome.report.rstrip("\n") + "\n")
        sys.stdout.flush()
    if output is not None:
        output.write_text(outcome.report, encoding="utf-8")
    usage = outcome.usage
    sent = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    print(
        f"\n{outcome.closing.strip()}\n(tokens: {sent:,} in, {usage.output_tokens:,} out)",
        file=sys.stderr,
    )


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] = os.environ) -> int:
    """Run the command line; the exit status. Ctrl+C is left to the caller
    (`python -m deep_research` exits quietly with 130)."""
    options = parse_args(argv)
    try:
        outcome = asyncio.run(run(options, environ))
    except ConfigError as exc:
        print(f"deep_research: {exc}", file=sys.stderr)
        return 2
    except AutomataError as exc:
        print(f"deep_research: the research run failed: {exc}", file=sys.stderr)
        return 1
    show(outcome, options.output)
    return 0
