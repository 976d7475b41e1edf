"""The README's picture of the live view: the demo run's final frame as an SVG.

    uv run python -m deep_research.screenshot examples/deep_research/screenshot.svg

runs the demo team (scripted models, canned search, the CLI's default pace) on
`TOPIC`, then draws the frame the live view leaves on screen when the run ends and
saves it with rich's SVG export, less the web fonts rich's template fetches (the
viewer's own monospace font draws it). The invocation ids of the two top-level runs are
random, so each regeneration differs in those and in the elapsed time.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import re
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from automata.core import StreamAccumulator
from deep_research.demo import DemoSearcher, demo_providers
from deep_research.pipeline import research
from deep_research.team import build_orchestrator
from deep_research.ui import render_dashboard

__all__ = ["TITLE", "TOPIC", "WIDTH", "final_frame_svg", "main"]

TOPIC = "heat pumps in cold climates"
TITLE = f'python -m deep_research --provider demo "{TOPIC}"'
WIDTH = 128

_FETCHED = re.compile(r"\s*(?:@font-face \{[^}]*\}|<!--.*?-->)", re.DOTALL)


async def final_frame_svg(topic: str = TOPIC, *, pace: float = 0.1) -> str:
    """Run the demo on `topic` and return its final frame as an SVG document."""
    accumulator = StreamAccumulator()
    orchestrator = build_orchestrator(demo_providers(pace), DemoSearcher(pace=pace))
    started = time.monotonic()
    await research(orchestrator, topic, accumulator)
    elapsed = time.monotonic() - started
    console = Console(record=True, file=io.StringIO(), width=WIDTH, force_terminal=True)
    console.print(render_dashboard(accumulator, topic=topic, finished=True, elapsed=elapsed))
    return _FETCHED.sub("", console.export_svg(title=TITLE, unique_id="deep-research"))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m deep_research.screenshot",
        description="Save the demo run's final live view as an SVG.",
    )
    parser.add_argument("path", type=Path, help="where to write the SVG")
    options = parser.parse_args(argv)
    path: Path = options.path
    path.write_text(asyncio.run(final_frame_svg()), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
