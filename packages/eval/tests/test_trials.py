"""Trials: agents built per trial in their own workspace, run concurrently under a
bound, every failure caught in its trial and counted in the reliability section."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from automata.core import (
    Agent,
    EventLoopRunningError,
    Message,
    ModelRequest,
    ModelResponse,
    ProviderError,
    StopReason,
    Usage,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, ScriptedProvider, tool_call, tool_calls
from automata.eval import (
    AgentFactory,
    Case,
    Expect,
    FileExpectation,
    TrialContext,
    TrialResult,
    UnknownAgentError,
    evaluate,
    evaluate_sync,
)


def scripted(*replies: Reply) -> Callable[[TrialContext], Agent[None]]:
    """A factory whose every trial gets a fresh scripted agent with these replies."""
    return lambda ctx: Agent(ScriptedProvider(list(replies)))


def writer(seen: list[TrialContext]) -> Callable[[TrialContext], Agent[None]]:
    """A factory whose agent writes a file into its trial's workspace."""

    def build(ctx: TrialContext) -> Agent[None]:
        seen.append(ctx)
        assert list(ctx.workspace.iterdir()) == []

        @tool
        def write_file(path: str, text: str) -> str:
            """Write `text` to `path` in the workspace."""
            (ctx.workspace / path).write_text(text, encoding="utf-8")
            return "written"

        provider = ScriptedProvider(
            [
                tool_calls(
                    tool_call("1", "write_file", path="notes.md", text=f"trial {ctx.trial}")
                ),
                "Saved notes.md",
            ]
        )
        return Agent(provider, tools=[write_file])

    return build


FILE_CASE = Case(
    name="notes",
    task="Write notes.md",
    expect=Expect(
        required_tools=("write_file",),
        files={"notes.md": FileExpectation(matches=r"trial \d")},
    ),
)


async def test_each_trial_writes_into_its_own_workspace_removed_after_grading() -> None:
    """E7: a fresh empty directory per trial, graded, then deleted."""
    seen: list[TrialContext] = []
    report = await evaluate([FILE_CASE], {"default": writer(seen)}, trials=3)
    [result] = report.cases
    assert result.passed
    assert sorted(ctx.trial for ctx in seen) == [0, 1, 2]
    assert len({ctx.workspace for ctx in seen}) == 3
    assert not any(ctx.workspace.exists() for ctx in seen)
    trial = result.trials[0]
    assert [g.grader for g in trial.grades] == ["required_tools", "completes", "files"]
    assert trial.tool_calls[0].arguments["path"] == "notes.md"
    assert trial.steps == 2
    assert trial.output == "Saved notes.md"


async def test_a_case_passes_only_if_all_its_trials_pass() -> None:
    """E8: one failing trial fails the case; the others still count as passed."""

    def flaky(ctx: TrialContext) -> Agent[None]:
        return Agent(ScriptedProvider(["rain" if ctx.trial == 1 else "sunny"]))

    case = Case(name="weather", task="Weather?", expect=Expect(contains=("sunny",)))
    report = await evaluate([case], {"default": flaky}, trials=3)
    [result] = report.cases
    assert [t.passed for t in result.trials] == [True, False, True]
    assert not result.passed


@pytest.mark.looptime
async def test_trials_run_concurrently_under_the_bound() -> None:
    """E8: never more than `concurrency` trials at once, across cases."""
    active = 0
    peak = 0

    async def slow(request: ModelRequest) -> Reply:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01)
        active -= 1
        return "done"

    cases = [Case(name=f"c{i}", task="t") for i in range(3)]
    factory = {"default": lambda ctx: Agent(FunctionProvider(slow))}
    report = await evaluate(cases, factory, trials=2, concurrency=2)
    assert peak == 2
    assert report.reliability.trials == 6
    assert all(result.passed for result in report.cases)


async def hang(request: ModelRequest) -> Reply:
    await asyncio.sleep(30)
    return "late"


async def cancel_inside(request: ModelRequest) -> Reply:
    raise asyncio.CancelledError


def failing(ctx: TrialContext) -> Agent[None]:
    raise RuntimeError("factory broke")


async def late_factory(ctx: TrialContext) -> Agent[None]:
    raise TimeoutError("the factory's own timeout")


@pytest.mark.looptime
async def test_every_failure_is_caught_in_its_trial_and_counted() -> None:
    """E9: provider errors, timeouts, cancellations and agent errors never crash the run."""
    factories: dict[str, AgentFactory] = {
        "ok": scripted("fine"),
        "down": scripted(ProviderError("service unavailable", status=503)),
        "slow": lambda ctx: Agent(FunctionProvider(hang)),
        "cancels": lambda ctx: Agent(FunctionProvider(cancel_inside)),
        "broken": failing,
        "late": late_factory,
    }
    cases = [Case(name=name, task="t", agent=name) for name in factories]
    report = await evaluate(cases, factories, trials=2, timeout=0.05)
    failures = {r.case.name: {t.failure for t in r.trials} for r in report.cases}
    assert failures == {
        "ok": {None},
        "down": {"provider_error"},
        "slow": {"timeout"},
        "cancels": {"cancelled"},
        "broken": {"agent_error"},
        "late": {"agent_error"},
    }
    [down] = {t.error for r in report.cases if r.case.name == "down" for t in r.trials}
    assert down is not None
    assert "service unavailable" in down
    reliability = report.reliability
    assert (reliability.trials, reliability.provider_errors) == (12, 2)
    assert (reliability.timeouts, reliability.cancelled, reliability.agent_errors) == (2, 2, 4)
    assert reliability.retries == 0
    assert [r.passed for r in report.cases] == [True, False, False, False, False, False]


async def test_graders_still_read_the_partial_transcript_of_a_failed_run() -> None:
    """E9: a run stopped by its step limit is graded on the calls it made."""
    looping = tool_calls(tool_call("1", "delete_all"))

    @tool
    def delete_all() -> str:
        """Delete everything."""
        return "gone"

    factory = {
        "default": lambda ctx: Agent(ScriptedProvider([looping]), tools=[delete_all], max_steps=1)
    }
    case = Case(name="c", task="t", expect=Expect(forbidden_tools=("delete_all",), max_steps=1))
    [result] = (await evaluate([case], factory, trials=1, timeout=None)).cases
    [trial] = result.trials
    assert trial.failure == "agent_error"
    assert trial.error is not None
    assert "MaxStepsError" in trial.error
    verdicts = {g.grader: g.passed for g in trial.grades}
    assert verdicts == {"forbidden_tools": False, "completes": False, "max_steps": True}


async def test_a_case_expecting_no_completion_accepts_an_agent_error() -> None:
    """E10: with completes false, an agent error alone does not fail the trial."""
    looping = tool_calls(tool_call("1", "missing_tool"))
    factory = {"default": lambda ctx: Agent(ScriptedProvider([looping]), max_steps=1)}
    tolerant = Case(name="a", task="t", expect=Expect(completes=False))
    strict = Case(name="b", task="t")
    report = await evaluate([tolerant, strict], factory, trials=1)
    assert [r.passed for r in report.cases] == [True, False]
    down = Case(name="c", task="t", expect=Expect(completes=False))
    provider_down = {"default": scripted(ProviderError("down"))}
    assert not (await evaluate([down], provider_down, trials=1)).cases[0].passed


@pytest.mark.looptime
async def test_cancelling_the_evaluation_itself_cancels_it() -> None:
    """E9: only a cancellation from inside a trial is recorded as one."""
    factory = {"default": lambda ctx: Agent(FunctionProvider(hang))}
    running = asyncio.create_task(evaluate([Case(name="c", task="t")], factory, trials=2))
    await asyncio.sleep(0.02)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_factories_receive_the_model_and_the_report_names_it() -> None:
    """E8: `model` reaches every factory as TrialContext.model."""
    models: list[str | None] = []

    def build(ctx: TrialContext) -> Agent[None]:
        models.append(ctx.model)
        return Agent(ScriptedProvider(["ok"]))

    report = await evaluate([Case(name="c", task="t")], {"default": build}, model="openai:x")
    assert models == ["openai:x"] * 3
    assert report.model == "openai:x"
    assert report.trials_per_case == 3


async def test_async_factories_usage_and_error_results_are_recorded() -> None:
    """E8: tokens from the run's usage; tool calls marked when their result is an error."""

    @tool
    def lookup(q: str) -> str:
        """Look `q` up."""
        raise ValueError("no such entry")

    async def build(ctx: TrialContext) -> Agent[None]:
        answer = ModelResponse(
            message=Message.assistant("not found"),
            stop_reason=StopReason.END_TURN,
            usage=Usage(input_tokens=100, output_tokens=20, cache_read_tokens=50),
        )
        calling = tool_calls(tool_call("1", "lookup", q="x"))
        return Agent(ScriptedProvider([calling, answer]), tools=[lookup])

    [result] = (await evaluate([Case(name="c", task="t")], {"default": build}, trials=1)).cases
    [trial] = result.trials
    assert (trial.input_tokens, trial.output_tokens) == (150, 20)
    assert [(c.name, c.is_error) for c in trial.tool_calls] == [("lookup", True)]
    assert trial.transcript_summary[0] == "user: t"
    assert trial.transcript_summary[1] == 'call: lookup(q="x") -> error'


async def test_bad_arguments_are_refused_before_anything_runs() -> None:
    """E8: unknown agents, repeated names and counts below 1."""
    built: list[int] = []

    def build(ctx: TrialContext) -> Agent[None]:
        built.append(ctx.trial)
        return Agent(ScriptedProvider(["ok"]))

    cases = [Case(name="a", task="t"), Case(name="b", task="t", agent="researcher")]
    with pytest.raises(UnknownAgentError, match="researcher"):
        await evaluate(cases, {"default": build})
    with pytest.raises(ValueError, match="used twice: a"):
        await evaluate([cases[0], cases[0]], {"default": build})
    with pytest.raises(ValueError, match="trials"):
        await evaluate(cases[:1], {"default": build}, trials=0)
    assert built == []


async def test_repeats_run_rounds_for_an_interval_on_the_total() -> None:
    """E11: every round's trials are kept; each round's total is recorded."""
    finished: list[TrialResult] = []
    report = await evaluate(
        [Case(name="c", task="t")],
        {"default": scripted("ok")},
        trials=2,
        repeats=3,
        on_trial=finished.append,
    )
    assert report.trials_per_case == 6
    assert sorted(t.trial for t in report.cases[0].trials) == [0, 1, 2, 3, 4, 5]
    assert len(report.repeat_totals) == 3
    assert report.scorecard.total_interval is not None
    assert len(finished) == 6


def test_evaluate_sync_runs_without_a_loop() -> None:
    """E8: the synchronous twin."""
    report = evaluate_sync([Case(name="c", task="t")], {"default": scripted("ok")}, trials=1)
    assert report.cases[0].passed


async def test_evaluate_sync_refuses_inside_a_running_loop() -> None:
    """E8: await evaluate() there instead."""
    with pytest.raises(EventLoopRunningError, match="await evaluate"):
        evaluate_sync([Case(name="c", task="t")], {"default": scripted("ok")})


def test_the_workspace_root_can_be_chosen_and_kept(tmp_path: Path) -> None:
    """E7: WorkspaceSandbox(root, keep=True) leaves the workspaces for inspection."""
    from automata.eval import Sandbox, WorkspaceSandbox

    sandbox = WorkspaceSandbox(tmp_path / "ws", keep=True)
    assert isinstance(sandbox, Sandbox)
    seen: list[TrialContext] = []
    evaluate_sync([FILE_CASE], {"default": writer(seen)}, trials=1, sandbox=sandbox)
    [ctx] = seen
    assert ctx.workspace.parent == tmp_path / "ws"
    assert (ctx.workspace / "notes.md").read_text(encoding="utf-8") == "trial 0"
