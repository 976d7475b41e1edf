"""Tool batches that fail in unusual ways: every call still gets one result, in the
model's order, the batch's other calls are cancelled and awaited before the run ends,
and the session can be continued. Each test cites its rule in docs/loop.md."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from automata.core import (
    Agent,
    Approval,
    Message,
    ModelRequest,
    RunResult,
    ToolBatchAbortedError,
    ToolContext,
    ToolPolicy,
    ToolResult,
    ToolResultBlock,
    ToolUseBlock,
    dump_messages,
    load_messages,
    post_run,
)
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls
from automata.core.testing import tool_results as results_of


class Halt(BaseException):
    """A `BaseException` that is not an `Exception`, as some libraries raise."""


class Unprintable(Exception):
    """An exception whose message cannot be read."""

    def __str__(self) -> str:
        raise RuntimeError("no message for you")


class ScriptedTool:
    """A tool implementing the `Tool` protocol directly, returning whatever it is
    given (a custom tool need not go through `tool`)."""

    input_schema: Mapping[str, Any] = {"type": "object", "properties": {}}
    description = "returns a fixed value"

    def __init__(self, name: str, value: object) -> None:
        self.name = name
        self.value = value

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> Any:
        return self.value


def calls(*names: str) -> Message:
    """One turn calling `names` in order, with ids "1", "2", ..."""
    return tool_calls(*(tool_call(str(n), name) for n, name in enumerate(names, 1)))


def agent_for(turn: Message, **settings: Any) -> Agent:
    return Agent(ScriptedProvider([turn, "continued"]), **settings)


async def continues(agent: Agent, session_messages: list[Message]) -> str:
    """What a new session resumed from the transcript answers next."""
    resumed = agent.session(messages=load_messages(dump_messages(session_messages)))
    return (await resumed.run("and now?")).output


# -- calls failing at the same moment -------------------------------------------------


async def test_calls_whose_approvals_fail_at_the_same_moment_each_get_their_own_result() -> None:
    """L43, L19: three approvals raise in the same tick of the event loop; each call is
    reported aborted, in the model's order, and the conversation goes on."""

    def approver(call: ToolUseBlock, context: ToolContext) -> Approval:
        raise PermissionError(f"no to {call.id}")

    agent = agent_for(calls("t", "t", "t"), approver=approver)
    agent.tool(lambda: "ran", name="t")
    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == "tool batch aborted: no to 1"
    assert results_of(session.messages) == [
        ("1", "aborted: no to 1", True),
        ("2", "aborted: no to 2", True),
        ("3", "aborted: no to 3", True),
    ]
    assert (await session.run("and now?")).output == "continued"


async def test_an_approver_returning_none_aborts_with_a_result_for_every_call() -> None:
    """L47: an approver that forgets to return a decision aborts the batch, every call
    getting a result."""

    def approver(call: ToolUseBlock, context: ToolContext) -> Approval:
        return None  # type: ignore[return-value]

    agent = agent_for(calls("t", "t"), approver=approver)
    agent.tool(lambda: "ran", name="t")
    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == ("tool batch aborted: the approver returned None, not an Approval")
    assert results_of(session.messages) == [
        ("1", "aborted: the approver returned None, not an Approval", True),
        ("2", "aborted: the approver returned None, not an Approval", True),
    ]
    assert (await session.run("and now?")).output == "continued"


async def test_an_approver_returning_true_aborts_with_a_result_for_every_call() -> None:
    """L47."""

    async def approver(call: ToolUseBlock, context: ToolContext) -> Approval:
        return True  # type: ignore[return-value]

    agent = agent_for(calls("t", "t"), approver=approver)
    agent.tool(lambda: "ran", name="t")
    session = agent.session()
    with pytest.raises(ToolBatchAbortedError):
        await session.run("go")
    assert results_of(session.messages) == [
        ("1", "aborted: the approver returned bool, not an Approval", True),
        ("2", "aborted: the approver returned bool, not an Approval", True),
    ]


async def test_tools_cancelling_themselves_at_the_same_moment_each_get_their_own_result() -> None:
    """L43, L20."""
    agent = agent_for(calls("quit", "quit"))

    @agent.tool
    async def quit() -> str:
        raise asyncio.CancelledError

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError):
        await session.run("go")
    assert results_of(session.messages) == [
        ("1", "aborted: CancelledError", True),
        ("2", "aborted: CancelledError", True),
    ]
    assert (await session.run("and now?")).output == "continued"


async def test_a_tool_cancelling_its_own_task_aborts_the_batch_not_the_run() -> None:
    """L20: a tool that cancels the task it runs in is a tool cancelling itself; the
    run is not cancelled."""
    agent = agent_for(calls("quit", "slow"))

    @agent.tool
    async def quit() -> str:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(10)
        return "never"

    @agent.tool
    async def slow() -> str:
        await asyncio.sleep(10)
        return "never"

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == "tool batch aborted: CancelledError"
    assert results_of(session.messages) == [
        ("1", "aborted: CancelledError", True),
        ("2", "canceled: tool batch aborted: CancelledError", True),
    ]
    assert (await session.run("and now?")).output == "continued"


# -- BaseException ------------------------------------------------------------------


async def test_a_tool_raising_a_base_exception_aborts_the_batch() -> None:
    """L44: the call gets `aborted: <error>`, the other calls are cancelled, and the
    run raises `ToolBatchAbortedError` caused by the tool's exception."""
    agent = agent_for(calls("halt", "slow"))

    @agent.tool
    async def halt() -> str:
        raise Halt("tool halted")

    @agent.tool
    async def slow() -> str:
        await asyncio.sleep(10)
        return "never"

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == "tool batch aborted: tool halted"
    assert isinstance(caught.value.__cause__, Halt)
    assert results_of(session.messages) == [
        ("1", "aborted: tool halted", True),
        ("2", "canceled: tool batch aborted: tool halted", True),
    ]
    assert (await continues(agent, session.messages)) == "continued"


async def test_a_tool_raising_generator_exit_aborts_the_batch() -> None:
    """L44."""
    agent = agent_for(calls("close", "t"))
    agent.tool(lambda: "ran", name="t")

    @agent.tool
    async def close() -> str:
        raise GeneratorExit

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == "tool batch aborted: GeneratorExit"
    assert results_of(session.messages)[0] == ("1", "aborted: GeneratorExit", True)
    assert [call_id for call_id, _, _ in results_of(session.messages)] == ["1", "2"]
    assert (await session.run("and now?")).output == "continued"


async def test_a_sync_tool_raising_a_base_exception_in_its_thread_aborts_the_batch() -> None:
    """L44."""
    agent = agent_for(calls("halt"))

    @agent.tool
    def halt() -> str:
        raise Halt("thread halted")

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError):
        await session.run("go")
    assert results_of(session.messages) == [("1", "aborted: thread halted", True)]


async def test_an_approver_raising_a_base_exception_aborts_the_batch() -> None:
    """L44."""

    async def approver(call: ToolUseBlock, context: ToolContext) -> Approval:
        raise Halt("approver halted")

    agent = agent_for(calls("t"), approver=approver)
    agent.tool(lambda: "ran", name="t")
    session = agent.session()
    with pytest.raises(ToolBatchAbortedError):
        await session.run("go")
    assert results_of(session.messages) == [("1", "aborted: approver halted", True)]


async def test_a_rate_limiter_raising_a_base_exception_aborts_the_batch() -> None:
    """L44: unlike an ordinary error of the limiter (L29), which the model sees."""

    class Limiter:
        async def acquire(self, tool_name: str) -> None:
            raise Halt("limiter halted")

    agent = agent_for(calls("t", "t"), tool_policy=ToolPolicy(rate_limiter=Limiter()))
    agent.tool(lambda: "ran", name="t")
    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == "tool batch aborted: limiter halted"
    assert results_of(session.messages) == [
        ("1", "aborted: limiter halted", True),
        ("2", "aborted: limiter halted", True),
    ]
    assert (await session.run("and now?")).output == "continued"


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_from_a_tool_stop_the_run_as_themselves(
    stop: type[BaseException],
) -> None:
    """L44: they are requests to stop the program, re-raised as they are once every
    call has its result."""
    agent = agent_for(calls("stop", "t"))
    agent.tool(lambda: "ran", name="t")

    @agent.tool(name="stop")
    async def stop_now() -> str:
        raise stop()

    session = agent.session()
    with pytest.raises(stop):
        session.run_sync("go")
    assert [call_id for call_id, _, _ in results_of(session.messages)] == ["1", "2"]
    assert results_of(session.messages)[0] == ("1", f"aborted: {stop.__name__}", True)
    assert session.run_sync("and now?").output == "continued"


# -- unreadable errors and malformed results ---------------------------------------


async def test_a_tool_error_whose_message_cannot_be_read_is_named_by_its_type() -> None:
    """L45: the run goes on."""
    agent = agent_for(calls("t"))

    @agent.tool
    def t() -> str:
        raise Unprintable

    session = agent.session()
    result = await session.run("go")
    assert results_of(result.messages) == [("1", "Unprintable", True)]
    assert result.output == "continued"


async def test_an_approver_error_whose_message_cannot_be_read_is_named_by_its_type() -> None:
    """L45, L19."""

    def approver(call: ToolUseBlock, context: ToolContext) -> Approval:
        raise Unprintable

    agent = agent_for(calls("t"), approver=approver)
    agent.tool(lambda: "ran", name="t")
    session = agent.session()
    with pytest.raises(ToolBatchAbortedError) as caught:
        await session.run("go")
    assert str(caught.value) == "tool batch aborted: Unprintable"
    assert results_of(session.messages) == [("1", "aborted: Unprintable", True)]


async def test_a_custom_tool_returning_a_result_whose_content_is_not_blocks_gets_an_error() -> None:
    """L17: the value cannot be shown to the model; the run goes on."""
    agent = agent_for(calls("custom"))
    agent.add_tool(ScriptedTool("custom", ToolResult(content=("oops",))))  # type: ignore[arg-type]
    result = await agent.run("go")
    assert results_of(result.messages) == [
        (
            "1",
            "tool returned a ToolResult whose content holds a str, which cannot be shown "
            "to the model; its content must be blocks (TextBlock, ImageBlock, ...)",
            True,
        )
    ]
    assert result.output == "continued"


async def test_a_custom_tool_returning_a_result_whose_content_is_a_string_gets_an_error() -> None:
    """L17."""
    agent = agent_for(calls("custom"))
    agent.add_tool(ScriptedTool("custom", ToolResult(content="oops")))  # type: ignore[arg-type]
    result = await agent.run("go")
    assert results_of(result.messages) == [
        (
            "1",
            "tool returned a ToolResult whose content is a str, which cannot be shown "
            "to the model; its content must be blocks (TextBlock, ImageBlock, ...)",
            True,
        )
    ]


async def test_a_custom_tool_returning_a_result_whose_error_flag_is_not_a_bool_gets_an_error() -> (
    None
):
    """L17."""
    agent = agent_for(calls("custom"))
    agent.add_tool(ScriptedTool("custom", ToolResult(is_error="yes")))  # type: ignore[arg-type]
    result = await agent.run("go")
    assert results_of(result.messages) == [
        ("1", "tool returned a ToolResult whose is_error is a str, not a bool", True)
    ]


async def test_a_custom_tool_returning_something_else_entirely_gets_an_error() -> None:
    """L17."""
    agent = agent_for(calls("custom"))
    agent.add_tool(ScriptedTool("custom", {1, 2}))
    result = await agent.run("go")
    assert results_of(result.messages) == [
        (
            "1",
            "tool returned a set, which cannot be shown to the model; return str, "
            "ToolResult, blocks, a pydantic model or JSON-serializable data",
            True,
        )
    ]


# -- siblings of a failed batch -------------------------------------------------------


@pytest.mark.looptime
async def test_a_failed_batch_cancels_its_other_calls_before_the_run_raises() -> None:
    """L46: the sibling would record a side effect once released; it is cancelled
    before the run raises, so releasing it afterwards changes nothing."""
    release = asyncio.Event()
    effects: list[str] = []
    agent = agent_for(calls("halt", "sibling"))

    @agent.tool
    async def halt() -> str:
        await asyncio.sleep(0.01)
        raise Halt("halted")

    @agent.tool
    async def sibling() -> str:
        await release.wait()
        effects.append("sibling finished")
        return "done"

    with pytest.raises(ToolBatchAbortedError):
        await agent.run("go")
    release.set()
    for _ in range(20):
        await asyncio.sleep(0)
    assert effects == []


@pytest.mark.looptime
async def test_a_failed_batch_awaits_its_other_calls_cleanup_before_the_run_raises() -> None:
    """L46: a sibling that cleans up when cancelled has finished doing so when the run
    raises."""
    effects: list[str] = []
    agent = agent_for(calls("halt", "careful"))

    @agent.tool
    async def halt() -> str:
        await asyncio.sleep(0.01)
        raise Halt("halted")

    @agent.tool
    async def careful() -> str:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(0.2)
            effects.append("cleaned up")
            raise
        return "never"

    with pytest.raises(ToolBatchAbortedError):
        await agent.run("go")
    assert effects == ["cleaned up"]


# -- a randomized mix ---------------------------------------------------------------

TOOL_MODES = (
    "ok",
    "error",
    "unprintable",
    "cancel",
    "self_cancel",
    "halt",
    "generator_exit",
    "malformed",
    "unshowable",
    "hang",
)
APPROVALS = ("allow", "deny", "raise", "halt", "none", "true")
LIMITERS = ("pass", "error", "halt")


class MixedTool:
    """Tool `t<n>` behaving as its scenario says, after yielding `delay` times."""

    input_schema: Mapping[str, Any] = {"type": "object", "properties": {}}
    description = "misbehaves on purpose"

    def __init__(self, name: str, mode: str, delay: int, release: asyncio.Event) -> None:
        self.name = name
        self.mode = mode
        self.delay = delay
        self.release = release
        self.late: list[str] = []

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> Any:
        for _ in range(self.delay):
            await asyncio.sleep(0)
        mode = self.mode
        if mode == "error":
            raise ValueError("bad")
        if mode == "unprintable":
            raise Unprintable
        if mode == "cancel":
            raise asyncio.CancelledError
        if mode == "self_cancel":
            task = asyncio.current_task()
            assert task is not None
            task.cancel()
            await asyncio.sleep(10)
        if mode == "halt":
            raise Halt("halt")
        if mode == "generator_exit":
            raise GeneratorExit
        if mode == "malformed":
            return ToolResult(content=(1, 2))  # type: ignore[arg-type]
        if mode == "unshowable":
            return object()
        if mode == "hang":
            await self.release.wait()
            self.late.append(self.name)
        return f"{self.name} ok"


async def run_scenario(
    scenario: list[tuple[str, int, str, str]],
) -> tuple[list[Message], list[str], bool]:
    """Run one batch of mixed failures; returns the session's transcript, what ran on
    after the run ended, and whether the follow-up run worked."""
    release = asyncio.Event()
    tools = [
        MixedTool(f"t{n}", mode, delay, release) for n, (mode, delay, _, _) in enumerate(scenario)
    ]
    approvals = {f"t{n}": approval for n, (_, _, approval, _) in enumerate(scenario)}
    limits = {f"t{n}": limiter for n, (_, _, _, limiter) in enumerate(scenario)}

    async def approver(call: ToolUseBlock, context: ToolContext) -> Approval:
        decision = approvals[call.name]
        if decision == "deny":
            return Approval.deny("no")
        if decision == "raise":
            raise PermissionError("approval failed")
        if decision == "halt":
            raise Halt("approval halted")
        if decision == "none":
            return None  # type: ignore[return-value]
        if decision == "true":
            return True  # type: ignore[return-value]
        return Approval.allow()

    class Limiter:
        async def acquire(self, tool_name: str) -> None:
            if limits[tool_name] == "error":
                raise RuntimeError("limiter failed")
            if limits[tool_name] == "halt":
                raise Halt("limiter halted")

    def reply(request: ModelRequest) -> Message | str:
        if request.messages[-1].text == "go":
            return tool_calls(*(tool_call(f"c{n}", t.name) for n, t in enumerate(tools)))
        return "fine"

    agent = Agent(
        FunctionProvider(reply),
        tools=tools,
        approver=approver,
        tool_policy=ToolPolicy(timeout=0.05, rate_limiter=Limiter()),
    )
    session = agent.session()
    with contextlib.suppress(ToolBatchAbortedError):
        await session.run("go")
    transcript = session.messages
    release.set()
    for _ in range(10):
        await asyncio.sleep(0)
    late = [name for t in tools for name in t.late]
    follow_up = (await session.run("again")).output == "fine"
    return transcript, late, follow_up


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(TOOL_MODES),
            st.integers(min_value=0, max_value=3),
            st.sampled_from(APPROVALS),
            st.sampled_from(LIMITERS),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_mix_of_failures_leaves_one_result_per_call_in_model_order(
    scenario: list[tuple[str, int, str, str]],
) -> None:
    """L43, L46, L10: whatever fails and however the failures interleave, the tool
    message answers every call once, in the model's order; nothing of the batch runs
    on after the run ended; the session can be continued."""
    transcript, late, follow_up = asyncio.run(run_scenario(scenario))
    assert [m.role for m in transcript] == ["user", "assistant", "tool"] + (
        ["assistant"] if transcript[-1].role == "assistant" else []
    )
    asked = [call.id for call in transcript[1].tool_calls]
    answered = [b.tool_use_id for b in transcript[2].content if isinstance(b, ToolResultBlock)]
    assert answered == asked == [f"c{n}" for n in range(len(scenario))]
    assert late == []
    assert follow_up


def test_post_run_hooks_see_a_run_a_tools_keyboard_interrupt_stopped() -> None:
    """L40, L44: the hooks run with the committed transcript and the interrupt."""
    seen: list[tuple[list[tuple[str, str, bool]], str]] = []

    async def checkpoint(result: RunResult[Any], error: BaseException | None) -> None:
        seen.append((results_of(result.messages), type(error).__name__))

    agent = agent_for(calls("stop"), hooks=[post_run(checkpoint)])

    @agent.tool
    async def stop() -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        agent.run_sync("go")
    assert seen == [([("1", "aborted: KeyboardInterrupt", True)], "KeyboardInterrupt")]
