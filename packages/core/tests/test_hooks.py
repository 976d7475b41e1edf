"""Pre-send and post-run hooks."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from automata.core import (
    Agent,
    Hook,
    HookError,
    MaxStepsError,
    Message,
    ModelRequest,
    RunResult,
    StopReason,
    post_run,
    pre_send,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


async def test_pre_send_hooks_change_what_is_sent_never_the_transcript() -> None:
    """L39."""

    async def redact(request: ModelRequest) -> ModelRequest:
        messages = tuple(
            Message.user(m.text.replace("secret", "[redacted]")) if m.role == "user" else m
            for m in request.messages
        )
        return dataclasses.replace(request, messages=messages)

    provider = ScriptedProvider([Message.assistant("ok")])
    session = Agent(provider, hooks=[pre_send(redact)]).session()
    await session.run("the secret is 42")
    assert provider.requests[0].messages[-1].text == "the [redacted] is 42"
    assert session.messages[0].text == "the secret is 42"


async def test_pre_send_hooks_run_in_order_before_every_provider_call() -> None:
    """L39."""
    order: list[str] = []

    def tagger(tag: str) -> Hook:
        async def hook(request: ModelRequest) -> ModelRequest:
            order.append(tag)
            return request

        return pre_send(hook)

    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t")), Message.assistant("ok")]),
        hooks=[tagger("a"), tagger("b")],
    )
    agent.tool(lambda: "ok", name="t")
    await agent.run("go")
    assert order == ["a", "b", "a", "b"]


class Recorder(Hook):
    def __init__(self, name: str, log: list[tuple[str, Any, Any]]) -> None:
        self.name = name
        self.log = log

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        self.log.append((self.name, result, error))


async def test_post_run_hooks_run_in_order_after_a_successful_run() -> None:
    """L40."""
    log: list[tuple[str, Any, Any]] = []
    agent = Agent(ScriptedProvider([Message.assistant("ok")]), hooks=[Recorder("a", log)])
    await agent.run("go", hooks=[Recorder("b", log)])
    assert [(name, r.output, e) for name, r, e in log] == [("a", "ok", None), ("b", "ok", None)]


async def test_post_run_hooks_see_the_committed_transcript_of_a_failed_run() -> None:
    """L40 and L10."""
    log: list[tuple[str, Any, Any]] = []
    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t"))]),
        max_steps=1,
        hooks=[Recorder("a", log)],
    )
    agent.tool(lambda: "ok", name="t")
    session = agent.session()
    with pytest.raises(MaxStepsError):
        await session.run("go")
    (_, result, error) = log[0]
    assert isinstance(error, MaxStepsError)
    assert result.messages == tuple(session.messages)
    assert tool_results(result.messages) == [("1", "ok", False)]


async def test_post_run_hooks_finish_even_when_the_run_is_cancelled() -> None:
    """L40 and L41."""
    written: list[tuple[StopReason, int]] = []
    started = asyncio.Event()

    async def checkpoint(result: RunResult[Any], error: BaseException | None) -> None:
        await asyncio.sleep(0.01)  # a write that needs the loop, despite the cancellation
        written.append((result.stop_reason, len(result.messages)))

    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "wait"))]), hooks=[post_run(checkpoint)]
    )

    @agent.tool
    async def wait() -> str:
        started.set()
        await asyncio.sleep(60)
        return "never"

    task = asyncio.create_task(agent.run("go"))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert written == [(StopReason.CANCELLED, 3)]


async def test_a_failing_hook_after_success_raises_hook_error_keeping_the_result() -> None:
    """L42."""

    async def broken(result: RunResult[Any], error: BaseException | None) -> None:
        raise OSError("disk full")

    log: list[tuple[str, Any, Any]] = []
    agent = Agent(
        ScriptedProvider([Message.assistant("ok")]),
        hooks=[post_run(broken), Recorder("after", log)],
    )
    with pytest.raises(HookError, match="disk full") as caught:
        await agent.run("go")
    assert caught.value.result is not None
    assert caught.value.result.output == "ok"
    assert isinstance(caught.value.errors[0], OSError)
    assert [name for name, _, _ in log] == ["after"]  # later hooks still ran


async def test_hook_errors_are_raised_together_with_the_runs_error() -> None:
    """L42."""

    async def broken(result: RunResult[Any], error: BaseException | None) -> None:
        raise OSError("disk full")

    agent = Agent(
        ScriptedProvider([tool_calls(tool_call("1", "t"))]), max_steps=1, hooks=[post_run(broken)]
    )
    agent.tool(lambda: "ok", name="t")
    with pytest.raises(ExceptionGroup) as caught:
        await agent.run("go")
    run_error, hook_error = caught.value.exceptions
    assert isinstance(run_error, MaxStepsError)
    assert run_error.result is not None
    assert isinstance(hook_error, OSError)
