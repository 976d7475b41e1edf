"""Model graders: opt-in, scored per dimension, never failing a trial or entering the
total; their agreement with gold scores."""

from __future__ import annotations

from automata.core import STRUCTURED_OUTPUT_TOOL, Agent, Message, ModelRequest
from automata.core.testing import FunctionProvider, Reply, ScriptedProvider, tool_call, tool_calls
from automata.eval import (
    AgentFactory,
    Case,
    Judge,
    JudgeDimension,
    JudgeScore,
    TrialContext,
    evaluate,
    judge_agreement,
)

CASE = Case(
    name="essay",
    task="Explain tides in two sentences.",
    judge=(
        JudgeDimension(name="accuracy", rubric="Physically correct", gold=4),
        JudgeDimension(name="brevity", rubric="Two sentences at most", gold=5),
    ),
)


def verdict(score: int, why: str = "ok") -> Message:
    return tool_calls(tool_call("v", STRUCTURED_OUTPUT_TOOL, score=score, rationale=why))


def answering(text: str) -> dict[str, AgentFactory]:
    return {"default": lambda ctx: Agent(ScriptedProvider([text]))}


async def test_the_judge_scores_each_dimension_from_the_task_rubric_and_answer() -> None:
    """E12: one typed run per dimension, seeing the task, the rubric and the answer."""
    prompts: list[str] = []

    def grade(request: ModelRequest) -> Reply:
        prompt = request.messages[-1].text
        prompts.append(prompt)
        return verdict(5 if "Two sentences" in prompt else 2, "because")

    judge = Judge(Agent(FunctionProvider(grade)), model="judge-model")
    report = await evaluate([CASE], answering("The moon pulls water."), trials=1, judge=judge)
    [trial] = report.cases[0].trials
    assert [(s.dimension, s.score, s.gold, s.rationale) for s in trial.judge] == [
        ("accuracy", 2, 4, "because"),
        ("brevity", 5, 5, "because"),
    ]
    assert all("Explain tides" in p and "The moon pulls water." in p for p in prompts)
    assert report.judge_model == "judge-model"


async def test_judge_scores_never_fail_a_trial_nor_move_the_total() -> None:
    """E12: a poor score leaves the trial passed and the scorecard as without a judge
    (here the judge is given as a bare provider)."""
    judge = ScriptedProvider([verdict(1), verdict(1)])
    judged = await evaluate([CASE], answering("Tides."), trials=1, judge=judge)
    plain = await evaluate([CASE], answering("Tides."), trials=1)
    assert judged.cases[0].passed
    assert [s.score for s in judged.cases[0].trials[0].judge] == [1, 1]
    assert judged.scorecard.total == plain.scorecard.total
    assert plain.cases[0].trials[0].judge == ()


async def test_a_failing_judge_is_recorded_as_unknown_never_raised() -> None:
    """E12: judge errors give score 0 with the error as rationale."""
    judge = Agent(ScriptedProvider([RuntimeError("judge offline"), verdict(4)]))
    report = await evaluate([CASE], answering("Tides."), trials=1, judge=judge)
    [trial] = report.cases[0].trials
    assert trial.passed
    first, second = trial.judge
    assert first.score == 0
    assert "judge offline" in first.rationale
    assert second.score == 4


async def test_a_trial_without_an_answer_is_not_judged() -> None:
    """E12: nothing to judge gives 0 on every dimension, without calling the judge."""
    judge_provider = ScriptedProvider([])

    def broken(ctx: TrialContext) -> Agent[None]:
        raise RuntimeError("no agent")

    report = await evaluate([CASE], {"default": broken}, trials=1, judge=Agent(judge_provider))
    assert [s.score for s in report.cases[0].trials[0].judge] == [0, 0]
    assert judge_provider.requests == []


def test_agreement_counts_dimensions_within_one_point_of_gold() -> None:
    """E13: unknown (0) and gold-less dimensions are skipped."""
    scores = [
        JudgeScore(dimension="a", score=4, gold=5),
        JudgeScore(dimension="b", score=3, gold=5),
        JudgeScore(dimension="c", score=0, gold=5),
        JudgeScore(dimension="d", score=1, gold=None),
        JudgeScore(dimension="e", score=2, gold=1),
    ]
    assert judge_agreement(scores) == 2 / 3
    assert judge_agreement(scores[2:4]) is None
    assert judge_agreement([]) is None


async def test_the_report_carries_the_judge_agreement() -> None:
    """E13: RunReport.judge_agreement over every judged trial."""
    judge = Agent(ScriptedProvider([verdict(4), verdict(2)]))
    report = await evaluate([CASE], answering("Tides."), trials=1, judge=judge)
    assert report.judge_agreement == 0.5
    assert (await evaluate([CASE], answering("Tides."), trials=1)).judge_agreement is None
