"""The terminal views, rendered into strings: the dashboard is drawn from the
accumulator alone, the live view draws frames while the run streams, and the plain
log writes one line per call, result and turn."""

from __future__ import annotations

import io
from typing import Any

from deep_research import LiveDashboard, PlainLog, render_dashboard
from deep_research.ui import lane_status
from rich.console import Console

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    StreamAccumulator,
    TextBlock,
    TextEvent,
    ToolCallEvent,
    ToolResultEvent,
    ToolUseBlock,
    Usage,
    UsageEvent,
)

from .conftest import Pipeline

TOPIC = "urban heat islands"


def draw(
    accumulator: StreamAccumulator,
    *,
    width: int = 140,
    finished: bool = False,
    elapsed: float | None = None,
) -> str:
    screen = io.StringIO()
    console = Console(file=screen, width=width, color_system=None)
    console.print(render_dashboard(accumulator, topic=TOPIC, finished=finished, elapsed=elapsed))
    return screen.getvalue()


def call(call_id: str, name: str, **arguments: Any) -> ToolUseBlock:
    return ToolUseBlock(id=call_id, name=name, input=arguments)


def announce(block: ToolUseBlock, agent: str, invocation: str, depth: int = 0) -> ToolCallEvent:
    return ToolCallEvent(agent=agent, invocation_id=invocation, depth=depth, call=block)


def finish(
    block: ToolUseBlock,
    agent: str,
    invocation: str,
    result: str,
    *,
    depth: int = 0,
    is_error: bool = False,
) -> ToolResultEvent:
    return ToolResultEvent(
        agent=agent,
        invocation_id=invocation,
        depth=depth,
        call=block,
        result=result,
        blocks=(TextBlock(text=result),),
        is_error=is_error,
    )


PLAN = call(
    "call_plan",
    STRUCTURED_OUTPUT_TOOL,
    title="Cities and heat",
    questions=["Why are cities hotter?", "What cools them?"],
)


async def test_the_dashboard_shows_every_lane_with_its_tool_calls_and_tokens(
    pipeline: Pipeline,
) -> None:
    run = await pipeline(TOPIC)
    frame = draw(run.accumulator, finished=True)
    for view in run.accumulator.views():
        assert view.invocation_id[-8:] in frame
        sent = view.usage.input_tokens
        assert f"{sent:,} in" in frame
        assert f"{view.usage.output_tokens:,} out" in frame
    assert frame.count("└ ✓ researcher") == 3
    assert frame.count("✓ web_search") == 3
    assert frame.count("✓ researcher") == 6  # three lanes, three calls
    assert "✓ writer" in frame
    totals = run.accumulator.totals()
    assert (
        f"6 lanes · {totals.input_tokens:,} tokens in · {totals.output_tokens:,} tokens out"
        in frame
    )


def test_the_dashboard_shows_the_plan_once_it_is_accepted() -> None:
    accumulator = StreamAccumulator()
    accumulator.add(announce(PLAN, "orchestrator", "run_1"))
    assert "Planning…" in draw(accumulator)
    accumulator.add(finish(PLAN, "orchestrator", "run_1", "structured output accepted"))
    frame = draw(accumulator)
    assert "Plan: Cities and heat\n  1. Why are cities hotter?\n  2. What cools them?" in frame
    assert "✓ plan Cities and heat" in frame


def test_a_call_without_a_result_is_shown_running_and_its_lane_working() -> None:
    accumulator = StreamAccumulator()
    search = call("call_s1", "web_search", query="albedo of roofs")
    accumulator.add(announce(search, "researcher", "call_r1", depth=1))
    frame = draw(accumulator)
    assert "… web_search albedo of roofs" in frame
    assert "└ ● researcher" in frame


def test_a_failed_call_shows_its_error() -> None:
    accumulator = StreamAccumulator()
    search = call("call_s1", "web_search", query="albedo of roofs")
    accumulator.add(announce(search, "researcher", "call_r1", depth=1))
    accumulator.add(
        finish(search, "researcher", "call_r1", "search failed: quota", depth=1, is_error=True)
    )
    assert "✗ web_search albedo of roofs (search failed: quota)" in draw(accumulator)


def test_a_sub_agent_lane_is_done_once_its_parents_call_for_it_has_a_result() -> None:
    accumulator = StreamAccumulator()
    delegate = call("call_r1", "researcher", question="Why are cities hotter?")
    accumulator.add(announce(delegate, "orchestrator", "run_1"))
    accumulator.add(TextEvent(agent="researcher", invocation_id="call_r1", depth=1, text="- x"))
    views = accumulator.views()
    assert lane_status(views[1], views) == "working"
    accumulator.add(finish(delegate, "orchestrator", "run_1", "- x"))
    views = accumulator.views()
    assert lane_status(views[1], views) == "done"
    assert lane_status(views[0], views) == "working"
    assert lane_status(views[0], views, finished=True) == "done"


def test_the_latest_column_keeps_the_end_of_a_long_line() -> None:
    accumulator = StreamAccumulator()
    words = " ".join(f"word{n}" for n in range(60))
    accumulator.add(TextEvent(agent="writer", invocation_id="call_w", depth=1, text=words))
    frame = draw(accumulator, width=100)
    assert "word59" in frame
    assert "word0 " not in frame


async def test_the_live_view_draws_a_frame_per_event_and_leaves_the_last_on_screen(
    pipeline: Pipeline,
) -> None:
    screen = io.StringIO()
    console = Console(file=screen, width=140, force_terminal=True, color_system=None)
    accumulator = StreamAccumulator()
    with LiveDashboard(accumulator, topic=TOPIC, console=console, auto_refresh=False) as dashboard:
        run = await pipeline(TOPIC, accumulator=accumulator, on_event=dashboard.on_event)
    output = screen.getvalue()
    frames = output.count(f"Deep research: {TOPIC}")
    assert frames >= len(run.events) + 1
    last = output.rsplit(f"Deep research: {TOPIC}", 1)[1]
    assert "finished" in last
    assert "●" not in last  # no lane still working
    assert last.count("└ ✓ researcher") == 3


def test_the_plain_log_writes_one_line_per_call_result_and_turn() -> None:
    stream = io.StringIO()
    log = PlainLog(stream)
    search = call("call_s1", "web_search", query="albedo of roofs")
    log(
        UsageEvent(
            agent="researcher",
            invocation_id="call_r1",
            depth=1,
            usage=Usage(input_tokens=1200, output_tokens=40),
        )
    )
    log(TextEvent(agent="researcher", invocation_id="call_r1", depth=1, text="Searching."))
    log(announce(search, "researcher", "call_r1", depth=1))
    log(finish(search, "researcher", "call_r1", "1. Roofs\n   https://a.test", depth=1))
    assert stream.getvalue().splitlines() == [
        "  [researcher call_r1] turn used 1,200 in / 40 out",
        "  [researcher call_r1] call web_search: albedo of roofs",
        "  [researcher call_r1] done web_search: 1. Roofs",
    ]
