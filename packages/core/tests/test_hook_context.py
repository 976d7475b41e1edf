"""Hooks and tools in context: hooks that ask for the run's `RunContext` get it, and a
tool sees how often it has asked the model to try again (docs/loop.md, L86-L87)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from automata.core import (
    Agent,
    Hook,
    Message,
    ModelRequest,
    ModelRetry,
    RunContext,
    RunResult,
    ToolContext,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


@dataclass(frozen=True)
class User:
    name: str


class Audit(Hook):
    """Records the context each method was given."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any, str]] = []

    async def before_send(
        self, request: ModelRequest, *, context: RunContext[Any] | None = None
    ) -> ModelRequest:
        assert context is not None
        self.seen.append(("before_send", context.deps, context.agent))
        return request

    async def after_run(
        self,
        result: RunResult[Any],
        error: BaseException | None,
        context: RunContext[Any] | None = None,
    ) -> None:
        assert context is not None
        assert context.invocation_id == result.invocation_id
        self.seen.append(("after_run", context.deps, context.agent))


class Plain(Hook):
    """A hook written without the context keyword."""

    def __init__(self) -> None:
        self.calls = 0

    async def before_send(self, request: ModelRequest) -> ModelRequest:
        self.calls += 1
        return request

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        self.calls += 1


async def test_hooks_that_declare_context_see_the_runs_deps() -> None:
    """L86: `context=` is given to hooks that declare it (before every call and after
    the run, agent hooks and per-run hooks alike); others are called as before."""
    audit, plain, per_run = Audit(), Plain(), Audit()
    agent = Agent(ScriptedProvider(["hi"]), name="desk", deps_type=User, hooks=[audit, plain])
    await agent.run("hello", deps=User("ada"), hooks=[per_run])
    expected = [("before_send", User("ada"), "desk"), ("after_run", User("ada"), "desk")]
    assert audit.seen == expected
    assert per_run.seen == expected
    assert plain.calls == 2


async def test_a_tool_sees_how_many_retries_it_has_had() -> None:
    """L87: `ToolContext.retries` counts this tool's `ModelRetry`s so far in the run."""
    seen: list[int] = []
    script: list[str | Message] = [
        tool_calls(tool_call("c1", "pick", n=1)),
        tool_calls(tool_call("c2", "pick", n=2)),
        tool_calls(tool_call("c3", "pick", n=3)),
        "done",
    ]
    agent = Agent(ScriptedProvider(script))

    @agent.tool(retries=2)
    def pick(ctx: ToolContext, n: int) -> str:
        """Pick a number."""
        seen.append(ctx.retries)
        if n < 3:
            raise ModelRetry("higher")
        return "ok"

    result = await agent.run("pick")
    assert seen == [0, 1, 2]
    assert tool_results(result.messages)[-1] == ("c3", "ok", False)
