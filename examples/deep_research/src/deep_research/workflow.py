"""The research pipeline as a workflow: plan, research, write, checkpointed in a store.

    plan(topic) -> Planned -> research(Planned) -> Researched -> write(Researched) -> report

Each node is one agent run (the orchestrator's typed planning run, the researchers, the
writer), and the workflow checkpoints its output in the store after it finishes. A run
killed after `research` finished resumes at `write` with the research notes from the
journal: the researchers never search again. A node killed while it runs runs again
(at-least-once, with the same `context.idempotency_key`); `research` runs its
researchers concurrently in one activation, so a crash mid-research repeats them all.

`research_workflow(providers, searcher, store)` compiles it; `python -m
deep_research.durable` runs it from the command line on a SQLite file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    CallOptions,
    Usage,
)
from automata.threads.store import ThreadStore
from automata.tools import Searcher
from automata.workflow import CompiledWorkflow, EventSink, Guard, Workflow
from deep_research.models import Findings, ResearchAssignment, ResearchPlan, WritingBrief
from deep_research.pipeline import plan_task
from deep_research.team import (
    TeamProviders,
    build_orchestrator,
    build_researcher,
    build_writer,
    render_assignment,
    render_brief,
)

__all__ = ["WORKFLOW", "Planned", "Report", "Researched", "research_workflow"]

WORKFLOW = "deep-research"


@dataclass(frozen=True, slots=True)
class Planned:
    """The plan for `topic`, and the tokens spent so far."""

    topic: str
    plan: ResearchPlan
    usage: Usage


@dataclass(frozen=True, slots=True)
class Researched:
    """Every question of the plan with its researcher's notes."""

    topic: str
    plan: ResearchPlan
    findings: list[Findings]
    usage: Usage


@dataclass(frozen=True, slots=True)
class Report:
    """What a research run produced: the plan, the notes, the writer's report and every
    agent's tokens (sub-agents' included)."""

    topic: str
    plan: ResearchPlan
    findings: list[Findings]
    report: str
    usage: Usage


def research_workflow(
    providers: TeamProviders,
    searcher: Searcher,
    store: ThreadStore,
    *,
    max_sources: int = 5,
    guards: Sequence[Guard] = (),
    sinks: Sequence[EventSink] = (),
    lease_ttl: float = 30.0,
) -> CompiledWorkflow[str, Report]:
    """The pipeline compiled on `store` (open, the caller's): `invoke(topic,
    run_id=...)` runs or resumes a run and returns its `Report`. `guards` and `sinks`
    are the workflow's (W11, W12); `lease_ttl` how long a dead runner holds the run."""
    orchestrator = build_orchestrator(providers, searcher, max_sources=max_sources)
    researcher = build_researcher(providers.researcher, searcher, max_sources=max_sources)
    writer = build_writer(providers.writer)
    wf = Workflow[str, Report](WORKFLOW)

    @wf.node
    async def plan(topic: str) -> Planned:
        result = await orchestrator.run(
            plan_task(topic),
            output_type=ResearchPlan,
            call_options=CallOptions(tool_choice=STRUCTURED_OUTPUT_TOOL),
        )
        return Planned(topic, result.output, result.usage)

    @wf.node
    async def research(planned: Planned) -> Researched:
        context = f"Topic: {planned.topic}"
        results = await asyncio.gather(
            *(
                researcher.run(render_assignment(ResearchAssignment(question=q, context=context)))
                for q in planned.plan.questions
            )
        )
        findings = [
            Findings(question=question, notes=result.output)
            for question, result in zip(planned.plan.questions, results, strict=True)
        ]
        usage = sum((result.usage for result in results), planned.usage)
        return Researched(planned.topic, planned.plan, findings, usage)

    @wf.node
    async def write(researched: Researched) -> Report:
        brief = WritingBrief(title=researched.plan.title, findings=researched.findings)
        result = await writer.run(render_brief(brief))
        return Report(
            researched.topic,
            researched.plan,
            researched.findings,
            result.output,
            researched.usage + result.usage,
        )

    wf.entry(plan)
    wf.edge(plan, research)
    wf.edge(research, write)
    wf.exit(write)
    return wf.compile(store, guards=guards, sinks=sinks, lease_ttl=lease_ttl)
