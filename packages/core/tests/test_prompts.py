"""Dynamic system prompts and instructions (docs/loop.md, L65-L68)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from automata.core import (
    Agent,
    ArgumentTypeError,
    Message,
    RunContext,
    dump_messages,
    load_messages,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


@dataclass(frozen=True)
class User:
    name: str


def two_turns() -> list[Message]:
    return [tool_calls(tool_call("c1", "t")), Message.assistant("done")]


def system_texts(provider: ScriptedProvider) -> list[str]:
    """The system prompt each request carried."""
    return [
        request.messages[0].text if request.messages[0].role == "system" else ""
        for request in provider.requests
    ]


async def test_a_dynamic_system_prompt_sees_the_runs_deps() -> None:
    """L65."""
    provider = ScriptedProvider([Message.assistant("hi")])

    def greet(ctx: RunContext[User]) -> str:
        return f"You are talking to {ctx.deps.name}."

    agent = Agent(provider, system_prompt=greet, deps_type=User)
    result = await agent.run("hello", deps=User("Ada"))
    assert system_texts(provider) == ["You are talking to Ada."]
    assert result.messages[0] == Message.system("You are talking to Ada.")


async def test_a_dynamic_system_prompt_is_evaluated_once_per_run() -> None:
    """L65: a run of two turns evaluates it once; the next run again."""
    calls: list[str] = []

    async def prompt(ctx: RunContext[None]) -> str:
        calls.append(ctx.invocation_id)
        return "Be brief."

    provider = ScriptedProvider([*two_turns(), Message.assistant("again")])
    agent = Agent(provider, system_prompt=prompt)
    agent.tool(lambda: "ok", name="t")
    first = await agent.run("one")
    second = await agent.run("two")
    assert calls == [first.invocation_id, second.invocation_id]
    assert system_texts(provider) == ["Be brief.", "Be brief.", "Be brief."]


async def test_instructions_are_evaluated_before_every_request() -> None:
    """L66: sent after the system prompt, separated by a blank line."""
    provider = ScriptedProvider(two_turns())
    agent = Agent(provider, system_prompt="You are terse.")
    agent.tool(lambda: "ok", name="t")
    turns: list[int] = []

    @agent.instructions
    def turn_number(ctx: RunContext[None]) -> str:
        turns.append(len(turns) + 1)
        return f"This is request {len(turns)}."

    await agent.run("go")
    assert system_texts(provider) == [
        "You are terse.\n\nThis is request 1.",
        "You are terse.\n\nThis is request 2.",
    ]


async def test_instructions_are_never_stored_in_the_transcript() -> None:
    """L66."""
    provider = ScriptedProvider([Message.assistant("ok")])
    agent = Agent(provider, system_prompt="Sys.", instructions="Answer in French.")
    result = await agent.run("go")
    assert result.messages[0] == Message.system("Sys.")
    assert "French" not in dump_messages(result.messages)


async def test_without_a_system_prompt_instructions_are_sent_as_one() -> None:
    """L66: text and functions (sync or async) in order; blank ones are left out."""

    async def later(ctx: RunContext[None]) -> str:
        return "Second."

    provider = ScriptedProvider([Message.assistant("ok")])
    agent = Agent(provider, instructions=["First.", lambda ctx: "  ", later])
    result = await agent.run("go")
    assert system_texts(provider) == ["First.\n\nSecond."]
    assert [m.role for m in result.messages] == ["user", "assistant"]


async def test_instructions_see_the_runs_deps() -> None:
    """L66."""
    provider = ScriptedProvider([Message.assistant("ok")])
    agent = Agent(provider, deps_type=User)

    @agent.instructions
    def address(ctx: RunContext[User]) -> str:
        return f"Call the user {ctx.deps.name}."

    await agent.run("go", deps=User("Grace"))
    assert system_texts(provider) == ["Call the user Grace."]


async def test_a_resumed_session_keeps_its_system_prompt_and_never_duplicates_either() -> None:
    """L67: the stored prompt is kept (not evaluated again); instructions are sent
    once per request, however often the conversation was resumed."""
    evaluated: list[str] = []

    def prompt(ctx: RunContext[User]) -> str:
        evaluated.append(ctx.deps.name)
        return f"User: {ctx.deps.name}."

    provider = ScriptedProvider([Message.assistant("one"), Message.assistant("two")])
    agent = Agent(provider, system_prompt=prompt, instructions="Be kind.", deps_type=User)
    session = agent.session()
    assert session.messages == []  # evaluated when the first run starts
    await session.run("first", deps=User("Ada"))
    resumed = agent.session(messages=load_messages(dump_messages(session.messages)))
    await resumed.run("second", deps=User("Grace"))
    assert evaluated == ["Ada"]
    assert system_texts(provider) == ["User: Ada.\n\nBe kind.", "User: Ada.\n\nBe kind."]
    assert [m.role for m in resumed.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


async def test_a_resumed_transcript_without_a_system_message_gets_the_dynamic_one() -> None:
    """L67."""
    provider = ScriptedProvider([Message.assistant("ok")])
    agent = Agent(provider, system_prompt=lambda ctx: "Fresh.")
    session = agent.session(messages=[Message.user("hi"), Message.assistant("hello")])
    await session.run("again")
    assert session.messages[0] == Message.system("Fresh.")
    assert [m.role for m in session.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_a_prompt_that_is_neither_text_nor_a_function_is_refused() -> None:
    """L68."""
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([]), system_prompt=3)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "system_prompt must be a string or a function of the run context, got int"
    )
    with pytest.raises(ArgumentTypeError) as listed:
        Agent(ScriptedProvider([]), instructions=[b"raw"])  # type: ignore[list-item]
    assert str(listed.value) == (
        "instructions must be a string or a function of the run context, got bytes"
    )


async def test_a_prompt_function_that_returns_no_string_fails_the_run() -> None:
    """L68."""
    agent = Agent(ScriptedProvider([Message.assistant("ok")]), instructions=lambda ctx: 42)  # type: ignore[arg-type,return-value]
    with pytest.raises(ArgumentTypeError) as caught:
        await agent.run("go")
    assert str(caught.value) == "prompt function <lambda> returned int, not a string"
