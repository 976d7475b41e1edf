"""Tool activity (docs/threads.md, AC rules): what a tool call shows a person, set
through `ToolContext.activity`, streamed as cumulative `ActivityEvent`s, folded into
`ToolCallView.activity`, sanitized and bounded; a call whose arguments fail the schema
can carry a safe label and still never runs."""

from __future__ import annotations

import pytest

from automata.core import (
    Activity,
    ActivityEvent,
    ActivityRow,
    Agent,
    AnswerSummary,
    Message,
    StreamAccumulator,
    StreamEvent,
    SubAgentOperation,
    ToolContext,
    ToolResultEvent,
    tool,
)
from automata.core._activity import MAX_ACTIVITY_ROWS, MAX_LABEL_CHARS
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


@tool
async def fetch(url: str, context: ToolContext) -> str:
    """Fetch a page."""
    context.activity.label(f"Fetching {url}")
    context.activity.row("connected")
    context.activity.row("# Title", kind="markdown")
    context.activity.row("print(1)", kind="code", language="python")
    context.activity.status("done")
    return "page"


async def streamed(agent: Agent, task: str = "go") -> list[StreamEvent]:
    events: list[StreamEvent] = []
    async with agent.stream(task) as stream:
        async for event in stream:
            events.append(event)
    return events


async def test_a_tool_sets_activity_that_streams_cumulatively_before_its_result() -> None:
    """AC1"""
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("c1", "fetch", url="a.test")), Message.assistant("ok")]
        ),
        tools=[fetch],
    )
    events = await streamed(agent)
    kinds = [type(e).__name__ for e in events if isinstance(e, ActivityEvent | ToolResultEvent)]
    assert kinds == ["ActivityEvent"] * 5 + ["ToolResultEvent"]
    activities = [e.activity for e in events if isinstance(e, ActivityEvent)]
    assert all(
        e.call_id == "c1" and e.name == "fetch" for e in events if isinstance(e, ActivityEvent)
    )
    assert activities[0] == Activity(label="Fetching a.test")
    assert activities[-1] == Activity(
        label="Fetching a.test",
        rows=(
            ActivityRow("connected"),
            ActivityRow("# Title", "markdown"),
            ActivityRow("print(1)", "code", "python"),
        ),
        status="done",
    )


async def test_the_accumulator_keeps_a_calls_latest_activity_with_its_result() -> None:
    """AC1"""
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("c1", "fetch", url="a.test")), Message.assistant("ok")]
        ),
        tools=[fetch],
    )
    folded = StreamAccumulator()
    for event in await streamed(agent):
        folded.add(event)
    (call,) = folded.views()[0].tool_calls
    assert call.done
    assert call.result == "page"
    assert call.activity is not None
    assert call.activity.status == "done"
    assert len(call.activity.rows) == 3


def test_activity_text_is_sanitized_and_bounded() -> None:
    """AC2"""
    activity = Activity().with_label("\x1b[31mred\x1b[0m\nlabel\x07 " + "x" * 500)
    assert activity.label.startswith("red label ")
    assert len(activity.label) == MAX_LABEL_CHARS
    row = ActivityRow.of("a\x1b]0;title\x07b\u202ec\tok\n")
    assert row.text == "abc\tok\n"
    for n in range(MAX_ACTIVITY_ROWS + 7):
        activity = activity.with_row(ActivityRow.of(f"row {n}"))
    assert len(activity.rows) == MAX_ACTIVITY_ROWS
    assert activity.dropped == 7
    assert activity.rows[-1].text == f"row {MAX_ACTIVITY_ROWS + 6}"
    with pytest.raises(ValueError, match="kind"):
        ActivityRow.of("x", "html")


def test_activity_data_round_trips_and_rejects_other_shapes() -> None:
    """AC2, AC5, AC6"""
    activity = Activity(
        label="l",
        rows=(ActivityRow("r", "code", "sh"),),
        status="s",
        answer=AnswerSummary(redacted=True),
        operation=SubAgentOperation("stop", ("b", "a")),
        dropped=2,
    )
    assert Activity.from_data(activity.to_data()) == activity
    with pytest.raises(ValueError, match="redacted"):
        Activity.from_data({"answer": {"text": "hunter2", "redacted": True}})
    with pytest.raises(ValueError, match="action"):
        Activity.from_data({"operation": {"action": "explode", "targets": []}})
    with pytest.raises(ValueError, match="object"):
        Activity.from_data(["not", "an", "object"])


ran: list[int] = []


@tool(invalid_label=lambda arguments: f"Reading {str(arguments.get('path'))[:20]}")
def read_lines(path: str, count: int) -> str:
    """Read lines."""
    ran.append(count)
    return "lines"


async def test_a_call_failing_the_schema_shows_its_safe_label_and_never_runs() -> None:
    """AC4"""
    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(tool_call("c1", "read_lines", path="a.txt", count="many")),
                Message.assistant("ok"),
            ]
        ),
        tools=[read_lines],
    )
    events = await streamed(agent)
    labels = [e.activity.label for e in events if isinstance(e, ActivityEvent)]
    (result,) = [e for e in events if isinstance(e, ToolResultEvent)]
    assert labels == ["Reading a.txt"]
    assert result.is_error
    assert result.result.startswith("invalid args:")
    assert ran == []


async def test_a_label_function_that_raises_changes_nothing() -> None:
    """AC4"""

    def broken(arguments: object) -> str:
        raise RuntimeError("no")

    bad = tool(read_lines.function, name="bad", invalid_label=broken)
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("c1", "bad", path=1)), Message.assistant("ok")]),
        tools=[bad],
    )
    events = await streamed(agent)
    assert not [e for e in events if isinstance(e, ActivityEvent)]
    assert [e.is_error for e in events if isinstance(e, ToolResultEvent)] == [True]
