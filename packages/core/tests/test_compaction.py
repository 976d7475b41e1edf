"""Context compaction: a pre-send hook that summarizes older messages past a budget."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Sequence

import pytest

from automata.core import (
    Agent,
    AutomataError,
    CompactionError,
    Compactor,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    RunError,
    Session,
    StopReason,
    TextBlock,
    TextEvent,
    ThinkingBlock,
    ToolResultBlock,
    Usage,
)
from automata.core._compaction import SUMMARY_OPENING
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls

# -- helpers ---------------------------------------------------------------------


def summarize(request: ModelRequest) -> Message:
    """A summarizer whose summary lists every user line it covers, in order, so a test
    can tell exactly what a summary covers: "covers: u0, u1"."""
    text = request.messages[-1].text
    items: list[str] = []
    if text.startswith("Previous summary:\n"):
        previous = text.split("\n")[1]
        items.extend(previous.removeprefix("covers: ").split(", "))
    items.extend(line.removeprefix("user: ") for line in text.split("\n") if line[:6] == "user: ")
    return Message.assistant("covers: " + ", ".join(items))


def echo(request: ModelRequest) -> Message:
    """An agent model that answers the last block of the last message (the summary is
    merged in front of it when the kept tail is just that message)."""
    last = request.messages[-1].content[-1]
    assert isinstance(last, TextBlock)
    return Message.assistant(f"re {last.text}")


def summary_in(request: ModelRequest) -> str | None:
    """The summary a request carries, or None when it was sent uncompacted."""
    for message in request.messages[:2]:
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.startswith(SUMMARY_OPENING):
                return block.text.removeprefix(SUMMARY_OPENING).strip()
    return None


def covers(*items: str) -> str:
    return "covers: " + ", ".join(items)


async def chat(session: Session, tasks: Sequence[str]) -> None:
    for task in tasks:
        await session.run(task)


def compacting_agent(
    compactor: Compactor, provider: FunctionProvider | ScriptedProvider | None = None
) -> tuple[Agent, FunctionProvider | ScriptedProvider]:
    model = provider if provider is not None else FunctionProvider(echo)
    return Agent(model, system_prompt="sys", hooks=[compactor]), model


def assert_valid_roles(messages: Sequence[Message]) -> None:
    """System first and only first, then a user message; never two user or two
    assistant messages in a row; every tool message right after the assistant message
    whose calls it answers, and every call answered."""
    roles = [m.role for m in messages]
    assert roles[0] == "system"
    assert "system" not in roles[1:]
    assert roles[1] == "user"
    for index, (before, after) in enumerate(itertools.pairwise(roles)):
        assert before != after, f"two {after} messages in a row at {index + 1}"
    for index, message in enumerate(messages):
        if message.role == "tool":
            caller = messages[index - 1]
            assert caller.role == "assistant"
            answered = {b.tool_use_id for b in message.content if isinstance(b, ToolResultBlock)}
            assert answered == {call.id for call in caller.tool_calls}
        elif message.role == "assistant" and message.tool_calls:
            assert roles[index + 1] == "tool"


def kept_verbatim(request: ModelRequest) -> int:
    """How many transcript messages a compacted request carries unchanged."""
    merged = len(request.messages[1].content) > 1
    return len(request.messages) - 2 + int(merged)


# -- the trigger ------------------------------------------------------------------


async def test_below_the_trigger_requests_are_sent_unchanged_and_nothing_is_summarized() -> None:
    summarizer = FunctionProvider(summarize)
    agent, model = compacting_agent(Compactor(summarizer, max_tokens=100_000, keep_recent=1))
    session = agent.session()
    await chat(session, [f"u{i}" for i in range(5)])
    assert summarizer.requests == []
    transcript = session.messages
    for request in model.requests:
        assert request.messages == tuple(transcript[: len(request.messages)])


async def test_above_the_trigger_the_request_is_system_summary_then_the_kept_tail() -> None:
    compactor = Compactor(
        FunctionProvider(summarize), max_tokens=1, keep_recent=2, recompute_every=1
    )
    agent, model = compacting_agent(compactor)
    await chat(agent.session(), ["u0", "u1", "u2", "u3"])
    last = model.requests[-1].messages
    assert [m.role for m in last] == ["system", "user", "assistant", "user"]
    assert last[0] == Message.system("sys")
    assert summary_in(model.requests[-1]) == covers("u0", "u1", "u2")
    assert last[2:] == (Message.assistant("re u2"), Message.user("u3"))


async def test_a_kept_tail_that_starts_with_a_user_message_gets_the_summary_merged_in() -> None:
    compactor = Compactor(
        FunctionProvider(summarize), max_tokens=1, keep_recent=3, recompute_every=1
    )
    agent, model = compacting_agent(compactor)
    await chat(agent.session(), ["u0", "u1", "u2", "u3"])
    last = model.requests[-1].messages
    assert [m.role for m in last] == ["system", "user", "assistant", "user"]
    opening = last[1].content
    assert isinstance(opening[0], TextBlock)
    assert opening[0].text.startswith(SUMMARY_OPENING)
    assert opening[1:] == (TextBlock(text="u2"),)
    assert summary_in(model.requests[-1]) == covers("u0", "u1")


@pytest.mark.parametrize("keep_recent", range(1, 8))
async def test_roles_stay_valid_for_every_cut(keep_recent: int) -> None:
    compactor = Compactor(
        FunctionProvider(summarize), max_tokens=1, keep_recent=keep_recent, recompute_every=1
    )
    agent, model = compacting_agent(compactor)
    await chat(agent.session(), [f"u{i}" for i in range(6)])
    assert summary_in(model.requests[-1]) is not None
    for request in model.requests:
        assert_valid_roles(request.messages)
    assert model.requests[-1].messages[-1].content[-1] == TextBlock(text="u5")


def tool_script() -> list[Message]:
    """Three tasks answered through tool loops, one turn calling two tools at once."""
    return [
        tool_calls(tool_call("c1", "lookup", key="a")),
        tool_calls(tool_call("c2", "lookup", key="b"), tool_call("c3", "lookup", key="c")),
        Message.assistant("done q0"),
        tool_calls(tool_call("c4", "lookup", key="d")),
        Message.assistant("done q1"),
        tool_calls(tool_call("c5", "lookup", key="e"), text="checking"),
        tool_calls(tool_call("c6", "lookup", key="f")),
        Message.assistant("done q2"),
    ]


@pytest.mark.parametrize("keep_recent", range(1, 10))
async def test_a_tool_call_is_never_separated_from_its_result(keep_recent: int) -> None:
    compactor = Compactor(
        FunctionProvider(summarize), max_tokens=1, keep_recent=keep_recent, recompute_every=1
    )
    agent, model = compacting_agent(compactor, ScriptedProvider(tool_script()))

    @agent.tool
    def lookup(key: str) -> str:
        return f"value of {key}"

    session = agent.session()
    await chat(session, ["q0", "q1", "q2"])
    compacted = [r for r in model.requests if summary_in(r) is not None]
    assert compacted, "the conversation was never compacted"
    for request in compacted:
        assert_valid_roles(request.messages)
        # when the cut would fall between a call and its result, more is kept, never less
        assert kept_verbatim(request) >= keep_recent


# -- memoization ------------------------------------------------------------------


async def test_the_summary_is_reused_until_recompute_every_messages_pass_the_cut() -> None:
    summarizer = FunctionProvider(summarize)
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=2, recompute_every=4)
    agent, model = compacting_agent(compactor)
    session = agent.session()
    calls_after_each_turn = []
    for turn in range(6):
        await session.run(f"u{turn}")
        calls_after_each_turn.append(len(summarizer.requests))
    # each turn adds two messages; the cut advances by two and recomputes every 4
    assert calls_after_each_turn == [0, 1, 1, 2, 2, 3]
    summaries = [summary_in(r) for r in model.requests]
    assert summaries == [
        None,
        covers("u0"),
        covers("u0"),
        covers("u0", "u1", "u2"),
        covers("u0", "u1", "u2"),
        covers("u0", "u1", "u2", "u3", "u4"),
    ]
    # while a summary is reused the request only grows at its end
    second, third = model.requests[1].messages, model.requests[2].messages
    assert third[: len(second)] == second


async def test_a_summary_is_memoized_by_the_content_it_covers() -> None:
    summarizer = FunctionProvider(summarize)
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=2, recompute_every=2)
    agent, _ = compacting_agent(compactor)
    await chat(agent.session(), ["u0", "u1", "u2", "u3"])
    first = len(summarizer.requests)
    await chat(agent.session(), ["u0", "u1", "u2", "u3"])
    assert len(summarizer.requests) == first
    await chat(agent.session(), ["other", "u1", "u2", "u3"])
    assert len(summarizer.requests) == 2 * first


async def test_a_sharing_compactor_asks_its_own_summarizer_and_shares_the_memory() -> None:
    """`Compactor.sharing`: the twin keeps the settings, writes its summaries with the
    summarizer it was given, and both compactors reuse what either one wrote."""
    original = FunctionProvider(summarize)
    other = FunctionProvider(summarize)
    compactor = Compactor(original, max_tokens=1, keep_recent=2, recompute_every=2)
    twin = compactor.sharing(other)
    assert (twin.max_tokens, twin.keep_recent, twin.recompute_every) == (1, 2, 2)
    assert twin.summarizer is other
    assert compactor.summarizer is original
    agent, _ = compacting_agent(twin)
    await chat(agent.session(), ["u0", "u1", "u2", "u3"])
    assert original.requests == []
    written = len(other.requests)
    assert written > 0
    agent, _ = compacting_agent(compactor)
    await chat(agent.session(), ["u0", "u1", "u2", "u3"])
    assert original.requests == []  # the twin's summaries served the original
    assert len(other.requests) == written


async def test_the_summarizer_reads_the_covered_messages_as_text_after_its_prompt() -> None:
    summarizer = FunctionProvider(summarize)
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=1, prompt="Condense.")
    thinking = Message.assistant([ThinkingBlock(thinking="private"), TextBlock(text="a0")])
    agent, _ = compacting_agent(compactor, ScriptedProvider([thinking, Message.assistant("a1")]))
    await chat(agent.session(), ["u0", "u1"])
    (request,) = summarizer.requests
    assert request.messages[0] == Message.system("Condense.")
    assert request.messages[1].text == "Messages to summarize:\nuser: u0\nassistant: a0"


# -- concurrency ------------------------------------------------------------------


async def test_twenty_concurrent_sessions_each_get_their_own_summary() -> None:
    async def slow_summarize(request: ModelRequest) -> Message:
        await asyncio.sleep(0.001 * (len(request.messages[-1].text) % 5))
        return summarize(request)

    summarizer = FunctionProvider(slow_summarize)
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=2, recompute_every=2)
    agent, model = compacting_agent(compactor)
    sessions = [agent.session() for _ in range(20)]
    await asyncio.gather(
        *(chat(s, [f"s{i}-t{j}" for j in range(5)]) for i, s in enumerate(sessions))
    )
    assert len(summarizer.requests) == 20 * 4
    for i in range(20):
        mine = [r for r in model.requests if r.messages[-1].text.startswith(f"s{i}-")]
        assert len(mine) == 5
        for request in mine:
            seen = {tag for m in request.messages for tag in re.findall(r"s(\d+)-", m.text)}
            assert seen == {str(i)}
        assert summary_in(mine[-1]) == covers(*(f"s{i}-t{j}" for j in range(4)))


async def test_concurrent_sessions_with_the_same_history_share_one_summarizer_call() -> None:
    async def slow_summarize(request: ModelRequest) -> Message:
        await asyncio.sleep(0.01)
        return summarize(request)

    summarizer = FunctionProvider(slow_summarize)
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=2, recompute_every=2)
    agent, model = compacting_agent(compactor)
    await asyncio.gather(*(chat(agent.session(), ["u0", "u1", "u2"]) for _ in range(20)))
    assert len(summarizer.requests) == 2
    assert {summary_in(r) for r in model.requests if r.messages[-1].text == "u2"} == {
        covers("u0", "u1")
    }


# -- failures ---------------------------------------------------------------------


async def test_a_summarizer_failure_fails_the_run_with_compaction_error() -> None:
    def broken(request: ModelRequest) -> Exception:
        return ProviderError("summarizer overloaded", status=529)

    compactor = Compactor(FunctionProvider(broken), max_tokens=1, keep_recent=1)
    agent, model = compacting_agent(compactor)
    session = agent.session()
    await session.run("u0")  # nothing old enough to summarize yet
    before = session.messages
    with pytest.raises(CompactionError) as caught:
        await session.run("u1")
    error = caught.value
    assert isinstance(error, RunError)
    assert isinstance(error, AutomataError)
    assert isinstance(error.__cause__, ProviderError)
    assert "summarizer raised ProviderError: summarizer overloaded" in str(error)
    assert len(model.requests) == 1  # the step was never sent
    assert session.messages == [*before, Message.user("u1")]
    assert error.result is not None
    assert error.result.messages == tuple(session.messages)
    assert error.result.stop_reason is StopReason.ERROR


async def test_a_summarizer_that_returns_no_text_fails_the_run() -> None:
    summarizer = ScriptedProvider([Message.assistant([ThinkingBlock(thinking="hm")])])
    agent, _ = compacting_agent(Compactor(summarizer, max_tokens=1, keep_recent=1))
    session = agent.session()
    await session.run("u0")
    with pytest.raises(CompactionError, match="summarizer returned no text"):
        await session.run("u1")


async def test_a_failed_summary_is_not_memoized_and_is_retried_next_time() -> None:
    summarizer = ScriptedProvider([ProviderError("down"), Message.assistant("covers: u0")])
    compactor = Compactor(summarizer, max_tokens=1, keep_recent=1)
    history = ("sys", "u0", "a0", "u1")
    request = ModelRequest(
        messages=(
            Message.system(history[0]),
            Message.user(history[1]),
            Message.assistant(history[2]),
            Message.user(history[3]),
        )
    )
    with pytest.raises(CompactionError):
        await compactor.before_send(request)
    compacted = await compactor.before_send(request)
    assert summary_in(compacted) == covers("u0")
    assert len(summarizer.requests) == 2


# -- the stored transcript --------------------------------------------------------


async def test_the_stored_transcript_is_never_changed() -> None:
    compactor = Compactor(
        FunctionProvider(summarize), max_tokens=1, keep_recent=2, recompute_every=1
    )
    agent, model = compacting_agent(compactor)
    session = agent.session()
    results = [await session.run(f"u{i}") for i in range(5)]
    expected = [Message.system("sys")]
    for i in range(5):
        expected += [Message.user(f"u{i}"), Message.assistant(f"re u{i}")]
    assert session.messages == expected
    assert results[-1].messages == tuple(expected)
    assert summary_in(model.requests[-1]) is not None
    assert all(SUMMARY_OPENING not in m.text for m in session.messages)


# -- sizing -----------------------------------------------------------------------


def with_usage(tokens: int) -> FunctionProvider:
    def reply(request: ModelRequest) -> ModelResponse:
        return ModelResponse(
            message=echo(request),
            stop_reason=StopReason.END_TURN,
            usage=Usage(input_tokens=tokens - 100, output_tokens=100),
        )

    return FunctionProvider(reply)


async def test_without_reported_usage_the_size_is_the_serialized_size() -> None:
    compactor = Compactor(FunctionProvider(summarize), max_tokens=1000, chars_per_token=4)
    short = ModelRequest(messages=(Message.user("x" * 400),))
    long = ModelRequest(messages=(Message.user("x" * 4000),))
    assert 100 <= compactor.estimate_tokens(short) < 110
    assert 1000 <= compactor.estimate_tokens(long) < 1010


async def test_usage_reported_through_a_metered_provider_drives_the_trigger() -> None:
    summarizer = FunctionProvider(summarize)
    compactor = Compactor(summarizer, max_tokens=500, keep_recent=1)
    provider = with_usage(1000)
    agent = Agent(compactor.metered(provider), system_prompt="sys", hooks=[compactor])
    await chat(agent.session(), ["u0", "u1"])
    assert len(summarizer.requests) == 1
    assert summary_in(provider.requests[1]) == covers("u0")

    unmetered = Compactor(FunctionProvider(summarize), max_tokens=500, keep_recent=1)
    plain = with_usage(1000)
    await chat(Agent(plain, hooks=[unmetered]).session(), ["u0", "u1"])
    assert all(summary_in(r) is None for r in plain.requests)


async def test_a_metered_streaming_provider_still_streams() -> None:
    compactor = Compactor(FunctionProvider(summarize), max_tokens=500, keep_recent=1)
    provider = with_usage(1000)
    session = Agent(compactor.metered(provider), hooks=[compactor]).session()
    await session.run("u0")
    stream = session.stream("u1")
    texts = [event.text async for event in stream if isinstance(event, TextEvent)]
    assert texts == ["re u1"]
    assert summary_in(provider.requests[1]) == covers("u0")


def test_settings_are_validated() -> None:
    summarizer = FunctionProvider(summarize)
    with pytest.raises(ValueError, match="keep_recent"):
        Compactor(summarizer, max_tokens=10, keep_recent=0)
    with pytest.raises(ValueError, match="max_tokens"):
        Compactor(summarizer, max_tokens=0)


async def test_a_compacted_conversation_stays_compacted_when_its_usage_is_forgotten() -> None:
    summarizer = FunctionProvider(summarize)
    compactor = Compactor(summarizer, max_tokens=500, keep_recent=1, max_cached=1)
    provider = with_usage(1000)
    agent = Agent(compactor.metered(provider), system_prompt="sys", hooks=[compactor])
    session = agent.session()
    await chat(session, ["u0", "u1"])
    assert summary_in(provider.requests[-1]) == covers("u0")
    await agent.session().run("elsewhere")  # its usage record evicts this session's
    await session.run("u2")
    assert summary_in(provider.requests[-1]) == covers("u0")
