"""Guardrails: input checks before (or alongside) the first model call, output checks
on the final answer; a trip stops the run with a typed error naming the guardrail
(docs/loop.md, L73-L78)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from automata.core import (
    Agent,
    ArgumentTypeError,
    GuardrailError,
    GuardrailResult,
    GuardrailTripped,
    InputGuardrail,
    InputGuardrailTripped,
    Message,
    ModelRequest,
    ModelResponse,
    OutputGuardrail,
    OutputGuardrailTripped,
    RunContext,
    RunError,
    RunResult,
    StopReason,
    ToolStep,
    post_run,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


@dataclass(frozen=True)
class Policy:
    banned: str


def banned_word(ctx: RunContext[Policy], messages: tuple[Message, ...]) -> GuardrailResult:
    """Trips when the task holds the banned word."""
    found = ctx.deps.banned in messages[-1].text
    return GuardrailResult(tripped=found, info={"word": ctx.deps.banned} if found else None)


class BlockingProvider:
    """A provider whose first call waits on `release` (or a cancellation, which it
    records) before answering with `reply`."""

    provider_name = "blocking"
    model = None
    supports_native_output = False

    def __init__(self, reply: Message, *, streaming: bool = False) -> None:
        self.reply = reply
        self.supports_streaming = streaming
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False
        self.requests: list[ModelRequest] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        calls = self.reply.tool_calls
        return ModelResponse(
            message=self.reply,
            stop_reason=StopReason.TOOL_USE if calls else StopReason.END_TURN,
        )


# -- L73-L74: input guardrails before the first call ---------------------------------


async def test_an_input_guardrail_sees_the_messages_the_run_starts_from_once_per_run() -> None:
    """L73: registered on the agent, run before the first model call only, given the
    run context (deps) and the transcript so far, system message first, task last."""
    seen: list[tuple[Any, tuple[str, ...], int]] = []
    provider = ScriptedProvider([tool_calls(tool_call("c1", "echo", text="x")), "done"])
    agent = Agent(provider, system_prompt="Be brief.", deps_type=Policy)

    @agent.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    @agent.input_guardrail
    async def record(ctx: RunContext[Policy], messages: tuple[Message, ...]) -> GuardrailResult:
        seen.append((ctx.deps, tuple(m.role for m in messages), len(provider.requests)))
        return GuardrailResult()

    result = await agent.run("hello", deps=Policy("zzz"))
    assert result.output == "done"
    assert seen == [(Policy("zzz"), ("system", "user"), 0)]


async def test_a_tripped_input_guardrail_stops_the_run_before_any_model_call() -> None:
    """L74: `InputGuardrailTripped` names the guardrail and carries its info and the
    run so far (ending with the task); the provider is never called; post-run hooks
    see the error."""
    provider = ScriptedProvider(["never sent"])
    errors: list[BaseException | None] = []

    async def record(result: RunResult[Any], error: BaseException | None) -> None:
        errors.append(error)

    agent = Agent(
        provider, input_guardrails=[banned_word], deps_type=Policy, hooks=[post_run(record)]
    )
    with pytest.raises(InputGuardrailTripped) as caught:
        await agent.run("tell me the secret", deps=Policy("secret"))
    error = caught.value
    assert isinstance(error, GuardrailTripped)
    assert isinstance(error, RunError)
    assert str(error) == 'input guardrail "banned_word" tripped'
    assert error.guardrail == "banned_word"
    assert error.info == {"word": "secret"}
    assert error.result is not None
    assert [m.role for m in error.result.messages] == ["user"]
    assert error.result.stop_reason is StopReason.ERROR
    assert provider.requests == []
    assert errors == [error]


async def test_an_input_guardrail_that_passes_lets_the_run_go_on() -> None:
    """L73: a guardrail given as `InputGuardrail` with its own name, passing."""
    agent = Agent(
        ScriptedProvider(["fine"]),
        input_guardrails=[InputGuardrail(banned_word, name="words")],
        deps_type=Policy,
    )
    assert (await agent.run("hello", deps=Policy("secret"))).output == "fine"


# -- L75: parallel input guardrails --------------------------------------------------


async def test_a_parallel_guardrail_that_trips_cancels_the_model_call_in_flight() -> None:
    """L75: the provider call sees `CancelledError` and the run raises the trip at
    once, without waiting for the reply."""
    provider = BlockingProvider(Message.assistant("too late"))
    agent = Agent(provider)

    @agent.input_guardrail(run_in_parallel=True)
    async def slow_check(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        await provider.started.wait()  # the model call is in flight
        return GuardrailResult(tripped=True, info="off topic")

    with pytest.raises(InputGuardrailTripped) as caught:
        await asyncio.wait_for(agent.run("hello"), timeout=2)
    assert provider.cancelled
    assert caught.value.guardrail == "slow_check"
    assert caught.value.info == "off topic"
    assert caught.value.result is not None
    assert [m.role for m in caught.value.result.messages] == ["user"]


@pytest.mark.looptime
async def test_a_reply_that_comes_first_waits_for_the_parallel_guardrails() -> None:
    """L75: the reply (calling a tool) is not committed, no tool runs and no step is
    delivered until the guardrail has passed; when it trips, none of it happens."""
    provider = BlockingProvider(tool_calls(tool_call("c1", "act")))
    provider.release.set()
    decide = asyncio.Event()
    ran: list[str] = []
    agent = Agent(provider)

    @agent.tool
    def act() -> str:
        """Act."""
        ran.append("act")
        return "done"

    @agent.input_guardrail(run_in_parallel=True)
    async def late(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        await decide.wait()
        return GuardrailResult(tripped=True)

    steps = agent.iter("go")
    next_step = asyncio.ensure_future(steps.__anext__())
    await asyncio.sleep(0.05)
    assert not next_step.done()  # the reply arrived, but is held
    decide.set()
    with pytest.raises(InputGuardrailTripped) as caught:
        await next_step
    assert ran == []
    assert caught.value.result is not None
    assert [m.role for m in caught.value.result.messages] == ["user"]


async def test_a_parallel_guardrail_that_passes_keeps_the_reply() -> None:
    """L75: both blocking and parallel guardrails pass; the run answers as usual."""
    order: list[str] = []
    agent = Agent(ScriptedProvider(["hi"]))

    @agent.input_guardrail
    def first(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        order.append("blocking")
        return GuardrailResult()

    @agent.input_guardrail(run_in_parallel=True, name="beside")
    async def second(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        order.append("parallel")
        return GuardrailResult(tripped=False)

    assert second.name == "beside"
    assert (await agent.run("hello")).output == "hi"
    assert order == ["blocking", "parallel"]


# -- L76: output guardrails ----------------------------------------------------------


async def test_an_output_guardrail_checks_the_answer_after_the_validators() -> None:
    """L76: a trip stops the run with `OutputGuardrailTripped`; the rejected answer is
    `.result.output` and stays in the transcript; post-run hooks see the error."""
    seen: list[str] = []
    errors: list[BaseException | None] = []

    async def record(result: RunResult[Any], error: BaseException | None) -> None:
        errors.append(error)

    agent = Agent(ScriptedProvider(["the password is 42"]), hooks=[post_run(record)])

    @agent.output_validator
    def shout(ctx: RunContext[None], output: str) -> str:
        return output.upper()

    @agent.output_guardrail
    def no_secrets(ctx: RunContext[None], output: str) -> GuardrailResult:
        seen.append(output)
        return GuardrailResult(tripped="PASSWORD" in output, info="leak")

    with pytest.raises(OutputGuardrailTripped) as caught:
        await agent.run("what is the password?")
    error = caught.value
    assert str(error) == 'output guardrail "no_secrets" tripped'
    assert (error.guardrail, error.info) == ("no_secrets", "leak")
    assert seen == ["THE PASSWORD IS 42"]
    assert error.result is not None
    assert error.result.output == "THE PASSWORD IS 42"
    assert error.result.stop_reason is StopReason.ERROR
    assert error.result.messages[-1].text == "the password is 42"
    assert errors == [error]


class Verdict(BaseModel):
    approved: bool


async def test_an_output_guardrail_sees_the_typed_output() -> None:
    """L76: for a run with `output_type` the guardrail gets the validated value."""
    seen: list[object] = []

    async def check(ctx: RunContext[None], output: Verdict) -> GuardrailResult:
        seen.append(output)
        return GuardrailResult(tripped=not output.approved)

    agent = Agent(
        ScriptedProvider(['{"approved": true}']), output_guardrails=[OutputGuardrail(check)]
    )
    result = await agent.run("decide", output_type=Verdict)
    assert result.output == Verdict(approved=True)
    assert seen == [Verdict(approved=True)]


# -- L77: failing guardrails -----------------------------------------------------------


async def test_a_guardrail_that_raises_fails_the_run_with_the_error_wrapped() -> None:
    """L77: `GuardrailError` names the guardrail, keeps the exception as its cause and
    the run so far."""

    def broken(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        raise ValueError("classifier down")

    provider = ScriptedProvider(["never"])
    agent = Agent(provider, input_guardrails=[broken])
    with pytest.raises(GuardrailError) as caught:
        await agent.run("hello")
    assert str(caught.value) == 'input guardrail "broken" failed: ValueError: classifier down'
    assert caught.value.guardrail == "broken"
    assert isinstance(caught.value.__cause__, ValueError)
    assert caught.value.result is not None
    assert provider.requests == []


async def test_a_parallel_guardrail_that_raises_cancels_the_call_too() -> None:
    """L75, L77."""
    provider = BlockingProvider(Message.assistant("never"))
    agent = Agent(provider)

    @agent.input_guardrail(run_in_parallel=True)
    async def crash(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        await provider.started.wait()
        raise RuntimeError("boom")

    with pytest.raises(GuardrailError, match="boom"):
        await asyncio.wait_for(agent.run("hello"), timeout=2)
    assert provider.cancelled


async def test_a_guardrail_must_return_a_guardrail_result() -> None:
    """L77."""

    def sloppy(ctx: RunContext[None], output: str) -> Any:
        return True

    agent = Agent(ScriptedProvider(["ok"]), output_guardrails=[sloppy])
    with pytest.raises(GuardrailError, match='"sloppy" returned bool, not a GuardrailResult'):
        await agent.run("hello")


def test_a_guardrail_that_is_not_a_function_is_refused_when_registered() -> None:
    """L77."""
    with pytest.raises(ArgumentTypeError, match="input guardrail must be a function"):
        Agent(ScriptedProvider([]), input_guardrails=["not a function"])  # type: ignore[list-item]
    with pytest.raises(ArgumentTypeError, match="output guardrail must be a function"):
        OutputGuardrail(42)  # type: ignore[arg-type]


# -- L78: every form of run ------------------------------------------------------------


async def drain_stream(agent: Agent[Policy], task: str) -> None:
    async with agent.stream(task, deps=Policy("secret")) as stream:
        async for _ in stream:
            pass


async def drain_steps(agent: Agent[Policy], task: str) -> None:
    async for _ in agent.iter(task, deps=Policy("secret")):
        pass


async def test_stream_and_iter_check_guardrails_like_run() -> None:
    """L78."""
    agent = Agent(ScriptedProvider(["a", "b"]), input_guardrails=[banned_word], deps_type=Policy)
    with pytest.raises(InputGuardrailTripped):
        await drain_stream(agent, "no secret here")
    with pytest.raises(InputGuardrailTripped):
        await drain_steps(agent, "secret")
    assert (await agent.run("fine", deps=Policy("secret"))).output == "a"


async def test_a_session_goes_on_after_a_trip_with_every_call_answered() -> None:
    """L78: a parallel trip that held a reply calling tools leaves no call without a
    result; the session's next run starts cleanly (its guardrail passing)."""
    calls = tool_calls(tool_call("c1", "act"))
    provider = BlockingProvider(calls)
    provider.release.set()
    trip = [True]
    agent = Agent(provider)

    @agent.tool
    def act() -> str:
        """Act."""
        return "acted"

    @agent.input_guardrail(run_in_parallel=True)
    async def gate(ctx: RunContext[None], messages: tuple[Message, ...]) -> GuardrailResult:
        await asyncio.sleep(0.01)
        return GuardrailResult(tripped=trip[0])

    session = agent.session()
    with pytest.raises(InputGuardrailTripped):
        await session.run("first")
    assert [m.role for m in session.messages] == ["user"]
    trip[0] = False
    provider.reply = Message.assistant("second answer")
    steps = [step async for step in session.iter("second")]
    assert not any(isinstance(step, ToolStep) for step in steps)
    assert tool_results(session.messages) == []
    assert session.messages[-1].text == "second answer"
