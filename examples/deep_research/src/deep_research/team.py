"""The three agents and how they are wired together.

The orchestrator owns the run. The researcher and the writer are plain agents turned
into the orchestrator's tools with `as_tool_func`: the orchestrator's model fills in a
pydantic params model, and a renderer turns it into the natural-language task the
sub-agent reads. Tool policies keep each researcher's searching and fetching bounded,
whatever its model decides.
"""

from __future__ import annotations

from dataclasses import dataclass

from automata.core import Agent, CallOptions, Provider, Tool, ToolLimits, ToolPolicy, as_tool_func
from automata.tools import Searcher, http_fetch, web_search
from deep_research.models import ResearchAssignment, WritingBrief

__all__ = [
    "ORCHESTRATOR",
    "RESEARCHER",
    "WRITER",
    "TeamProviders",
    "build_orchestrator",
    "build_researcher",
    "build_writer",
    "render_assignment",
    "render_brief",
]

_LONG_ANSWER = 8192  # output tokens for the orchestrator's brief and the writer's report

ORCHESTRATOR = "orchestrator"
RESEARCHER = "researcher"
WRITER = "writer"

ORCHESTRATOR_PROMPT = """\
You lead a small research team. You plan the research, delegate every question to a \
researcher, and hand the researchers' notes to the writer. You never write the report \
yourself and never answer research questions from memory.

- To plan, give a working title and up to five distinct questions that together cover \
the topic.
- To research, call the researcher tool once per question, all in the same turn, so \
the researchers work in parallel. Add the topic as context.
- To write, call the writer tool once with the title and, for every question, the \
researcher's notes copied verbatim (keep their source URLs).
- When the writer has answered, reply with one or two sentences for the reader: what \
the report covers and any question that found little evidence."""

RESEARCHER_PROMPT = """\
You are a careful web researcher. Answer the one question you are given using the \
web_search tool (and http_fetch, when you have it, to read a promising page in full). \
Search at most three times. Prefer recent, primary and reputable sources.

Reply with notes only: three to six bullet points of concrete findings (figures, \
dates, names), each ending with its source URL in parentheses. If the evidence is thin \
or conflicting, say so in a final bullet. No introduction, no conclusion."""

WRITER_PROMPT = """\
You are a research writer. Turn the notes you are given into a clear, well-structured \
report in Markdown: the title as a level-one heading, a short summary, one section per \
question, and a final "Sources" list of every URL you cite. Use only the notes; do not \
add facts of your own. Cite sources inline as Markdown links. Be concise."""


@dataclass(frozen=True, slots=True)
class TeamProviders:
    """The model behind each role. A real provider is usually the same object three
    times; the demo gives each role its own scripted model."""

    orchestrator: Provider
    researcher: Provider
    writer: Provider

    @classmethod
    def shared(cls, provider: Provider) -> TeamProviders:
        """One provider for every role."""
        return cls(orchestrator=provider, researcher=provider, writer=provider)


def render_assignment(assignment: ResearchAssignment) -> str:
    """The researcher's task, in words rather than JSON."""
    task = f"Research question: {assignment.question}"
    if assignment.context.strip():
        task += f"\n\nContext: {assignment.context.strip()}"
    return task + "\n\nReply with your notes."


def render_brief(brief: WritingBrief) -> str:
    """The writer's task: the title, then each question with its notes."""
    sections = "\n\n".join(f"## {item.question}\n\n{item.notes.strip()}" for item in brief.findings)
    return f"Write a report titled: {brief.title}\n\nResearch notes follow.\n\n{sections}"


def build_researcher(
    provider: Provider,
    searcher: Searcher,
    *,
    fetch: bool = False,
    max_sources: int = 5,
) -> Agent:
    """The researcher agent on its own: answers one question with `web_search` (backed
    by `searcher`) and, with `fetch`, `http_fetch` (public addresses only). Each run may
    search at most 4 times and fetch at most 3 pages."""
    tools: list[Tool] = [web_search(searcher, default_results=max_sources)]
    if fetch:
        tools.append(http_fetch(max_chars=12_000, timeout=20.0))
    return Agent(
        provider,
        name=RESEARCHER,
        system_prompt=RESEARCHER_PROMPT,
        tools=tools,
        max_steps=8,
        tool_policy=ToolPolicy(
            timeout=45.0,
            per_tool={
                "web_search": ToolLimits(max_calls=4),
                "http_fetch": ToolLimits(max_calls=3),
            },
        ),
    )


def build_writer(provider: Provider) -> Agent:
    """The writer agent on its own: turns notes into a Markdown report; it has no tools."""
    return Agent(
        provider,
        name=WRITER,
        system_prompt=WRITER_PROMPT,
        max_steps=2,
        call_options=CallOptions(max_tokens=_LONG_ANSWER),
    )


def build_orchestrator(
    providers: TeamProviders,
    searcher: Searcher,
    *,
    fetch: bool = False,
    max_sources: int = 5,
) -> Agent:
    """The orchestrator agent, with the researcher and the writer (`build_researcher`,
    `build_writer`) as its tools.

    `searcher` backs the researcher's `web_search` (for example `TavilySearch`); with
    `fetch`, the researcher may also read pages with `http_fetch` (public addresses
    only). Each researcher run may search at most 4 times and fetch at most 3 pages.
    """
    researcher = build_researcher(
        providers.researcher, searcher, fetch=fetch, max_sources=max_sources
    )
    writer = build_writer(providers.writer)
    return Agent(
        providers.orchestrator,
        name=ORCHESTRATOR,
        system_prompt=ORCHESTRATOR_PROMPT,
        max_steps=8,
        # the writer's brief repeats every researcher's notes
        call_options=CallOptions(max_tokens=_LONG_ANSWER),
        tools=[
            as_tool_func(
                researcher,
                RESEARCHER,
                "Research one question on the web and return notes with source URLs.",
                params=ResearchAssignment,
                render=render_assignment,
            ),
            as_tool_func(
                writer,
                WRITER,
                "Write the final report from the researchers' notes; returns the report.",
                params=WritingBrief,
                render=render_brief,
            ),
        ],
        tool_policy=ToolPolicy(
            per_tool={RESEARCHER: ToolLimits(max_calls=6), WRITER: ToolLimits(max_calls=2)}
        ),
    )
