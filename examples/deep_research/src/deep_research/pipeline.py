"""One research run: plan, research, write.

The orchestrator works in one session over two streamed runs. The first is typed: its
output is a `ResearchPlan`, and its one turn is made to answer through the typed-output
tool, so it cannot start delegating before there is a plan. The second carries the
plan out through the sub-agents.

Every event of both runs, the sub-agents' included, is folded into the caller's
`StreamAccumulator`, which is all a view needs to draw the run. The report is the
writer's answer as it came back to the orchestrator, so the orchestrator never has to
repeat it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    CallOptions,
    Message,
    StreamAccumulator,
    StreamEvent,
    ToolResultBlock,
    Usage,
)
from deep_research.models import ResearchPlan
from deep_research.team import WRITER

__all__ = ["EventSink", "ResearchOutcome", "plan_task", "research", "writer_report"]

EventSink = Callable[[StreamEvent], None]

EXECUTE_TASK = (
    "Carry out this plan now: call the researcher once per question, all in one turn; "
    "then call the writer with the title and every question's notes; then reply to me "
    "in one or two sentences."
)


def plan_task(topic: str) -> str:
    """The orchestrator's first task. The topic is on its own first line."""
    return (
        f"Topic: {topic}\n\n"
        "Plan the research on this topic: a working title and the questions to research."
    )


@dataclass(frozen=True, slots=True)
class ResearchOutcome:
    """What a research run produced. `usage` is the accumulator's total: every agent's
    tokens. `closing` is the orchestrator's last word to the reader; `report` is the
    writer's answer, or `closing` if the writer was never called successfully."""

    topic: str
    plan: ResearchPlan
    report: str
    closing: str
    usage: Usage


def writer_report(messages: Sequence[Message]) -> str | None:
    """The writer's last successful answer in an orchestrator transcript, if any."""
    writer_calls = {
        call.id for message in messages for call in message.tool_calls if call.name == WRITER
    }
    report: str | None = None
    for message in messages:
        for block in message.content:
            if (
                isinstance(block, ToolResultBlock)
                and block.tool_use_id in writer_calls
                and not block.is_error
                and block.text.strip()
            ):
                report = block.text
    return report


async def research(
    orchestrator: Agent,
    topic: str,
    accumulator: StreamAccumulator,
    *,
    on_event: EventSink | None = None,
) -> ResearchOutcome:
    """Research `topic` with `orchestrator` (see `build_orchestrator`), folding every
    event into `accumulator` and passing it to `on_event`. Raises the run's error
    (an `AutomataError`, carrying the partial result) if a run fails."""

    def sink(event: StreamEvent) -> None:
        accumulator.add(event)
        if on_event is not None:
            on_event(event)

    session = orchestrator.session()
    planning = session.stream(
        plan_task(topic),
        output_type=ResearchPlan,
        call_options=CallOptions(tool_choice=STRUCTURED_OUTPUT_TOOL),
    )
    async with planning:
        async for event in planning:
            sink(event)
    plan = planning.result.output
    if not isinstance(plan, ResearchPlan):  # a typed run returns the validated model
        raise TypeError(f"expected a ResearchPlan, got {type(plan).__name__}")

    async with session.stream(EXECUTE_TASK) as executing:
        async for event in executing:
            sink(event)
    result = executing.result
    closing = str(result.output)
    report = writer_report(result.messages)
    return ResearchOutcome(
        topic=topic,
        plan=plan,
        report=report if report is not None else closing,
        closing=closing,
        usage=accumulator.totals(),
    )
