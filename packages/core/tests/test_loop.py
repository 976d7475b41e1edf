"""The agent loop's rules, one behaviour per test; each cites its rule in docs/loop.md."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    Approval,
    Block,
    CallOptions,
    CompletionError,
    IncompleteResponseError,
    InvalidArgumentError,
    MaxStepsError,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderStreamItem,
    RunError,
    RunResult,
    StopReason,
    Task,
    TextBlock,
    ToolBatchAbortedError,
    ToolPolicy,
    ToolUseBlock,
    Usage,
    pre_send,
)
from automata.core.testing import (
    BrokenStream,
    ScriptedProvider,
    tool_call,
    tool_calls,
    tool_results,
)

# -- tool batches -------------------------------------------------------------------


async def test_a_turns_tool_calls_run_concurrently() -> None:
    """L11."""
    a_started, b_started = asyncio.Event(), asyncio.Event()
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("1", "a"), tool_call("2", "b")), Message.assistant("done")]
        )
    )

    @agent.tool
    async def a() -> str:
        a_started.set()
        await asyncio.wait_for(b_started.wait(), 2)  # only finishes if b runs meanwhile
        return "a"

    @agent.tool
    async def b() -> str:
        b_started.set()
        await asyncio.wait_for(a_started.wait(), 2)
        return "b"

    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "a", False), ("2", "b", False)]


async def test_results_go_back_in_the_models_order_not_completion_order() -> None:
    """L12."""
    first_may_finish = asyncio.Event()
    provider = ScriptedProvider(
        [tool_calls(tool_call("1", "slow"), tool_call("2", "fast")), Message.assistant("ok")]
    )
    agent = Agent(provider)

    @agent.tool
    async def slow() -> str:
        await first_may_finish.wait()
        return "slow"

    @agent.tool
    async def fast() -> str:
        first_may_finish.set()
        return "fast"

    await agent.run("go")
    sent = provider.requests[1].messages[-1]
    assert sent.role == "tool"
    assert [b.tool_use_id for b in sent.content] == ["1", "2"]  # type: ignore[union-attr]


async def test_the_loop_never_retries_a_failing_tool() -> None:
    """L13."""
    attempts = []
    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "flaky")), Message.assistant("ok")]))

    @agent.tool
    def flaky() -> str:
        attempts.append(1)
        raise ConnectionError("backend down")

    await agent.run("go")
    assert attempts == [1]


async def test_a_tool_error_is_its_message_with_no_prefix_and_the_run_continues() -> None:
    """L14."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "boom")), Message.assistant("sorry")])
    )

    @agent.tool
    def boom() -> str:
        raise ValueError("disk full")

    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "disk full", True)]
    assert result.output == "sorry"


async def test_an_error_without_a_message_is_named_by_its_type() -> None:
    """L14."""
    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "boom")), Message.assistant("ok")]))

    @agent.tool
    def boom() -> str:
        raise KeyError

    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "KeyError", True)]


async def test_an_unknown_tool_is_recoverable_and_its_siblings_still_run() -> None:
    """L15."""
    ran = []
    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("1", "nope"), tool_call("2", "b")), Message.assistant("ok")]
        )
    )

    @agent.tool
    def b() -> str:
        ran.append("b")
        return "b"

    @agent.tool
    def a() -> str:
        return "a"

    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("1", 'tool not found: "nope" (available tools: a, b)', True),
        ("2", "b", False),
    ]
    assert ran == ["b"]


async def test_invalid_arguments_are_recoverable_and_the_function_never_runs() -> None:
    """L16."""
    ran = []
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "add", x="one")), Message.assistant("ok")])
    )

    @agent.tool
    def add(x: int) -> int:
        ran.append(x)
        return x + 1

    result = await agent.run("go")
    (_, text, is_error) = tool_results(result.messages)[0]
    assert (
        text
        == "invalid args: x: Input should be a valid integer, unable to parse string as an integer"
    )
    assert is_error
    assert ran == []


async def test_arguments_the_provider_could_not_read_never_run_the_tool() -> None:
    """L16."""
    ran: list[int] = []
    unreadable = ToolUseBlock(
        id="1", name="add", input={}, input_error="arguments were cut off: '{\"x\": 4'"
    )
    agent = Agent(
        ScriptedProvider([Message(role="assistant", content=[unreadable]), Message.assistant("ok")])
    )

    @agent.tool
    def add(x: int = 1) -> int:
        ran.append(x)
        return x + 1

    result = await agent.run("go")
    (_, text, is_error) = tool_results(result.messages)[0]
    assert text == "invalid args: arguments were cut off: '{\"x\": 4'"
    assert is_error
    assert ran == []
    assert result.output == "ok"


async def test_unreadable_structured_output_is_corrected_like_invalid_output() -> None:
    """L16."""
    unreadable = ToolUseBlock(
        id="1", name=STRUCTURED_OUTPUT_TOOL, input={}, input_error="arguments are not an object"
    )
    provider = ScriptedProvider(
        [
            Message(role="assistant", content=[unreadable]),
            tool_calls(tool_call("2", STRUCTURED_OUTPUT_TOOL, result=7)),
        ]
    )
    result = await Agent(provider).run("go", output_type=int)
    (_, text, is_error) = tool_results(result.messages)[0]
    assert text == "invalid structured output: arguments are not an object"
    assert is_error
    assert result.output == 7


async def test_a_tool_returning_an_unshowable_value_is_an_error_result() -> None:
    """L17."""
    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "odd")), Message.assistant("ok")]))
    agent.tool(lambda: object(), name="odd")

    result = await agent.run("go")
    (_, text, is_error) = tool_results(result.messages)[0]
    assert is_error
    assert text.startswith("tool returned a object, which cannot be shown to the model")


# -- approvals ----------------------------------------------------------------------


async def test_an_approver_denial_is_recoverable_with_its_reason() -> None:
    """L18."""

    async def approver(call: ToolUseBlock, _: object) -> Approval:
        return Approval.deny("not on weekends") if call.id == "1" else Approval.deny()

    agent = Agent(
        ScriptedProvider(
            [tool_calls(tool_call("1", "t"), tool_call("2", "t")), Message.assistant("ok")]
        ),
        approver=approver,
    )
    agent.tool(lambda: "ran", name="t")

    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("1", "denied: not on weekends", True),
        ("2", "denied: denied", True),
    ]


async def test_an_approver_that_raises_aborts_the_batch_keeping_every_result() -> None:
    """L19, L9 and L10."""
    finished = asyncio.Event()
    release_slow = asyncio.Event()

    async def approver(call: ToolUseBlock, _: object) -> Approval:
        if call.id == "3":
            await finished.wait()  # abort only after call 1 has completed
            raise PermissionError("approval service down")
        return Approval.allow()

    provider = ScriptedProvider(
        [
            tool_calls(tool_call("1", "quick"), tool_call("2", "slow"), tool_call("3", "quick")),
            Message.assistant("later"),
        ]
    )
    agent = Agent(provider, approver=approver)

    @agent.tool
    async def quick() -> str:
        finished.set()
        return "quick"

    @agent.tool
    async def slow() -> str:
        await release_slow.wait()
        return "slow"

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError, match="approval service down") as caught:
        await session.run("go")
    assert tool_results(session.messages) == [
        ("1", "quick", False),
        ("2", "canceled: tool batch aborted: approval service down", True),
        ("3", "aborted: approval service down", True),
    ]
    assert caught.value.result is not None
    assert caught.value.result.messages == tuple(session.messages)
    # the transcript is valid: the session continues
    assert (await session.run("and now?")).output == "later"


async def test_cancelling_a_run_cancels_its_tools_and_leaves_a_valid_transcript() -> None:
    """L21."""
    started = asyncio.Event()
    cancelled = []
    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "wait")), Message.assistant("ok")]))

    @agent.tool
    async def wait() -> str:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    session = agent.session()
    task = asyncio.create_task(session.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled == [True]
    assert tool_results(session.messages) == [
        ("1", "canceled: tool batch aborted: run cancelled", True)
    ]
    assert (await session.run("again")).output == "ok"


async def test_a_tool_cancelling_itself_aborts_the_batch() -> None:
    """L20."""
    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "quit")), Message.assistant("ok")]))

    @agent.tool
    async def quit() -> str:
        raise asyncio.CancelledError

    session = agent.session()
    with pytest.raises(ToolBatchAbortedError):
        await session.run("go")
    assert tool_results(session.messages) == [("1", "aborted: CancelledError", True)]


# -- budgets and timeouts ------------------------------------------------------------


async def test_budget_overflow_is_denied_with_the_limit() -> None:
    """L22."""
    agent = Agent(
        ScriptedProvider(
            [
                tool_calls(tool_call("1", "t"), tool_call("2", "t"), tool_call("3", "t")),
                Message.assistant("ok"),
            ]
        ),
        tool_policy=ToolPolicy(max_calls=2),
    )
    agent.tool(lambda: "ran", name="t")

    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("1", "ran", False),
        ("2", "ran", False),
        ("3", "denied: tool budget exhausted: max calls 2", True),
    ]


@pytest.mark.looptime
async def test_a_policy_timeout_is_recoverable_and_names_the_tool() -> None:
    """L27."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "slow")), Message.assistant("ok")]),
        tool_policy=ToolPolicy(timeout=0.05),
    )

    @agent.tool
    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", 'tool "slow" timed out after 0.05s', True)]
    assert result.output == "ok"


async def test_the_callers_own_deadline_is_fatal_not_a_tool_timeout() -> None:
    """L28."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "slow")), Message.assistant("ok")]),
        tool_policy=ToolPolicy(timeout=30),
    )

    @agent.tool
    async def slow() -> str:
        await asyncio.sleep(10)
        return "late"

    session = agent.session()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await session.run("go")
    assert tool_results(session.messages) == [
        ("1", "canceled: tool batch aborted: run cancelled", True)
    ]


async def test_a_tool_raising_timeout_error_itself_is_an_ordinary_error() -> None:
    """L14."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t")), Message.assistant("ok")]),
        tool_policy=ToolPolicy(timeout=30),
    )

    @agent.tool
    def t() -> str:
        raise TimeoutError("upstream timed out")

    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "upstream timed out", True)]


# -- stop reasons --------------------------------------------------------------------


def reply(message: Message, stop: StopReason, raw: str = "") -> ModelResponse:
    return ModelResponse(message=message, stop_reason=stop, raw_stop_reason=raw or stop.value)


async def test_end_turn_with_tool_calls_is_incomplete_and_not_committed() -> None:
    """L33."""
    bad = tool_calls(tool_call("1", "t"))
    agent = Agent(ScriptedProvider([reply(bad, StopReason.END_TURN)]))
    session = agent.session()
    with pytest.raises(IncompleteResponseError) as caught:
        await session.run("go")
    assert caught.value.result is not None
    assert caught.value.result.stop_reason is StopReason.INCOMPLETE
    assert caught.value.result.final_message == bad
    assert [m.role for m in session.messages] == ["user"]


async def test_tool_use_without_tool_calls_is_incomplete() -> None:
    """L33."""
    agent = Agent(ScriptedProvider([reply(Message.assistant("hi"), StopReason.TOOL_USE)]))
    with pytest.raises(IncompleteResponseError) as caught:
        await agent.run("go")
    assert caught.value.result is not None
    assert caught.value.result.stop_reason is StopReason.INCOMPLETE


async def test_an_unknown_stop_reason_fails_the_run_keeping_the_raw_value() -> None:
    """L34 and L9."""
    agent = Agent(
        ScriptedProvider([reply(Message.assistant("hi"), StopReason.UNKNOWN, "pause_turn")])
    )
    with pytest.raises(CompletionError, match="pause_turn") as caught:
        await agent.run("go")
    assert caught.value.raw_stop_reason == "pause_turn"
    assert caught.value.result is not None
    assert caught.value.result.stop_reason is StopReason.UNKNOWN
    assert caught.value.result.raw_stop_reason == "pause_turn"


async def test_a_content_filter_stop_fails_the_run() -> None:
    """L34."""
    agent = Agent(ScriptedProvider([reply(Message.assistant("…"), StopReason.CONTENT_FILTER)]))
    with pytest.raises(CompletionError) as caught:
        await agent.run("go")
    assert caught.value.result is not None
    assert caught.value.result.stop_reason is StopReason.CONTENT_FILTER


async def test_max_tokens_without_tool_calls_returns_the_truncated_answer() -> None:
    """L35."""
    agent = Agent(
        ScriptedProvider([reply(Message.assistant("Once upon a"), StopReason.MAX_TOKENS)])
    )
    result = await agent.run("story")
    assert (result.output, result.stop_reason) == ("Once upon a", StopReason.MAX_TOKENS)


async def test_max_tokens_inside_a_tool_call_is_incomplete() -> None:
    """L35."""
    agent = Agent(ScriptedProvider([reply(tool_calls(tool_call("1", "t")), StopReason.MAX_TOKENS)]))
    with pytest.raises(IncompleteResponseError, match="max_tokens"):
        await agent.run("go")


async def test_an_empty_response_is_incomplete_and_nothing_is_committed() -> None:
    """L36."""
    agent = Agent(ScriptedProvider([reply(Message(role="assistant"), StopReason.END_TURN)]))
    session = agent.session()
    with pytest.raises(IncompleteResponseError, match="empty message"):
        await session.run("go")
    assert [m.role for m in session.messages] == ["user"]


async def test_a_stream_broken_after_content_is_incomplete_keeps_the_text_and_is_not_retried() -> (
    None
):
    """L37."""
    provider = ScriptedProvider(
        [BrokenStream("The answer is", ConnectionResetError("peer reset")), Message.assistant("x")]
    )
    agent = Agent(provider)
    stream = agent.stream("go")
    with pytest.raises(IncompleteResponseError, match="peer reset") as caught:
        async for _ in stream:
            pass
    result = caught.value.result
    assert result is not None
    assert result.output == "The answer is"
    assert result.stop_reason is StopReason.INCOMPLETE
    assert len(provider.requests) == 1


async def test_a_provider_failure_before_content_is_a_provider_error_with_the_result() -> None:
    """L38 and L9."""
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t")), ProviderError("overloaded", status=529)])
    )
    agent.tool(lambda: "ok", name="t")
    with pytest.raises(ProviderError) as caught:
        await agent.run("go")
    assert caught.value.status == 529
    assert caught.value.result is not None
    assert caught.value.result.steps == 2
    assert tool_results(caught.value.result.messages) == [("1", "ok", False)]


async def test_any_other_provider_exception_becomes_a_provider_error() -> None:
    """L38."""
    agent = Agent(ScriptedProvider([OSError("socket closed")]))
    with pytest.raises(ProviderError, match="provider failed: socket closed") as caught:
        await agent.run("go")
    assert isinstance(caught.value.__cause__, OSError)
    assert caught.value.result is not None


# -- steps, results, options ---------------------------------------------------------


async def test_max_steps_stops_the_run_with_the_partial_result() -> None:
    """L8 and L9."""
    provider = ScriptedProvider(
        [tool_calls(tool_call(str(i), "t")) for i in range(3)] + [Message.assistant("never")]
    )
    agent = Agent(provider, max_steps=2)
    agent.tool(lambda: "ok", name="t")
    with pytest.raises(MaxStepsError) as caught:
        await agent.run("go")
    result = caught.value.result
    assert result is not None
    assert (result.steps, result.stop_reason) == (2, StopReason.MAX_STEPS)
    assert tool_results(result.messages) == [("0", "ok", False), ("1", "ok", False)]
    assert provider.remaining == 2


async def test_a_run_error_raised_without_a_result_leaves_the_run_with_one() -> None:
    """L9: `.result` is a `RunResult`, never None, on every error a run raises; the run
    attaches it to one raised without (here by a pre-send hook). An error no run has
    raised has no `result` attribute yet."""

    async def refuse(request: ModelRequest) -> ModelRequest:
        raise RunError("refused by policy")

    unraised = RunError("made, not raised")
    assert not hasattr(unraised, "result")
    with pytest.raises(AttributeError, match="RunError has no result: no run raised it yet"):
        _ = unraised.result
    with pytest.raises(RunError, match="refused by policy") as caught:
        await Agent(ScriptedProvider(["never sent"]), hooks=[pre_send(refuse)]).run("go")
    partial: RunResult[Any] = caught.value.result
    assert (partial.steps, partial.stop_reason) == (0, StopReason.ERROR)
    assert [message.text for message in partial.messages] == ["go"]


async def test_usage_is_summed_over_the_runs_provider_calls() -> None:
    """L7."""
    usage = Usage(input_tokens=10, output_tokens=2, cache_read_tokens=5, cache_write_tokens=1)
    agent = Agent(
        ScriptedProvider(
            [
                ModelResponse(tool_calls(tool_call("1", "t")), StopReason.TOOL_USE, usage),
                ModelResponse(Message.assistant("ok"), StopReason.END_TURN, usage),
            ]
        )
    )
    agent.tool(lambda: "ok", name="t")
    result = await agent.run("go")
    assert result.usage == usage + usage
    assert result.steps == 2


async def test_the_result_holds_the_transcript_from_the_system_prompt() -> None:
    """L2."""
    agent = Agent(ScriptedProvider([Message.assistant("4")]), system_prompt="Be terse.")
    result = await agent.run("2+2?")
    assert [m.role for m in result.messages] == ["system", "user", "assistant"]
    assert result.messages[0].text == "Be terse."
    assert result.final_message == Message.assistant("4")
    assert result.output == "4"


async def test_the_system_prompt_leads_every_request() -> None:
    """L2."""
    provider = ScriptedProvider([Message.assistant("4")])
    await Agent(provider, system_prompt="Be terse.").run("2+2?")
    assert provider.requests[0].messages[0] == Message.system("Be terse.")


async def test_per_run_call_options_merge_field_by_field_without_mutating_either() -> None:
    """L5."""
    defaults = CallOptions(temperature=0.2, max_tokens=100)
    provider = ScriptedProvider([Message.assistant("a"), Message.assistant("b")])
    agent = Agent(provider, call_options=defaults)
    per_run = CallOptions(max_tokens=5, stop_sequences=("END",))
    await agent.run("x", call_options=per_run)
    await agent.run("y")
    assert provider.requests[0].options == CallOptions(
        temperature=0.2, max_tokens=5, stop_sequences=("END",)
    )
    assert provider.requests[1].options == defaults
    assert defaults == CallOptions(temperature=0.2, max_tokens=100)
    assert per_run == CallOptions(max_tokens=5, stop_sequences=("END",))


async def test_a_per_run_max_steps_applies_to_that_run_only() -> None:
    """L4."""
    provider = ScriptedProvider([tool_calls(tool_call("1", "t")), Message.assistant("ok")] * 2)
    agent = Agent(provider, max_steps=5)
    agent.tool(lambda: "ok", name="t")
    with pytest.raises(MaxStepsError):
        await agent.run("go", max_steps=1)
    assert (await agent.run("go")).output == "ok"


@pytest.mark.parametrize(
    "task",
    ["hello", [TextBlock(text="hello")], Message.user("hello")],
    ids=["str", "blocks", "message"],
)
async def test_a_task_is_text_blocks_or_a_user_message(task: Task) -> None:
    """L1."""
    provider = ScriptedProvider([Message.assistant("hi")])
    await Agent(provider).run(task)
    assert provider.requests[0].messages[-1] == Message.user("hello")


@pytest.mark.parametrize("task", ["", "   ", []])
async def test_an_empty_task_is_refused_before_anything_runs(task: str | list[Block]) -> None:
    """L1."""
    provider = ScriptedProvider([])
    with pytest.raises(InvalidArgumentError) as caught:
        await Agent(provider).run(task)
    assert str(caught.value) == "Agent.run() got an empty task; say what the model should do"
    assert provider.requests == []


async def test_a_task_from_another_role_is_refused_before_anything_runs() -> None:
    """L1."""
    provider = ScriptedProvider([])
    with pytest.raises(InvalidArgumentError) as caught:
        await Agent(provider).run(Message.assistant("x"))
    assert str(caught.value) == (
        "Agent.run() needs a user message as its task, got one with role 'assistant'"
    )
    assert provider.requests == []


def test_run_sync_runs_without_an_event_loop() -> None:
    """L3."""
    agent = Agent(ScriptedProvider([Message.assistant("sync ok")]))
    assert agent.run_sync("go").output == "sync ok"


def test_max_steps_below_one_is_refused() -> None:
    """L8."""
    with pytest.raises(ValueError, match="max_steps"):
        Agent(ScriptedProvider([]), max_steps=0)


async def test_a_stream_that_ends_with_nothing_is_a_provider_error() -> None:
    """L38."""

    class SilentProvider:
        provider_name = "test"
        model = None
        supports_streaming = True
        supports_native_output = False

        async def complete(self, request: ModelRequest) -> ModelResponse:
            raise AssertionError("streaming runs use stream()")

        async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
            return
            yield

    with pytest.raises(ProviderError, match="ended without a response"):
        async for _ in Agent(SilentProvider()).stream("go"):
            pass


async def test_changing_an_agents_settings_between_runs_takes_effect() -> None:
    """L4."""
    provider = ScriptedProvider([Message.assistant("a"), Message.assistant("b")])
    agent = Agent(provider, system_prompt="First.", call_options=CallOptions(max_tokens=5))
    await agent.run("x")
    agent.system_prompt = "Second."
    agent.call_options = CallOptions(max_tokens=7)
    agent.max_steps = 3
    await agent.run("y")
    first, second = provider.requests
    assert (first.system_prompt, first.options.max_tokens) == ("First.", 5)
    assert (second.system_prompt, second.options.max_tokens) == ("Second.", 7)
