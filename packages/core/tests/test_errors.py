"""Errors a newcomer meets: each is typed, raised before anything runs, and says what
to do instead. Every test asserts the exact message."""

from __future__ import annotations

import gc
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from automata.core import (
    Agent,
    Approval,
    ArgumentTypeError,
    AutomataError,
    EventLoopRunningError,
    InvalidArgumentError,
    Message,
    ModelRequest,
    ModelResponse,
    Task,
    TextEvent,
    ToolBatchAbortedError,
    ToolContext,
    ToolDefinitionError,
    ToolUseBlock,
    as_tool,
    as_tool_func,
    tool,
)
from automata.core.testing import (
    FunctionProvider,
    ScriptedProvider,
    tool_call,
    tool_calls,
    tool_results,
)

PROVIDER_HINT = (
    'pass a provider object, e.g. AnthropicProvider("claude-sonnet-4-5") from '
    'automata.anthropic, or a model string such as "anthropic:claude-sonnet-4-5"'
)
ACCEPTED = (
    "approver, call_options, deps, hooks, host, labels, max_correction_turns, max_steps, "
    "native_structured_output, output_type, output_validators, tool_policy, usage_limits"
)


def never_awaited(caught: list[warnings.WarningMessage]) -> list[str]:
    """The "coroutine ... was never awaited" warnings among `caught`."""
    return [str(w.message) for w in caught if "never awaited" in str(w.message)]


class Opaque:
    """A class pydantic knows nothing about."""


# -- constructing an agent ------------------------------------------------------------


def test_an_agent_without_a_provider_is_refused() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(None)  # type: ignore[arg-type]
    assert str(caught.value) == f"Agent() needs a provider, got None; {PROVIDER_HINT}"
    assert isinstance(caught.value, AutomataError | TypeError)


def test_a_model_name_without_a_provider_prefix_is_refused() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent("gpt-4o")
    assert str(caught.value) == (
        "Agent() got the model string 'gpt-4o', which names no provider; write it as "
        '"provider:model" (e.g. "openai:gpt-4o", "anthropic:claude-sonnet-4-5") or pass '
        "a provider object"
    )


def test_an_object_without_complete_is_refused_as_a_provider() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(Opaque())  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Agent() needs a provider (an object with an async `complete` method), "
        f"got an object of type Opaque; {PROVIDER_HINT}"
    )


def test_a_provider_that_does_not_declare_what_it_advertises_is_refused() -> None:
    class Undeclared:
        provider_name = "legacy"

        async def complete(self, request: ModelRequest) -> ModelResponse:
            raise AssertionError("never called")

    with pytest.raises(ArgumentTypeError) as caught:
        Agent(Undeclared())  # type: ignore[arg-type]
    assert str(caught.value) == (
        "provider Undeclared does not declare model, supports_streaming, "
        "supports_native_output; see the Provider protocol in automata.core"
    )


@pytest.mark.parametrize("make", [as_tool, as_tool_func])
@pytest.mark.parametrize(
    ("agent", "described"),
    [("nope", "the string 'nope'"), (None, "None"), (Opaque(), "an object of type Opaque")],
)
def test_a_sub_agent_tool_needs_an_agent(
    make: Callable[..., Any], agent: object, described: str
) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        make(agent, "researcher", "Research a topic.")
    name = make.__name__
    assert str(caught.value) == (
        f"{name}() needs an Agent as its first argument, got {described}; pass the "
        f'agent the tool should run, e.g. {name}(Agent(provider), "researcher", '
        '"Research a topic.")'
    )


# -- run_sync where an event loop runs ----------------------------------------------


@pytest.mark.filterwarnings("error")
async def test_agent_run_sync_inside_a_running_loop_says_to_await_run() -> None:
    provider = ScriptedProvider(["never"])
    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        with pytest.raises(EventLoopRunningError) as caught:
            Agent(provider).run_sync("go")
        gc.collect()
    assert str(caught.value) == (
        "Agent.run_sync() cannot be called while an event loop is running (as in a "
        "notebook or an async web handler); use `await agent.run(...)` instead"
    )
    assert never_awaited(caught_warnings) == []
    assert provider.requests == []


@pytest.mark.filterwarnings("error")
async def test_session_run_sync_inside_a_running_loop_says_to_await_run() -> None:
    session = Agent(ScriptedProvider(["never"])).session()
    with warnings.catch_warnings(record=True) as caught_warnings:
        warnings.simplefilter("always")
        with pytest.raises(EventLoopRunningError) as caught:
            session.run_sync("go")
        gc.collect()
    assert str(caught.value) == (
        "Session.run_sync() cannot be called while an event loop is running (as in a "
        "notebook or an async web handler); use `await session.run(...)` instead"
    )
    assert never_awaited(caught_warnings) == []
    assert session.messages == []


def test_run_sync_outside_a_loop_still_runs() -> None:
    assert Agent(ScriptedProvider(["done"])).run_sync("go").output == "done"


# -- per-run keywords and tasks ---------------------------------------------------------


async def test_an_unknown_run_keyword_names_the_method_and_the_accepted_ones() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        await Agent(ScriptedProvider([])).run("go", verbose=True)  # type: ignore[call-overload]
    assert str(caught.value) == (
        f"Agent.run() got an unexpected keyword argument 'verbose'; it accepts: {ACCEPTED}"
    )


async def test_a_misspelt_run_keyword_is_answered_with_the_keyword_meant() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        await Agent(ScriptedProvider([])).run("go", max_step=3)  # type: ignore[call-overload]
    assert str(caught.value) == (
        "Agent.run() got an unexpected keyword argument 'max_step'; did you mean 'max_steps'?"
    )


def test_unknown_stream_keywords_are_refused_when_the_stream_is_made() -> None:
    session = Agent(ScriptedProvider([])).session()
    with pytest.raises(ArgumentTypeError) as caught:
        session.stream("go", temperature=0, top_p=1)  # type: ignore[call-overload]
    assert str(caught.value) == (
        "Session.stream() got unexpected keyword arguments 'temperature', 'top_p'; "
        f"it accepts: {ACCEPTED}"
    )


def test_an_unknown_run_sync_keyword_names_run_sync() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([])).run_sync("go", steps=3)  # type: ignore[call-overload]
    assert str(caught.value) == (
        "Agent.run_sync() got an unexpected keyword argument 'steps'; did you mean 'max_steps'?"
    )


@pytest.mark.parametrize(
    ("task", "described"),
    [
        (None, "None"),
        (42, "an int"),
        ({"text": "hi"}, "a dict"),
        (b"hi", "a bytes"),
        (["hi"], "a list holding the string 'hi'"),
    ],
)
async def test_a_task_that_is_not_text_blocks_or_a_message_is_refused(
    task: object, described: str
) -> None:
    provider = ScriptedProvider([])
    with pytest.raises(ArgumentTypeError) as caught:
        await Agent(provider).run(task)  # type: ignore[call-overload]
    assert str(caught.value) == (
        f"Agent.run() needs a task: a string, a list of blocks or a user Message, got {described}"
    )


@pytest.mark.parametrize("task", ["", "  \n", []])
def test_an_empty_stream_task_is_refused(task: Task) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        Agent(ScriptedProvider([])).session().stream(task)
    assert str(caught.value) == "Session.stream() got an empty task; say what the model should do"


@pytest.mark.parametrize(("value", "shown"), [("3", "'3' (str)"), (2.5, "2.5 (float)")])
def test_a_max_steps_that_is_not_an_int_is_refused(value: object, shown: str) -> None:
    message = f"max_steps must be an int (at least 1), got {shown}"
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([]), max_steps=value)  # type: ignore[arg-type]
    assert str(caught.value) == message
    with pytest.raises(ArgumentTypeError) as caught:
        Agent(ScriptedProvider([])).stream("go", max_steps=value)  # type: ignore[call-overload]
    assert str(caught.value) == message


@pytest.mark.parametrize("value", [0, -2])
async def test_a_max_steps_below_one_is_refused(value: int) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        Agent(ScriptedProvider([]), max_steps=value)
    assert str(caught.value) == f"max_steps must be at least 1, got {value}"
    with pytest.raises(InvalidArgumentError) as caught:
        await Agent(ScriptedProvider([])).run("go", max_steps=value)
    assert str(caught.value) == f"max_steps must be at least 1, got {value}"


# -- output types and tool parameters -----------------------------------------------------


async def test_an_output_type_pydantic_cannot_use_fails_at_the_call_in_one_line() -> None:
    provider = ScriptedProvider([])
    agent = Agent(provider)
    with pytest.raises(ArgumentTypeError) as caught:
        await agent.run("go", output_type=Opaque)
    assert str(caught.value) == (
        "output_type Opaque is not supported: use a pydantic model, a dataclass, a "
        "TypedDict, or a type pydantic can validate and describe in JSON (str, int, "
        "list[str], a Literal, an Enum, ...)"
    )
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__
    assert provider.requests == []


def test_a_tool_parameter_type_without_a_schema_fails_in_one_line() -> None:
    def inspect_it(thing: Opaque) -> str:
        return "seen"

    with pytest.raises(ToolDefinitionError) as caught:
        tool(inspect_it)
    assert str(caught.value) == (
        "tool 'inspect_it': parameter 'thing' has type Opaque, which has no JSON schema; "
        "use str, int, float, bool, lists, dicts, Literal, Enum, a pydantic model, a "
        "dataclass or a TypedDict"
    )


def test_a_tool_parameter_pydantic_validates_but_cannot_describe_fails_in_one_line() -> None:
    def call_back(limit: int, later: Callable[[], int]) -> str:
        return "called"

    with pytest.raises(ToolDefinitionError) as caught:
        tool(call_back)
    assert str(caught.value) == (
        "tool 'call_back': parameter 'later' has type Callable[[], int], which has no "
        "JSON schema; use str, int, float, bool, lists, dicts, Literal, Enum, a pydantic "
        "model, a dataclass or a TypedDict"
    )


# -- scripted replies -------------------------------------------------------------------


async def test_a_scripted_string_reply_is_a_text_answer() -> None:
    result = await Agent(ScriptedProvider(["hello"])).run("hi")
    assert result.output == "hello"
    assert result.final_message == Message.assistant("hello")


async def test_a_scripted_string_reply_streams_as_text() -> None:
    stream = Agent(ScriptedProvider(["hello"])).stream("hi")
    texts = [event.text async for event in stream if isinstance(event, TextEvent)]
    assert texts == ["hello"]
    assert stream.result.output == "hello"


async def test_a_function_provider_may_return_a_string() -> None:
    provider = FunctionProvider(lambda request: f"you said {request.messages[-1].text}")
    assert (await Agent(provider).run("hi")).output == "you said hi"


async def test_a_plain_sync_function_is_an_approver() -> None:
    def approve(call: ToolUseBlock, context: ToolContext) -> Approval:
        return Approval.deny("not today") if call.id == "1" else Approval.allow()

    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t"), tool_call("2", "t")), "ok"]),
        approver=approve,
    )
    agent.tool(lambda: "ran", name="t")
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "denied: not today", True), ("2", "ran", False)]


async def test_an_approver_returning_something_else_aborts_the_batch() -> None:
    def approve(call: ToolUseBlock, context: ToolContext) -> Approval:
        return True  # type: ignore[return-value]

    agent = Agent(ScriptedProvider([tool_calls(tool_call("1", "t")), "ok"]), approver=approve)
    agent.tool(lambda: "ran", name="t")
    with pytest.raises(ToolBatchAbortedError) as caught:
        await agent.run("go")
    assert str(caught.value) == ("tool batch aborted: the approver returned bool, not an Approval")
