"""The research workflow from the command line, on a SQLite file that survives crashes.

    uv run python -m deep_research.durable --db runs.db --run-id bees --provider demo "bees"
    uv run python -m deep_research.durable --db runs.db --resume bees

The first runs (or, with the id of an interrupted run, resumes) the workflow and prints
the report; the second resumes run `bees` from its last checkpoint without repeating
the topic. A run that already finished prints its report from the file and calls no
model. Providers and keys are chosen as for `python -m deep_research` (see `config`).
Exit status: 0 done, 1 the run failed, 2 bad flags or missing keys, 3 the run is
being run by another live process.
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

from automata.core import AutomataError
from automata.threads import SQLiteStore
from automata.workflow import RunBusyError
from deep_research.config import PROVIDERS, ConfigError, SearchName, Settings, open_team
from deep_research.config import pick_provider as _pick
from deep_research.workflow import Report, research_workflow

__all__ = ["main", "parse_args"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m deep_research.durable",
        description="Research a topic as a checkpointed workflow that resumes after a crash.",
    )
    parser.add_argument("topic", nargs="*", help="what to research (not with --resume)")
    parser.add_argument("--db", type=Path, required=True, help="the SQLite file runs live in")
    parser.add_argument("--run-id", help="the run's id (default: a new one, printed)")
    parser.add_argument("--resume", metavar="RUN_ID", help="resume this run; no topic needed")
    parser.add_argument("--provider", choices=PROVIDERS, help="as for python -m deep_research")
    parser.add_argument("--model", help="model name (default: a current model)")
    parser.add_argument("--search", choices=("tavily", "demo"), help="search backend")
    parser.add_argument("--pace", type=float, default=0.0, help="demo only: seconds per turn")
    parser.add_argument("--output", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    if bool(args.topic) == bool(args.resume):
        parser.error("give a topic, or --resume RUN_ID (not both)")
    return args


async def _run(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[str, Report]:
    settings = Settings(
        provider=_pick(args.provider, environ),
        model=args.model or environ.get("DEEP_RESEARCH_MODEL") or None,
        search=cast(SearchName | None, args.search),
        pace=args.pace,
    )
    store = SQLiteStore(args.db)
    await store.open()
    async with AsyncExitStack() as stack:
        stack.push_async_callback(store.close)
        providers, searcher = await open_team(settings, environ, stack)
        flow = research_workflow(providers, searcher, store)
        if args.resume:
            return args.resume, await flow.resume(args.resume)
        run_id = args.run_id or flow.new_id("run")
        print(f"deep_research: run {run_id}", file=sys.stderr, flush=True)
        return run_id, await flow.invoke(" ".join(args.topic), run_id=run_id)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parse_args(argv)
    try:
        run_id, report = asyncio.run(_run(args, os.environ if environ is None else environ))
    except ConfigError as error:
        print(f"deep_research: {error}", file=sys.stderr)
        return 2
    except RunBusyError as error:
        print(f"deep_research: {error}; try again when it has stopped", file=sys.stderr)
        return 3
    except AutomataError as error:
        print(f"deep_research: the run failed: {error}", file=sys.stderr)
        return 1
    print(report.report, flush=True)
    if args.output is not None:
        args.output.write_text(report.report, encoding="utf-8")
    print(f"deep_research: run {run_id} done ({report.usage.total_tokens} tokens)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
