"""Asking the model to try again: `ModelRetry` from tools and output validators
(docs/loop.md, L69-L72)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    ArgumentTypeError,
    Hook,
    Message,
    ModelRetry,
    OutputRetriesExceededError,
    RunContext,
    RunResult,
    StopReason,
    ToolLimits,
    ToolPolicy,
    ToolRetriesExceededError,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


@dataclass(frozen=True)
class Shop:
    currency: str


class Price(BaseModel):
    amount: int


def picky(city: str) -> str:
    """Weather for a city, if the name is spelled in full."""
    if city != "Paris":
        raise ModelRetry(f"unknown city {city!r}; give the full name")
    return "sunny"


def user_texts(messages: tuple[Message, ...]) -> list[str]:
    return [m.text for m in messages if m.role == "user"]


async def test_a_tool_raising_model_retry_gives_the_model_its_message_as_an_error() -> None:
    """L69: the call's result is the message, marked as an error; the run goes on."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("c1", "picky", city="Pa")),
            tool_calls(tool_call("c2", "picky", city="Paris")),
            Message.assistant("sunny in Paris"),
        ]
    )
    agent = Agent(provider)
    agent.tool(picky)
    result = await agent.run("weather?")
    assert tool_results(result.messages) == [
        ("c1", "unknown city 'Pa'; give the full name", True),
        ("c2", "sunny", False),
    ]
    assert result.output == "sunny in Paris"


async def test_one_retry_more_than_the_default_budget_fails_the_run_naming_the_tool() -> None:
    """L70: the default budget is one retry per tool per run; the second `ModelRetry`
    is committed as the call's result, then the run fails."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("c1", "picky", city="Pa")),
            tool_calls(tool_call("c2", "picky", city="Par")),
            Message.assistant("never asked"),
        ]
    )
    agent = Agent(provider)
    agent.tool(picky)
    with pytest.raises(ToolRetriesExceededError) as caught:
        await agent.run("weather?")
    error = caught.value
    assert str(error) == 'tool "picky" asked the model to try again more than its 1 allowed retry'
    assert error.tool == "picky"
    assert error.result is not None
    assert error.result.stop_reason is StopReason.ERROR
    assert tool_results(error.result.messages)[-1] == (
        "c2",
        "unknown city 'Par'; give the full name",
        True,
    )
    assert len(provider.requests) == 2


async def test_a_tools_own_retries_override_the_policys() -> None:
    """L69: `ToolLimits(retries=...)` for one tool wins over `ToolPolicy.retries`."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("c1", "picky", city="P")),
            tool_calls(tool_call("c2", "picky", city="Pa")),
            tool_calls(tool_call("c3", "picky", city="Paris")),
            Message.assistant("sunny"),
        ]
    )
    policy = ToolPolicy(retries=0, per_tool={"picky": ToolLimits(retries=2)})
    agent = Agent(provider, tool_policy=policy)
    agent.tool(picky)
    result = await agent.run("weather?")
    assert [error for _, _, error in tool_results(result.messages)] == [True, True, False]


async def test_a_tools_declared_retries_sit_between_per_tool_limits_and_the_policy() -> None:
    """L69: `tool(..., retries=N)` wins over `ToolPolicy.retries`; `per_tool` wins over
    it."""

    def script() -> ScriptedProvider:
        return ScriptedProvider(
            [
                tool_calls(tool_call("c1", "picky", city="P")),
                tool_calls(tool_call("c2", "picky", city="Pa")),
                Message.assistant("gave up"),
            ]
        )

    declared = Agent(script(), tool_policy=ToolPolicy(retries=0))
    declared.tool(picky, retries=2)
    assert (await declared.run("weather?")).output == "gave up"
    overridden = Agent(script(), tool_policy=ToolPolicy(per_tool={"picky": ToolLimits(retries=1)}))
    overridden.tool(picky, retries=5)
    with pytest.raises(ToolRetriesExceededError):
        await overridden.run("weather?")
    with pytest.raises(ValueError, match=r"^retries must be >= 0, got -1$"):
        tool(picky, retries=-1)


async def test_zero_retries_fails_the_run_at_the_first_model_retry() -> None:
    """L70: the budget counts per run, and with `retries=0` none is allowed."""
    provider = ScriptedProvider([tool_calls(tool_call("c1", "picky", city="Pa"))])
    agent = Agent(provider, tool_policy=ToolPolicy(retries=0))
    agent.tool(picky)
    with pytest.raises(ToolRetriesExceededError) as caught:
        await agent.run("weather?")
    assert str(caught.value) == (
        'tool "picky" asked the model to try again more than its 0 allowed retries'
    )


def test_a_negative_retry_budget_is_refused() -> None:
    """L70."""
    with pytest.raises(ValueError, match=r"^retries must be >= 0, got -1$"):
        ToolLimits(retries=-1)
    with pytest.raises(ValueError, match=r"^retries must be >= 0, got -1$"):
        ToolPolicy(retries=-1)


async def test_a_typed_runs_correction_turns_share_one_tool_retry_budget() -> None:
    """L70: a typed run's loops are one run: a retry before a schema correction and
    one after it exhaust the default budget."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("c1", "picky", city="Pa")),
            tool_calls(tool_call("s1", STRUCTURED_OUTPUT_TOOL, amount="many")),
            tool_calls(tool_call("c2", "picky", city="Par")),
        ]
    )
    agent = Agent(provider)
    agent.tool(picky)
    with pytest.raises(ToolRetriesExceededError):
        await agent.run("price?", output_type=Price)


async def test_an_output_validator_sees_deps_and_may_change_the_typed_value() -> None:
    """L71."""
    provider = ScriptedProvider([tool_calls(tool_call("s1", STRUCTURED_OUTPUT_TOOL, amount=7))])
    agent = Agent(provider, deps_type=Shop)
    seen: list[str] = []

    @agent.output_validator
    def in_cents(ctx: RunContext[Shop], price: Price) -> Price:
        seen.append(ctx.deps.currency)
        return Price(amount=price.amount * 100)

    result = await agent.run("price?", output_type=Price, deps=Shop("EUR"))
    assert result.output == Price(amount=700)
    assert seen == ["EUR"]


async def test_an_async_output_validator_runs_on_the_text_of_an_untyped_run() -> None:
    """L71."""
    agent = Agent(ScriptedProvider([Message.assistant("  hello  ")]))

    @agent.output_validator
    async def stripped(ctx: RunContext[None], text: str) -> str:
        return text.strip()

    result = await agent.run("hi")
    assert result.output == "hello"
    assert result.stop_reason is StopReason.END_TURN


async def test_per_run_validators_run_after_the_agents_in_order() -> None:
    """L71: each validator gets what the one before returned."""
    agent = Agent(ScriptedProvider([Message.assistant("a")]))

    @agent.output_validator
    def first(ctx: RunContext[None], text: str) -> str:
        return text + "b"

    def second(ctx: RunContext[None], text: str) -> str:
        return text + "c"

    result = await agent.run("x", output_validators=[second])
    assert result.output == "abc"


async def test_post_run_hooks_see_the_validated_output() -> None:
    """L71."""
    seen: list[Any] = []

    class Record(Hook):
        async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
            seen.append(result.output)

    agent = Agent(ScriptedProvider([Message.assistant("a")]), hooks=[Record()])
    result = await agent.run("x", output_validators=[lambda ctx, text: text.upper()])
    assert result.output == "A"
    assert seen == ["A"]


async def test_a_validators_model_retry_gives_the_model_a_correction_turn() -> None:
    """L72: its message is the next user message; the next answer is validated again."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("s1", STRUCTURED_OUTPUT_TOOL, amount=-3)),
            tool_calls(tool_call("s2", STRUCTURED_OUTPUT_TOOL, amount=3)),
        ]
    )
    agent = Agent(provider)

    @agent.output_validator
    def positive(ctx: RunContext[None], price: Price) -> Price:
        if price.amount < 0:
            raise ModelRetry("the amount must be positive")
        return price

    result = await agent.run("price?", output_type=Price)
    assert result.output == Price(amount=3)
    assert user_texts(result.messages) == ["price?", "the amount must be positive"]
    assert result.steps == 2


async def test_an_untyped_run_gets_its_correction_turn_too() -> None:
    """L72."""
    provider = ScriptedProvider([Message.assistant("Bonjour"), Message.assistant("Hello")])

    def english(ctx: RunContext[None], text: str) -> str:
        if text != "Hello":
            raise ModelRetry("answer in English")
        return text

    result = await Agent(provider).run("greet", output_validators=[english])
    assert result.output == "Hello"
    assert user_texts(result.messages) == ["greet", "answer in English"]
    assert result.steps == 2


async def test_streamed_and_stepped_runs_are_validated_and_corrected_the_same_way() -> None:
    """L72: `stream`, `iter` and a session's `run` share the run's correction turns."""

    def english(ctx: RunContext[None], text: str) -> str:
        if text != "Hello":
            raise ModelRetry("answer in English")
        return text + "!"

    def replies() -> ScriptedProvider:
        return ScriptedProvider([Message.assistant("Bonjour"), Message.assistant("Hello")])

    stream = Agent(replies()).stream("greet", output_validators=[english])
    async for _ in stream:
        pass
    async with Agent(replies()).iter("greet", output_validators=[english]) as steps:
        kinds = [type(step).__name__ async for step in steps]
    session = Agent(replies()).session()
    from_session = await session.run("greet", output_validators=[english])
    assert stream.result.output == steps.result.output == from_session.output == "Hello!"
    assert kinds == ["ModelStep", "ModelStep"]
    assert user_texts(tuple(session.messages)) == ["greet", "answer in English"]


async def test_the_hidden_tool_accepts_a_payload_a_validator_then_rejects() -> None:
    """L72: the schema check answers the hidden tool call; the validator's message
    follows it as the user message of the correction turn."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("s1", STRUCTURED_OUTPUT_TOOL, amount=-3)),
            tool_calls(tool_call("s2", STRUCTURED_OUTPUT_TOOL, amount=3)),
        ]
    )

    def positive(ctx: RunContext[None], price: Price) -> Price:
        if price.amount < 0:
            raise ModelRetry("the amount must be positive")
        return price

    result = await Agent(provider).run("price?", output_type=Price, output_validators=[positive])
    assert [m.role for m in result.messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
    ]
    assert tool_results(result.messages)[0] == ("s1", "structured output accepted", False)
    assert result.messages[3].text == "the amount must be positive"


async def test_with_no_correction_turn_left_the_run_fails_with_the_message() -> None:
    """L72: schema corrections and validator retries share `max_correction_turns`."""
    provider = ScriptedProvider([Message.assistant("Bonjour"), Message.assistant("Salut")])

    def english(ctx: RunContext[None], text: str) -> str:
        raise ModelRetry("answer in English")

    with pytest.raises(OutputRetriesExceededError) as caught:
        await Agent(provider).run("greet", output_validators=[english])
    error = caught.value
    assert str(error) == (
        "output validator asked the model to try again with no correction turn left "
        "(max_correction_turns=1): answer in English"
    )
    assert error.retry_message == "answer in English"
    assert error.result is not None
    assert error.result.output == "Salut"
    assert error.result.stop_reason is StopReason.ERROR
    assert error.result.steps == 2


async def test_max_correction_turns_zero_fails_at_the_first_validator_retry() -> None:
    """L72."""
    provider = ScriptedProvider([tool_calls(tool_call("s1", STRUCTURED_OUTPUT_TOOL, amount=1))])

    def never(ctx: RunContext[None], price: Price) -> Price:
        raise ModelRetry("no")

    with pytest.raises(OutputRetriesExceededError):
        await Agent(provider).run(
            "x", output_type=Price, max_correction_turns=0, output_validators=[never]
        )
    assert len(provider.requests) == 1


async def test_any_other_error_from_a_validator_fails_the_run_as_itself() -> None:
    """L72."""

    def broken(ctx: RunContext[None], text: str) -> str:
        raise KeyError("oops")

    with pytest.raises(KeyError):
        await Agent(ScriptedProvider([Message.assistant("a")])).run("x", output_validators=[broken])


def test_a_validator_that_is_not_a_function_is_refused() -> None:
    """L72."""
    agent = Agent(ScriptedProvider([]))
    message = "an output validator must be a function of the run context and the output, got int"
    with pytest.raises(ArgumentTypeError) as caught:
        agent.output_validator(1)  # type: ignore[arg-type]
    assert str(caught.value) == message
    with pytest.raises(ArgumentTypeError) as again:
        agent.run_sync("x", output_validators=[1])  # type: ignore[list-item]
    assert str(again.value) == message
