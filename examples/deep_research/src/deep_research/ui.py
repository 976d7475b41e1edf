"""Watching the run: a live terminal view, or plain log lines.

`render_dashboard` draws the whole run from a `StreamAccumulator` alone: the plan (the
orchestrator's typed output, read from its hidden output tool call), then one row per
lane (an agent invocation) with its status, its tool calls and their status, the last
line it wrote and the tokens it used. `LiveDashboard` redraws it in place with rich's
`Live`; its refresh thread reads the accumulator while the run writes to it, which the
accumulator allows. `PlainLog` is the fallback for pipes and `--plain`: one line per
tool call, tool result and model turn.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from types import TracebackType
from typing import IO, Literal

from pydantic import ValidationError
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    AgentView,
    StreamAccumulator,
    StreamEvent,
    ToolCallEvent,
    ToolCallView,
    ToolResultEvent,
    Usage,
    UsageEvent,
)
from deep_research.models import ResearchPlan

__all__ = ["LiveDashboard", "PlainLog", "lane_status", "plan_of", "render_dashboard"]

LaneStatus = Literal["working", "done", "failed"]

_MAX_CALLS_SHOWN = 6
_STATUS_STYLE = {"working": ("●", "yellow"), "done": ("✓", "green"), "failed": ("✗", "red")}
_SUMMARY_KEYS = ("query", "url", "question", "title", "path", "task")


def plan_of(views: list[AgentView]) -> ResearchPlan | None:
    """The plan, once the orchestrator's typed output was accepted."""
    for view in views:
        if view.depth != 0:
            continue
        for call in view.tool_calls:
            if (
                call.name == STRUCTURED_OUTPUT_TOOL
                and call.done
                and not call.is_error
                and call.call is not None
            ):
                try:
                    return ResearchPlan.model_validate(call.call.input)
                except ValidationError:
                    return None
    return None


def lane_status(view: AgentView, views: list[AgentView], *, finished: bool = False) -> LaneStatus:
    """A sub-agent lane is done when its parent's call for it has a result. A
    top-level lane is done once a later top-level lane started, or the run finished."""
    if view.depth > 0:
        for other in views:
            for call in other.tool_calls:
                if call.id == view.invocation_id and call.name == view.agent:
                    if not call.done:
                        return "working"
                    return "failed" if call.is_error else "done"
        return "working"
    top = [(v.agent, v.invocation_id) for v in views if v.depth == 0]
    if finished or (view.agent, view.invocation_id) != top[-1]:
        return "done"
    return "working"


def _label(name: str) -> str:
    return "plan" if name == STRUCTURED_OUTPUT_TOOL else name


def _summary(call: ToolCallView, limit: int = 60) -> str:
    """The argument that says most about a call, shortened."""
    if call.call is None:
        return ""
    arguments = call.call.input
    title = arguments.get("title")
    if call.name == STRUCTURED_OUTPUT_TOOL and isinstance(title, str):
        return _shorten(title, limit)
    for key in _SUMMARY_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return _shorten(value, limit)
    return _shorten(json.dumps(arguments, ensure_ascii=False), limit) if arguments else ""


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _tokens(usage: Usage) -> Text:
    sent = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    cell = Text(f"{sent:,} in\n{usage.output_tokens:,} out", justify="right", no_wrap=True)
    if usage.cache_read_tokens:
        cell.append(f"\n{usage.cache_read_tokens:,} cached", style="dim")
    return cell


def _calls_cell(view: AgentView) -> Text:
    cell = Text(no_wrap=True, overflow="ellipsis")
    calls = view.tool_calls
    hidden = len(calls) - _MAX_CALLS_SHOWN
    if hidden > 0:
        cell.append(f"… {hidden} earlier\n", style="dim")
        calls = calls[hidden:]
    for index, call in enumerate(calls):
        if index:
            cell.append("\n")
        if not call.done:
            cell.append("… ", style="yellow")
        elif call.is_error:
            cell.append("✗ ", style="red")
        else:
            cell.append("✓ ", style="green")
        cell.append(_label(call.name), style="bold")
        summary = _summary(call)
        if summary:
            cell.append(f" {summary}", style="cyan")
        if call.done and call.is_error:
            cell.append(f" ({_shorten(call.result, 50)})", style="red")
    if not view.tool_calls:
        cell.append("—", style="dim")
    return cell


class _Tail:
    """One line of text that keeps its end when it is too wide, as the latest words
    of a lane or the distinguishing end of an id matter more than their start."""

    def __init__(self, text: str, *, style: str = "", indent: int = 0) -> None:
        self.text = text
        self.style = style
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(1, options.max_width - self.indent)
        text = self.text
        if cell_len(text) > room:
            while text and cell_len(text) > room - 1:
                text = text[1:]
            text = "…" + text
        yield Text(" " * self.indent + text, style=self.style, no_wrap=True, overflow="crop")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        full = self.indent + cell_len(self.text)
        return Measurement(min(options.max_width, self.indent + 2, full), full).clamp(
            max_width=options.max_width
        )


def _lane_cell(view: AgentView, status: LaneStatus) -> Group:
    indent = 2 * view.depth
    mark, style = _STATUS_STYLE[status]
    name = Text(" " * indent + ("└ " if view.depth else ""), no_wrap=True, overflow="ellipsis")
    name.append(f"{mark} ", style=style)
    name.append(view.agent, style="bold magenta" if view.depth == 0 else "bold blue")
    id_indent = indent + 2 * (view.depth > 0) + 2
    return Group(name, _Tail(view.invocation_id, style="dim", indent=id_indent))


def render_dashboard(
    accumulator: StreamAccumulator,
    *,
    topic: str,
    finished: bool = False,
    elapsed: float | None = None,
) -> RenderableType:
    """The whole run as one renderable, read from `accumulator` only."""
    views = accumulator.views()
    header = Text("Deep research: ", style="bold")
    header.append(topic, style="bold cyan")
    if elapsed is not None:
        header.append(f"  {elapsed:.1f}s", style="dim")
    if finished:
        header.append("  finished", style="green")

    plan = plan_of(views)
    if plan is None:
        plan_text = Text("Planning…" if views else "Starting…", style="dim")
    else:
        plan_text = Text("Plan: ", style="bold")
        plan_text.append(plan.title)
        for number, question in enumerate(plan.questions, start=1):
            plan_text.append(f"\n  {number}. {question}")

    table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False, pad_edge=False)
    table.add_column("lane", max_width=26, no_wrap=True)
    table.add_column("tool calls", ratio=3)
    table.add_column("latest", ratio=2, no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    for view in views:
        status = lane_status(view, views, finished=finished)
        latest = _last_line(view.text) or _last_line(view.thinking)
        table.add_row(
            _lane_cell(view, status),
            _calls_cell(view),
            _Tail(latest, style="dim italic" if not view.text else "dim"),
            _tokens(view.usage),
        )

    totals = accumulator.totals()
    sent = totals.input_tokens + totals.cache_read_tokens + totals.cache_write_tokens
    footer = Text(
        f"{len(views)} lanes · {sent:,} tokens in · {totals.output_tokens:,} tokens out",
        style="bold",
    )
    return Group(header, plan_text, table, footer)


class LiveDashboard:
    """`render_dashboard` redrawn in place on `console` while the run streams.

    With `auto_refresh` (the default) rich redraws `refresh_per_second` times a second
    from its own thread; without it, every event handed to `on_event` draws a frame
    (deterministic, for tests). Leaving the `with` block draws the final frame and
    leaves it on screen.
    """

    def __init__(
        self,
        accumulator: StreamAccumulator,
        *,
        topic: str,
        console: Console,
        refresh_per_second: float = 10.0,
        auto_refresh: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.accumulator = accumulator
        self.topic = topic
        self.finished = False
        self._auto_refresh = auto_refresh
        self._clock = clock
        self._started = clock()
        self._live = Live(
            console=console,
            get_renderable=self.frame,
            auto_refresh=auto_refresh,
            refresh_per_second=refresh_per_second,
            redirect_stdout=False,
            redirect_stderr=False,
            transient=False,
        )

    def frame(self) -> RenderableType:
        """The current frame."""
        return render_dashboard(
            self.accumulator,
            topic=self.topic,
            finished=self.finished,
            elapsed=self._clock() - self._started,
        )

    def on_event(self, event: StreamEvent) -> None:
        """Called after each event reached the accumulator."""
        if not self._auto_refresh:
            self._live.refresh()

    def __enter__(self) -> LiveDashboard:
        self._started = self._clock()
        self._live.start(refresh=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.finished = exc_type is None
        self._live.stop()  # draws the last frame


class PlainLog:
    """One line per tool call, tool result and model turn, for logs and pipes."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def __call__(self, event: StreamEvent) -> None:
        line = self.line(event)
        if line is not None:
            self._stream.write(line + "\n")
            self._stream.flush()

    @staticmethod
    def line(event: StreamEvent) -> str | None:
        """The log line for `event`, or None for text and thinking deltas."""
        tag = f"{'  ' * event.depth}[{event.agent} {event.invocation_id}]"
        if isinstance(event, ToolCallEvent):
            view = ToolCallView(id=event.call.id, name=event.call.name, call=event.call)
            return f"{tag} call {_label(event.call.name)}: {_summary(view, 100)}"
        if isinstance(event, ToolResultEvent):
            outcome = "error" if event.is_error else "done"
            first = _shorten(event.result.strip().split("\n", 1)[0], 100)
            return f"{tag} {outcome} {_label(event.call.name)}: {first}"
        if isinstance(event, UsageEvent):
            usage = event.usage
            return f"{tag} turn used {usage.input_tokens:,} in / {usage.output_tokens:,} out"
        return None
