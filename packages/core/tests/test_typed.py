"""Typed output: the hidden tool, prose payloads, corrections and the forced turn."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    Hook,
    InvalidStructuredOutputError,
    Message,
    ModelRequest,
    ModelResponse,
    RunResult,
    StopReason,
    ToolDefinitionError,
    ToolResultBlock,
    Usage,
    tool,
)
from automata.core.testing import FunctionProvider, ScriptedProvider, tool_call, tool_calls


class Person(BaseModel):
    """A person and their age."""

    name: str
    age: int


def answer(call_id: str, **payload: Any) -> Message:
    return tool_calls(tool_call(call_id, STRUCTURED_OUTPUT_TOOL, **payload))


def offered(request: ModelRequest) -> list[str]:
    return [spec.name for spec in request.tools]


async def test_a_valid_tool_payload_is_the_typed_output() -> None:
    provider = ScriptedProvider([answer("1", name="Ada", age=36)])
    result = await Agent(provider).run("Who?", output_type=Person)
    assert result.output == Person(name="Ada", age=36)
    assert len(provider.requests) == 1
    last = result.messages[-1].content[0]
    assert isinstance(last, ToolResultBlock)
    assert (last.text, last.is_error) == ("structured output accepted", False)


async def test_the_hidden_tool_has_the_output_schema_beside_the_agents_tools() -> None:
    provider = ScriptedProvider([answer("1", name="Ada", age=36)])
    agent = Agent(provider)
    agent.tool(lambda q: q, name="search")
    await agent.run("Who?", output_type=Person)
    specs = {spec.name: spec for spec in provider.requests[0].tools}
    assert set(specs) == {"search", STRUCTURED_OUTPUT_TOOL}
    schema = specs[STRUCTURED_OUTPUT_TOOL].input_schema
    assert schema["properties"] == {"name": {"type": "string"}, "age": {"type": "integer"}}
    assert schema["required"] == ["name", "age"]


async def test_the_agents_own_tools_work_before_the_typed_answer() -> None:
    provider = ScriptedProvider(
        [tool_calls(tool_call("1", "lookup", q="Ada")), answer("2", name="Ada", age=36)]
    )
    agent = Agent(provider)
    agent.tool(lambda q: f"{q} is 36", name="lookup")
    result = await agent.run("Who?", output_type=Person)
    assert result.output == Person(name="Ada", age=36)
    assert result.steps == 2


@pytest.mark.parametrize(
    "prose",
    [
        'Here you go:\n```json\n{"name": "Ada", "age": 36}\n```',
        '{"name": "Ada", "age": 36}',
        'The answer is {"name": "Ada", "age": 36} as requested.',
    ],
    ids=["fenced", "bare", "embedded"],
)
async def test_prose_holding_valid_json_is_accepted_without_another_turn(prose: str) -> None:
    provider = ScriptedProvider([Message.assistant(prose)])
    result = await Agent(provider).run("Who?", output_type=Person)
    assert result.output == Person(name="Ada", age=36)
    assert len(provider.requests) == 1


async def test_an_invalid_payload_is_sent_back_with_its_violations_for_one_correction() -> None:
    provider = ScriptedProvider([answer("1", name="Ada"), answer("2", name="Ada", age=36)])
    result = await Agent(provider).run("Who?", output_type=Person)
    assert result.output == Person(name="Ada", age=36)
    second = provider.requests[1].messages
    feedback = second[-2].content[0]
    assert isinstance(feedback, ToolResultBlock)
    assert feedback.is_error
    assert "age: Field required" in feedback.text
    assert second[-1].role == "user"
    assert "age: Field required" in second[-1].text
    assert provider.requests[1].options.tool_choice is None  # a correction is not forced


async def test_after_the_corrections_one_turn_is_forced_to_call_the_tool() -> None:
    provider = ScriptedProvider(
        [answer("1", name="Ada"), answer("2", age=3), answer("3", name="Ada", age=36)]
    )
    result = await Agent(provider).run("Who?", output_type=Person)
    assert result.output == Person(name="Ada", age=36)
    assert [r.options.tool_choice for r in provider.requests] == [
        None,
        None,
        STRUCTURED_OUTPUT_TOOL,
    ]


async def test_exhausted_attempts_raise_with_each_violation_once_and_the_partial_result() -> None:
    provider = ScriptedProvider([answer("1", name="Ada"), answer("2", age=3), answer("3")])
    with pytest.raises(InvalidStructuredOutputError) as caught:
        await Agent(provider).run("Who?", output_type=Person)
    error = caught.value
    assert str(error) == (
        "structured output never validated: age: Field required; name: Field required"
    )
    assert error.violations == ("age: Field required", "name: Field required")
    assert len(provider.requests) == 3
    assert error.result is not None
    assert error.result.steps == 3
    assert error.result.output is not None  # the text, never a half-filled Person


@pytest.mark.parametrize("corrections", [0, 1, 2, 3])
async def test_correction_turns_are_counted_exactly(corrections: int) -> None:
    attempts = 1 + corrections + 1
    provider = ScriptedProvider([answer(str(i), name="x") for i in range(attempts)])
    with pytest.raises(InvalidStructuredOutputError):
        await Agent(provider).run("Who?", output_type=Person, max_correction_turns=corrections)
    assert len(provider.requests) == attempts
    assert provider.requests[-1].options.tool_choice == STRUCTURED_OUTPUT_TOOL
    assert all(r.options.tool_choice is None for r in provider.requests[:-1])


async def test_plain_prose_skips_corrections_and_forces_the_tool() -> None:
    provider = ScriptedProvider(
        [Message.assistant("Ada Lovelace, 36."), answer("1", name="Ada", age=36)]
    )
    result = await Agent(provider).run("Who?", output_type=Person, max_correction_turns=3)
    assert result.output == Person(name="Ada", age=36)
    assert provider.requests[1].options.tool_choice == STRUCTURED_OUTPUT_TOOL


async def test_invalid_json_in_prose_gets_a_correction_turn() -> None:
    provider = ScriptedProvider(
        [Message.assistant('{"name": "Ada", "age": "old"}'), answer("1", name="Ada", age=36)]
    )
    result = await Agent(provider).run("Who?", output_type=Person)
    assert result.output == Person(name="Ada", age=36)
    assert "age: Input should be a valid integer" in provider.requests[1].messages[-1].text
    assert provider.requests[1].options.tool_choice is None


async def test_usage_and_steps_are_summed_over_the_typed_sequence() -> None:
    usage = Usage(input_tokens=7, output_tokens=1)
    provider = ScriptedProvider(
        [
            ModelResponse(answer("1", name="x"), StopReason.TOOL_USE, usage),
            ModelResponse(answer("2", name="x", age=1), StopReason.TOOL_USE, usage),
        ]
    )
    result = await Agent(provider).run("Who?", output_type=Person)
    assert (result.usage, result.steps) == (usage + usage, 2)


async def test_post_run_hooks_see_each_committed_transcript_of_a_typed_run() -> None:
    seen: list[tuple[int, object, str | None]] = []

    class Checkpoint(Hook):
        async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
            seen.append(
                (len(result.messages), result.output, type(error).__name__ if error else None)
            )

    provider = ScriptedProvider([answer("1", name="x"), answer("2"), answer("3")])
    session = Agent(provider, hooks=[Checkpoint()]).session()
    with pytest.raises(InvalidStructuredOutputError):
        await session.run("Who?", output_type=Person)
    # initial (user, call, result), correction (+ user, call, result), forced (+ 3)
    assert [n for n, _, _ in seen] == [3, 6, 9]
    assert [e for _, _, e in seen] == [None, None, "InvalidStructuredOutputError"]
    assert len(session.messages) == 9


async def test_typed_runs_work_on_sessions_and_streams() -> None:
    provider = ScriptedProvider([answer("1", name="Ada", age=36), answer("2", name="Bo", age=5)])
    session = Agent(provider).session()
    assert (await session.run("first", output_type=Person)).output.name == "Ada"
    stream = session.stream("second", output_type=Person)
    async for _ in stream:
        pass
    assert stream.result.output == Person(name="Bo", age=5)


async def test_non_object_output_types_are_wrapped_as_result() -> None:
    provider = ScriptedProvider([tool_calls(tool_call("1", STRUCTURED_OUTPUT_TOOL, result=[1, 2]))])
    result = await Agent(provider).run("Numbers?", output_type=list[int])
    assert result.output == [1, 2]
    schema = provider.requests[0].tools[0].input_schema
    assert schema["required"] == ["result"]


def test_a_user_tool_with_the_hidden_tools_name_fails_fast() -> None:
    agent = Agent(ScriptedProvider([]))
    with pytest.raises(ToolDefinitionError, match="reserved"):
        agent.add_tool(tool(lambda: "x", name=STRUCTURED_OUTPUT_TOOL))


def test_a_duplicate_tool_name_fails_fast() -> None:
    agent = Agent(ScriptedProvider([]))
    agent.tool(lambda: "x", name="t")
    with pytest.raises(ToolDefinitionError, match="already registered"):
        agent.tool(lambda: "y", name="t")


async def test_negative_correction_turns_are_refused() -> None:
    with pytest.raises(ValueError, match="max_correction_turns"):
        await Agent(ScriptedProvider([])).run("x", output_type=Person, max_correction_turns=-1)


class NativeProvider(FunctionProvider):
    supports_native_output = True


async def test_native_output_sends_the_schema_instead_of_the_hidden_tool() -> None:
    provider = NativeProvider(lambda request: Message.assistant('{"name": "Ada", "age": 36}'))
    result = await Agent(provider).run("Who?", output_type=Person, native_structured_output=True)
    assert result.output == Person(name="Ada", age=36)
    request = provider.requests[0]
    assert request.output_schema is not None
    assert request.output_schema.schema["required"] == ["name", "age"]
    assert STRUCTURED_OUTPUT_TOOL not in offered(request)


async def test_native_output_falls_back_to_the_hidden_tool_once_when_unusable() -> None:
    replies = iter([Message.assistant("not json at all"), answer("1", name="Ada", age=36)])
    provider = NativeProvider(lambda request: next(replies))
    result = await Agent(provider).run("Who?", output_type=Person, native_structured_output=True)
    assert result.output == Person(name="Ada", age=36)
    fallback = provider.requests[1]
    assert fallback.output_schema is None
    assert STRUCTURED_OUTPUT_TOOL in offered(fallback)


async def test_native_output_on_a_provider_without_it_uses_the_hidden_tool() -> None:
    provider = ScriptedProvider([answer("1", name="Ada", age=36)])
    result = await Agent(provider).run("Who?", output_type=Person, native_structured_output=True)
    assert result.output == Person(name="Ada", age=36)
    assert provider.requests[0].output_schema is None
    assert STRUCTURED_OUTPUT_TOOL in offered(provider.requests[0])


async def test_a_typed_run_answered_through_the_tool_ends_its_turn() -> None:
    provider = ScriptedProvider([answer("1", name="Ada", age=36)])
    result = await Agent(provider).run("Who?", output_type=Person)
    assert result.stop_reason is StopReason.END_TURN
    assert result.raw_stop_reason == "tool_use"  # what the provider itself said


class Address(BaseModel):
    city: str


class Customer(BaseModel):
    name: str
    address: Address


class Draft(BaseModel):
    title: str
    notes: str = ""


def test_output_schemas_are_closed_so_strict_modes_can_use_them() -> None:
    from automata.core._structured import StructuredOutput

    output = StructuredOutput(Customer)
    assert output.schema["additionalProperties"] is False
    assert output.schema["$defs"]["Address"]["additionalProperties"] is False
    assert output.output_schema.strict_compatible


def test_an_optional_field_keeps_a_schema_out_of_strict_mode() -> None:
    from automata.core._structured import StructuredOutput

    assert not StructuredOutput(Draft).output_schema.strict_compatible
