"""Compaction in a stream and across compactors: a `CompactionEvent` reports each new
summary (docs/streaming.md, O10 and M11), and `Compactor.remember` hands summaries
written before to a new compactor, which then sends the same requests without asking
its summarizer."""

from __future__ import annotations

import hashlib

import pytest

from automata.core import (
    Agent,
    CompactionEvent,
    CompactionSummary,
    Compactor,
    Hook,
    Message,
    ModelRequest,
    RunContext,
    StreamAccumulator,
    StreamEvent,
    TextEvent,
    UsageEvent,
)
from automata.core.testing import FunctionProvider, ScriptedProvider


def summarize(request: ModelRequest) -> Message:
    """A summary naming the user lines it covers: "covers: u0, u1"."""
    text = request.messages[-1].text
    lines = [line.removeprefix("user: ") for line in text.split("\n") if line[:6] == "user: "]
    return Message.assistant("covers: " + ", ".join(lines))


def echo(request: ModelRequest) -> Message:
    return Message.assistant(f"re {request.messages[-1].text}")


def compactor(
    summarizer: FunctionProvider | ScriptedProvider, recompute_every: int = 8
) -> Compactor:
    return Compactor(summarizer, max_tokens=1, keep_recent=2, recompute_every=recompute_every)


async def stream_turns(agent: Agent, tasks: list[str]) -> list[list[StreamEvent]]:
    """Each task as one streamed run of one session; the events of each run."""
    session = agent.session()
    runs: list[list[StreamEvent]] = []
    for task in tasks:
        events: list[StreamEvent] = []
        async with session.stream(task) as stream:
            async for event in stream:
                events.append(event)
        runs.append(events)
    return runs


async def test_a_new_summary_is_reported_before_the_turn_it_compacts() -> None:
    """O10: the event comes before any event of the model turn whose request the summary
    compacts, tagged like the run's other events, with the summary's key, coverage and
    text; a run whose request needed no new summary has none."""
    agent = Agent(
        FunctionProvider(echo),
        system_prompt="sys",
        name="writer",
        hooks=[compactor(FunctionProvider(summarize), recompute_every=4)],
    )
    runs = await stream_turns(agent, ["u0", "u1", "u2"])
    assert [type(e) for e in runs[0] if not isinstance(e, UsageEvent)] == [TextEvent]
    second = [e for e in runs[1] if not isinstance(e, UsageEvent)]
    assert [type(e) for e in second] == [CompactionEvent, TextEvent]
    event = second[0]
    assert isinstance(event, CompactionEvent)
    assert (event.agent, event.depth) == ("writer", 0)
    assert event.invocation_id == second[1].invocation_id
    # the request was system, u0, "re u0", u1: system and u0 are covered, two are kept
    assert event.summary.covered == 2
    assert event.summary.summary == "covers: u0"
    assert len(bytes.fromhex(event.summary.key)) == hashlib.sha256().digest_size
    # the third run reuses the summary (recompute_every=4): no event
    assert not any(isinstance(e, CompactionEvent) for e in runs[2])


async def test_iter_on_event_gets_the_compaction_event_too() -> None:
    """O10: `iter(on_event=...)` carries every stream event, the compaction one too."""
    agent = Agent(
        FunctionProvider(echo),
        system_prompt="sys",
        hooks=[compactor(FunctionProvider(summarize))],
    )
    session = agent.session()
    await session.run("u0")
    seen: list[StreamEvent] = []
    async with session.iter("u1", on_event=seen.append) as steps:
        async for _ in steps:
            pass
    found = [e for e in seen if isinstance(e, CompactionEvent)]
    assert [e.summary.summary for e in found] == ["covers: u0"]


async def test_a_pre_send_hook_reports_events_through_its_context() -> None:
    """O10: any pre-send hook declaring `context` reports through `context.emit`; with
    no listener the call does nothing and the run goes on."""

    class Announcer(Hook):
        async def before_send(
            self, request: ModelRequest, *, context: RunContext[object] | None = None
        ) -> ModelRequest:
            assert context is not None
            note = CompactionSummary(key="00", covered=0, summary="hello")
            context.emit(
                CompactionEvent(
                    agent=context.agent,
                    invocation_id=context.invocation_id,
                    depth=context.depth,
                    summary=note,
                )
            )
            return request

    agent = Agent(ScriptedProvider(["hi", "again"]), hooks=[Announcer()])
    events: list[StreamEvent] = []
    async with agent.stream("go") as stream:
        async for event in stream:
            events.append(event)
    assert isinstance(events[0], CompactionEvent)
    assert events[0].summary.summary == "hello"
    assert (await agent.run("go")).output == "again"


async def test_the_accumulator_counts_compactions_per_lane() -> None:
    """M11: `AgentView.compactions` counts the lane's compaction events."""
    agent = Agent(
        FunctionProvider(echo),
        system_prompt="sys",
        hooks=[compactor(FunctionProvider(summarize), recompute_every=1)],
    )
    runs = await stream_turns(agent, ["u0", "u1", "u2"])
    accumulator = StreamAccumulator()
    for event in runs[2]:
        accumulator.add(event)
    (view,) = accumulator.views()
    assert view.compactions == 1
    assert view.text == "re u2"
    fresh = StreamAccumulator()
    for event in runs[0]:
        fresh.add(event)
    assert fresh.views()[0].compactions == 0


def test_the_run_context_ignores_events_by_default_and_compares_without_emit() -> None:
    """The default `emit` does nothing and takes no part in equality or repr."""
    plain = RunContext(None, "a", "inv")
    plain.emit(CompactionSummary("00", 1, "x"))  # type: ignore[arg-type]
    noted: list[object] = []
    listening = RunContext(None, "a", "inv", 0, noted.append)
    assert plain == listening
    assert "emit" not in repr(listening)
    assert plain.depth == 0


async def test_a_remembered_summary_gives_a_byte_identical_request_without_the_summarizer() -> None:
    """`remember`: a fresh compactor given the summaries another one reported sends
    the very same compacted request, and never calls its own summarizer."""
    first_model = FunctionProvider(echo)
    first = Agent(
        first_model,
        system_prompt="sys",
        hooks=[compactor(FunctionProvider(summarize), recompute_every=4)],
    )
    session = first.session()
    summaries: list[CompactionSummary] = []
    for task in ["u0", "u1", "u2"]:
        async with session.stream(task) as stream:
            async for event in stream:
                if isinstance(event, CompactionEvent):
                    summaries.append(event.summary)
    assert len(summaries) == 1
    history = session.messages[:-2]  # before the last task and its reply

    silent = ScriptedProvider([])  # any call to it fails the run
    fresh = compactor(silent, recompute_every=4)
    fresh.remember(summaries)
    second_model = FunctionProvider(echo)
    second = Agent(second_model, system_prompt="sys", hooks=[fresh])
    replay = second.session(history)
    await replay.run("u2")
    assert silent.requests == []
    sent = second_model.requests[-1]
    before = first_model.requests[-1]
    assert sent == before
    assert [m.model_dump_json() for m in sent.messages] == [
        m.model_dump_json() for m in before.messages
    ]
    assert "covers: u0" in sent.messages[1].text


async def test_without_remember_a_fresh_compactor_asks_its_summarizer_again() -> None:
    """The contrast: the memo is in memory only, so a new compactor starts empty."""
    first = Agent(
        FunctionProvider(echo),
        system_prompt="sys",
        hooks=[compactor(FunctionProvider(summarize), recompute_every=4)],
    )
    session = first.session()
    for task in ["u0", "u1"]:
        await session.run(task)
    summarizer = FunctionProvider(summarize)
    second = Agent(FunctionProvider(echo), system_prompt="sys", hooks=[compactor(summarizer)])
    await second.session(session.messages).run("u2")
    assert len(summarizer.requests) == 1


def test_remember_keeps_at_most_max_cached_and_refuses_a_bad_key() -> None:
    """`remember` is bounded by `max_cached` (the last ones given stay) and checks every
    key before taking any."""
    kept = Compactor(ScriptedProvider([]), max_tokens=1, max_cached=2)
    kept.remember(CompactionSummary(f"{n:064x}", 3, f"s{n}") for n in range(5))
    assert sorted(kept._summaries.values()) == ["s3", "s4"]
    with pytest.raises(ValueError, match="hexadecimal"):
        kept.remember([CompactionSummary("ab", 3, "ok"), CompactionSummary("zz", 3, "no")])
    assert sorted(kept._summaries.values()) == ["s3", "s4"]
