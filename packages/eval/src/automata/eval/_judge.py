"""Model graders: an agent scores a trial's answer per dimension, 1 to 5 (0: unknown).

Judge scores are information only: they never fail a trial and never enter the total.
A judge that errs yields score 0 with the error as its rationale; it never raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from automata.core import Agent, Provider
from automata.eval._model import Case, JudgeDimension, JudgeScore

__all__ = ["Judge", "JudgeVerdict", "as_judge", "judge_agreement"]


class JudgeVerdict(BaseModel):
    """The typed answer a judge agent gives for one dimension."""

    score: int = Field(ge=0, le=5, description="1 (poor) to 5 (excellent); 0 if unknown")
    rationale: str = Field(default="", description="one or two sentences")


def _prompt(case: Case, dimension: JudgeDimension, answer: str) -> str:
    return (
        "Grade an AI agent's answer on one dimension.\n\n"
        f"Task given to the agent:\n{case.task}\n\n"
        f"Dimension: {dimension.name}\nRubric: {dimension.rubric}\n\n"
        f"The agent's final answer:\n{answer}\n\n"
        "Score it from 1 (poor) to 5 (excellent) against the rubric; give 0 if you "
        "cannot tell. Add a short rationale."
    )


class Judge:
    """Scores answers with `agent` (any automata `Agent`; one typed run per dimension,
    `output_type=JudgeVerdict`). `model` names the judge's model in reports."""

    def __init__(self, agent: Agent[Any], *, model: str | None = None) -> None:
        self.agent = agent
        self.model = model if model is not None else getattr(agent.provider, "model", None)

    async def _one(self, case: Case, dimension: JudgeDimension, answer: str) -> JudgeScore:
        try:
            result = await self.agent.run(
                _prompt(case, dimension, answer), output_type=JudgeVerdict
            )
            verdict = result.output
            return JudgeScore(
                dimension=dimension.name,
                score=verdict.score,
                gold=dimension.gold,
                rationale=verdict.rationale,
            )
        except Exception as error:
            return JudgeScore(
                dimension=dimension.name,
                score=0,
                gold=dimension.gold,
                rationale=f"judge error: {type(error).__name__}: {error}",
            )

    async def score(self, case: Case, answer: str) -> tuple[JudgeScore, ...]:
        """One score per dimension of `case.judge`, in order; 0 for every dimension
        when there is no answer to judge, or for one the judge failed on."""
        if not answer.strip():
            return tuple(
                JudgeScore(dimension=d.name, score=0, gold=d.gold, rationale="no answer")
                for d in case.judge
            )
        return tuple([await self._one(case, dimension, answer) for dimension in case.judge])


def as_judge(judge: Judge | Agent[Any] | Provider | None) -> Judge | None:
    """A `Judge` from a judge, an agent to wrap, or a provider to build an agent on."""
    if judge is None or isinstance(judge, Judge):
        return judge
    if isinstance(judge, Agent):
        return Judge(judge)
    return Judge(Agent(judge, name="judge"))


def judge_agreement(scores: Iterable[JudgeScore]) -> float | None:
    """The fraction of judged dimensions within one point of their gold score, over the
    scores that have a gold score and are not unknown (0); None when there is none."""
    pairs = [(s.score, s.gold) for s in scores if s.gold is not None and s.score != 0]
    if not pairs:
        return None
    return sum(abs(score - gold) <= 1 for score, gold in pairs) / len(pairs)
