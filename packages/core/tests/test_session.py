"""Sessions: multi-turn transcripts that survive failures and resume from JSON."""

from __future__ import annotations

import asyncio

import pytest

from automata.core import (
    Agent,
    MaxStepsError,
    Message,
    SessionBusyError,
    TranscriptError,
    dump_messages,
    load_messages,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


async def test_each_run_continues_the_same_conversation() -> None:
    provider = ScriptedProvider([Message.assistant("Draft."), Message.assistant("Friendlier.")])
    session = Agent(provider, system_prompt="You write policies.").session()
    await session.run("Draft a refund policy")
    final = await session.run("Make it friendlier")
    assert final.output == "Friendlier."
    assert [m.role for m in session.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert provider.requests[1].messages == tuple(session.messages[:-1])


async def test_the_transcript_is_committed_when_a_run_fails() -> None:
    """L10."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t")), tool_calls(tool_call("2", "t"))]),
        max_steps=2,
    )
    agent.tool(lambda: "ok", name="t")
    session = agent.session()
    with pytest.raises(MaxStepsError):
        await session.run("go")
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant", "tool"]


async def test_messages_is_a_copy() -> None:
    session = Agent(ScriptedProvider([Message.assistant("a")])).session()
    await session.run("q")
    copy = session.messages
    copy.clear()
    assert len(session.messages) == 2


async def test_a_session_resumes_from_json_without_duplicating_the_system_prompt() -> None:
    agent = Agent(
        ScriptedProvider([Message.assistant("first"), Message.assistant("second")]),
        system_prompt="Be brief.",
    )
    first = agent.session()
    await first.run("one")
    blob = dump_messages(first.messages)

    resumed = agent.session(messages=load_messages(blob))
    await resumed.run("two")
    roles = [m.role for m in resumed.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant"]
    assert resumed.messages[:3] == first.messages


async def test_resuming_keeps_the_transcripts_own_system_prompt() -> None:
    transcript = [Message.system("Old prompt."), Message.user("hi"), Message.assistant("hello")]
    agent = Agent(ScriptedProvider([Message.assistant("ok")]), system_prompt="New prompt.")
    session = agent.session(messages=transcript)
    assert session.messages[0] == Message.system("Old prompt.")


async def test_a_transcript_without_a_system_prompt_gets_the_agents() -> None:
    agent = Agent(ScriptedProvider([]), system_prompt="Sys.")
    session = agent.session(messages=[Message.user("hi"), Message.assistant("hello")])
    assert [m.role for m in session.messages] == ["system", "user", "assistant"]


def test_a_transcript_cut_inside_a_tool_batch_is_refused() -> None:
    """L88: calls without results are refused anywhere but in the last message."""
    cut = [Message.user("go"), tool_calls(tool_call("c9", "t")), Message.user("and then")]
    with pytest.raises(TranscriptError, match=r"'c9'.*no result"):
        Agent(ScriptedProvider([])).session(messages=cut)


def test_a_system_message_after_the_start_is_refused() -> None:
    with pytest.raises(TranscriptError, match="system message at position 1"):
        Agent(ScriptedProvider([])).session(messages=[Message.user("a"), Message.system("b")])


def test_a_transcript_of_non_messages_is_refused() -> None:
    with pytest.raises(TranscriptError, match="not a Message"):
        Agent(ScriptedProvider([])).session(messages=[{"role": "user"}])  # type: ignore[list-item]


async def test_a_malformed_persisted_transcript_loses_nothing_already_committed() -> None:
    session = Agent(ScriptedProvider([Message.assistant("kept")])).session()
    await session.run("q")
    before = session.messages
    with pytest.raises(TranscriptError):
        Agent(ScriptedProvider([])).session(messages=load_messages('[{"role": "x"}]'))
    assert session.messages == before


async def test_a_session_runs_one_task_at_a_time() -> None:
    gate = asyncio.Event()
    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "wait")), Message.assistant("ok")]))

    @agent.tool
    async def wait() -> str:
        await gate.wait()
        return "done"

    session = agent.session()
    first = asyncio.create_task(session.run("one"))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    with pytest.raises(SessionBusyError):
        await session.run("two")
    gate.set()
    assert (await first).output == "ok"
    assert tool_results(session.messages) == [("1", "done", False)]


def test_session_run_sync() -> None:
    """L3."""
    session = Agent(ScriptedProvider([Message.assistant("yes")])).session()
    assert session.run_sync("sync?").output == "yes"
