"""A demo team that needs no API key and no network.

Each role's model is a `FunctionProvider` that decides from the transcript the way a
model would: the orchestrator plans, fans the questions out to researchers, passes
their notes to the writer and signs off; a researcher searches once and turns the
results into notes; the writer assembles the notes into a report. The orchestrator
follows `research()`'s two runs (a typed plan, then the work) and, given a single plain
run instead, plans inline from the topic and delegates at once. Replies report token
usage (estimated at four characters a token) so the view has numbers to show.
`DemoSearcher` answers searches from canned sources on the documentation domains
(example.com, example.org, example.net).

Swap in real providers and `TavilySearch` and nothing else about the run changes.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Sequence

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from automata.core.testing import FunctionProvider, tool_call, tool_calls
from automata.tools import SearchResult
from deep_research.models import ResearchPlan
from deep_research.team import RESEARCHER, WRITER, TeamProviders

__all__ = ["DemoSearcher", "demo_providers"]

_SOURCES = (
    (
        "example.org",
        "{q}: an overview",
        "How it started, who is involved and which numbers matter most; a good first read.",
    ),
    (
        "example.com",
        "{q}: new survey figures",
        "A 2024 survey of 1,200 organisations finds adoption doubled in three years, "
        "fastest among small ones.",
    ),
    (
        "example.net",
        "{q}: the debate",
        "Critics say the claims outpace the evidence; supporters point to early results "
        "from pilot programmes.",
    ),
    (
        "example.org",
        "{q}: a practitioner's guide",
        "Lessons from teams who tried it, including what it cost and the most common mistakes.",
    ),
    (
        "example.com",
        "{q}: what comes next",
        "Analysts expect the next two years to settle most of the open questions.",
    ),
)


class DemoSearcher:
    """A `Searcher` with canned, deterministic results for any query."""

    def __init__(self, *, pace: float = 0.0) -> None:
        self._pace = pace
        self.queries: list[str] = []

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.queries.append(query)
        if self._pace > 0:
            await asyncio.sleep(self._pace)
        subject = query.rstrip("?").strip()
        slug = re.sub(r"[^a-z0-9]+", "-", subject.lower()).strip("-")[:60] or "topic"
        return [
            SearchResult(
                title=title.format(q=subject),
                url=f"https://{domain}/{slug}/{number}",
                snippet=snippet,
            )
            for number, (domain, title, snippet) in enumerate(_SOURCES[:max_results], start=1)
        ]


# -- helpers shared by the scripted models -------------------------------------------


def _tokens(characters: int) -> int:
    return max(1, characters // 4)


def _turn(request: ModelRequest, message: Message) -> ModelResponse:
    """A reply with a stop reason that fits it and usage estimated from its size."""
    sent = sum(len(m.text) for m in request.messages) + sum(
        len(block.text) for m in request.messages for block in _results(m)
    )
    sent += sum(len(json.dumps(spec.input_schema)) for spec in request.tools)
    made = len(message.text) + sum(len(json.dumps(c.input)) for c in message.tool_calls)
    stop = StopReason.TOOL_USE if message.tool_calls else StopReason.END_TURN
    return ModelResponse(
        message=message,
        stop_reason=stop,
        usage=Usage(input_tokens=_tokens(sent), output_tokens=_tokens(made)),
        raw_stop_reason=stop.value,
    )


def _results(message: Message) -> list[ToolResultBlock]:
    return [b for b in message.content if isinstance(b, ToolResultBlock)]


def _calls_by_id(messages: Sequence[Message]) -> dict[str, ToolUseBlock]:
    return {call.id: call for message in messages for call in message.tool_calls}


def _pieces(text: str) -> Message:
    """An answer as several text blocks, so a stream delivers it piece by piece."""
    parts = [part for part in re.split(r"(?<=\n)", text) if part]
    return Message.assistant([TextBlock(text=part) for part in parts])


Model = Callable[[ModelRequest], ModelResponse]


def _paced(model: Model, pace: float) -> Callable[[ModelRequest], Awaitable[ModelResponse]]:
    """`model`, answering after `pace` seconds, as a person watching would see it."""

    async def paced(request: ModelRequest) -> ModelResponse:
        if pace > 0:
            await asyncio.sleep(pace)
        return model(request)

    return paced


# -- the orchestrator -------------------------------------------------------------------


def _topic(messages: Sequence[Message]) -> str:
    first = next(m.text for m in messages if m.role == "user")
    line = first.splitlines()[0]
    return line.removeprefix("Topic:").strip() or "the topic"


def _inline_plan(topic: str) -> ResearchPlan:
    """The plan for `topic`: a title and three questions."""
    return ResearchPlan(
        title=f"Research brief: {topic}",
        questions=[
            f"What is the background of {topic}?",
            f"What does the latest evidence say about {topic}?",
            f"What are the open debates and risks around {topic}?",
        ],
    )


def _plan(calls: dict[str, ToolUseBlock], topic: str) -> ResearchPlan:
    """The plan the orchestrator gave earlier in the session, as its typed output; in a
    single plain run (no plan given), the plan it makes inline from the topic."""
    given = next((c for c in calls.values() if c.name == STRUCTURED_OUTPUT_TOOL), None)
    if given is None:
        return _inline_plan(topic)
    return ResearchPlan.model_validate(given.input)


def _orchestrator(request: ModelRequest) -> ModelResponse:
    messages = request.messages
    last = messages[-1]
    topic = _topic(messages)
    calls = _calls_by_id(messages)
    if last.role == "user" and any(t.name == STRUCTURED_OUTPUT_TOOL for t in request.tools):
        plan = tool_call("call_plan", STRUCTURED_OUTPUT_TOOL, **_inline_plan(topic).model_dump())
        return _turn(request, tool_calls(plan, text="I'll split the topic into three questions. "))
    if last.role == "user":
        planned = any(c.name == STRUCTURED_OUTPUT_TOOL for c in calls.values())
        delegated = [
            tool_call(f"call_research_{n}", RESEARCHER, question=q, context=f"Topic: {topic}")
            for n, q in enumerate(_plan(calls, topic).questions, start=1)
        ]
        text = "Sending each question to a researcher. "
        if not planned:  # a single plain run: plan inline, then delegate in the same turn
            text = "I'll split the topic into three questions and send each to a researcher. "
        return _turn(request, tool_calls(*delegated, text=text))
    answered = {block.tool_use_id: block for block in _results(last)}
    names = {calls[call_id].name for call_id in answered}
    if RESEARCHER in names:
        findings = [
            {"question": str(calls[call_id].input["question"]), "notes": block.text}
            for call_id, block in answered.items()
        ]
        title = _plan(calls, topic).title
        brief = tool_call("call_write", WRITER, title=title, findings=findings)
        return _turn(request, tool_calls(brief, text="Notes are in; handing them to the writer. "))
    report = next(iter(answered.values()))
    if report.is_error:
        return _turn(request, _pieces(f"The writer failed ({report.text}); no report this time."))
    sources = len(set(re.findall(r"https?://[^\s)\]>]+", report.text)))
    researched = [c for c in calls.values() if c.name == RESEARCHER]
    return _turn(
        request,
        _pieces(
            f"The report on {topic} is ready. It answers {len(researched)} questions "
            f"from {sources} sources; the evidence is canned demo data."
        ),
    )


# -- the researcher ---------------------------------------------------------------------

_QUESTION = re.compile(r"^Research question: (.+)$", re.MULTILINE)
_SOURCE = re.compile(r"^\d+\. (?P<title>.+)\n {3}(?P<url>\S+)(?:\n {3}(?P<snippet>.+))?$", re.M)


def _researcher(request: ModelRequest) -> ModelResponse:
    messages = request.messages
    last = messages[-1]
    task = next(m.text for m in messages if m.role == "user")
    found = _QUESTION.search(task)
    question = found.group(1).strip() if found else task.strip()
    if last.role == "user":
        search = tool_call("call_search_1", "web_search", query=question, max_results=3)
        return _turn(request, tool_calls(search, text="Searching the web. "))
    (result,) = _results(last)
    if result.is_error:
        return _turn(
            request, _pieces(f"- No sources could be found: {result.text}\n- Evidence is thin.")
        )
    bullets = [
        f"- {m.group('snippet') or m.group('title')} ({m.group('url')})"
        for m in _SOURCE.finditer(result.text)
    ]
    if not bullets:
        bullets = ["- The search found nothing relevant; the evidence is thin."]
    return _turn(request, _pieces("\n".join(bullets)))


# -- the writer -------------------------------------------------------------------------

_TITLE = re.compile(r"^Write a report titled: (.+)$", re.MULTILINE)
_SECTION = re.compile(r"^## (?P<question>[^\n]+)\n\n(?P<notes>.*?)(?=\n\n## |\Z)", re.M | re.S)
_URL = re.compile(r"\((https?://[^\s)]+)\)")


def _writer(request: ModelRequest) -> ModelResponse:
    task = next(m.text for m in request.messages if m.role == "user")
    found = _TITLE.search(task)
    title = found.group(1).strip() if found else "Research report"
    sections = list(_SECTION.finditer(task))
    urls: list[str] = []
    body: list[str] = []
    for section in sections:
        notes = section.group("notes").strip()
        for url in _URL.findall(notes):
            if url not in urls:
                urls.append(url)
        linked = _URL.sub(lambda m: f"([source {urls.index(m.group(1)) + 1}]({m.group(1)}))", notes)
        body.append(f"## {section.group('question')}\n\n{linked}\n")
    summary = (
        f"This report answers {len(sections)} questions from {len(urls)} sources. "
        "Each section below keeps the researchers' findings with their citations.\n"
    )
    sources = "\n".join(f"{n}. <{url}>" for n, url in enumerate(urls, start=1))
    report = f"# {title}\n\n{summary}\n" + "\n".join(body) + f"\n## Sources\n\n{sources}\n"
    return _turn(request, _pieces(report))


def demo_providers(pace: float = 0.0) -> TeamProviders:
    """Scripted models for the three roles; `pace` seconds pass before each reply."""
    return TeamProviders(
        orchestrator=FunctionProvider(_paced(_orchestrator, pace)),
        researcher=FunctionProvider(_paced(_researcher, pace)),
        writer=FunctionProvider(_paced(_writer, pace)),
    )
