"""The final answer is checked as a stage of the run's one loop (L94): a rejected
answer is corrected in place, within the run's limits, and every committed attempt is
a checkpoint for post-run hooks."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from automata.core import (
    STRUCTURED_OUTPUT_TOOL,
    Agent,
    Hook,
    HookError,
    MaxStepsError,
    Message,
    ModelResponse,
    ModelRetry,
    ModelStep,
    RunContext,
    RunResult,
    StopReason,
    Usage,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


class Person(BaseModel):
    name: str
    age: int


class Checkpoints(Hook):
    """What each post-run call saw: transcript length, steps, usage, output, error."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int, Usage, object, str | None]] = []

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        self.seen.append(
            (
                len(result.messages),
                result.steps,
                result.usage,
                result.output,
                None if error is None else type(error).__name__,
            )
        )


def capitals_only(ctx: RunContext[None], text: str) -> str:
    if text != text.upper():
        raise ModelRetry("in capitals, please")
    return text


async def test_corrections_are_steps_of_one_run_numbered_on_and_checkpointed() -> None:
    """L94: two validator corrections: the model steps are numbered 1, 2, 3, usage adds
    up over them, and each post-run call sees the run so far, the last the answer."""
    usage = Usage(input_tokens=5, output_tokens=1)
    provider = ScriptedProvider(
        [ModelResponse(Message.assistant(text), StopReason.END_TURN, usage) for text in "abC"]
        + [ModelResponse(Message.assistant("DONE"), StopReason.END_TURN, usage)]
    )
    checkpoints = Checkpoints()
    agent = Agent(provider, hooks=[checkpoints])
    async with agent.iter("go", output_validators=[capitals_only], max_correction_turns=2) as steps:
        numbers = [step.step async for step in steps if isinstance(step, ModelStep)]
    assert numbers == [1, 2, 3]
    assert steps.result.output == "C"
    assert (steps.result.steps, steps.result.usage) == (3, usage + usage + usage)
    assert [message.role for message in steps.result.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert checkpoints.seen == [
        (2, 1, usage, "a", None),
        (4, 2, usage + usage, "b", None),
        (6, 3, usage + usage + usage, "C", None),
    ]


async def test_one_max_steps_bounds_the_whole_run_corrections_included() -> None:
    """L94: with max_steps=2 a run whose answer is still rejected after two provider
    calls stops there, though correction turns are left."""
    provider = ScriptedProvider([Message.assistant(text) for text in "abcdef"])
    agent = Agent(provider, max_steps=2)
    with pytest.raises(MaxStepsError) as caught:
        await agent.run("go", output_validators=[capitals_only], max_correction_turns=5)
    assert str(caught.value) == "run stopped after max_steps=2 with its answer not yet accepted"
    assert len(provider.requests) == 2
    assert caught.value.result is not None
    assert caught.value.result.steps == 2
    assert caught.value.result.stop_reason is StopReason.MAX_STEPS


async def test_a_typed_runs_corrections_share_the_runs_max_steps() -> None:
    """L94: a typed run needing a correction, given max_steps=1, stops after its one
    provider call instead of taking a second."""
    provider = ScriptedProvider(
        [
            tool_calls(tool_call("1", STRUCTURED_OUTPUT_TOOL, name="Ada")),
            tool_calls(tool_call("2", STRUCTURED_OUTPUT_TOOL, name="Ada", age=36)),
        ]
    )
    with pytest.raises(MaxStepsError):
        await Agent(provider, max_steps=1).run("Who?", output_type=Person)
    assert len(provider.requests) == 1


async def test_a_hook_failing_at_a_rejected_answer_fails_the_run_and_is_called_once() -> None:
    """L94: a post-run hook that raises at a checkpoint fails the run with `HookError`
    carrying the run so far; the hooks are not called again for the same failure."""
    calls: list[int] = []

    class Broken(Hook):
        async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
            calls.append(len(result.messages))
            raise RuntimeError("checkpoint store down")

    provider = ScriptedProvider([Message.assistant("a"), Message.assistant("B")])
    agent = Agent(provider, hooks=[Broken()])
    with pytest.raises(HookError) as caught:
        await agent.run("go", output_validators=[capitals_only])
    assert calls == [2]
    assert caught.value.result is not None
    assert caught.value.result.output == "a"
    assert len(provider.requests) == 1
