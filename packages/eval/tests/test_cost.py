"""Cost in an evaluation: each trial keeps its run's cost, the scorecard totals them
(docs/eval-scorecard.md SC14), and the HTML report shows them per trial, per case and
for the run; an unpriced trial shows no cost, and leaves the totals without one."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from automata.core import Agent, Cost, Message, ModelResponse, StopReason, Usage
from automata.core.testing import ScriptedProvider
from automata.eval import Case, TrialContext, evaluate, write_html
from automata.eval._html_page import fmt_cost


class CentPerToken:
    """Every token of model "m" at $0.01; nothing else is known."""

    def price(self, usage: Usage, *, provider: str, model: str) -> Cost | None:
        if model != "m":
            return None
        return Cost(
            amount=Decimal("0.01") * usage.total_tokens,
            currency="USD",
            source="test",
            version="1",
        )


def answer(tokens: int, model: str = "m") -> ModelResponse:
    return ModelResponse(
        message=Message.assistant("sunny"),
        stop_reason=StopReason.END_TURN,
        usage=Usage(input_tokens=tokens),
        model=model,
    )


def priced(ctx: TrialContext) -> Agent[None]:
    return Agent(ScriptedProvider([answer(ctx.trial + 1)]), prices=CentPerToken())


CASE = Case(name="weather", task="Weather?")


async def test_each_trial_keeps_its_cost_and_the_scorecard_totals_them() -> None:
    """SC14."""
    report = await evaluate([CASE], {"default": priced}, trials=3)
    [result] = report.cases
    amounts = sorted(str(trial.cost.amount) for trial in result.trials if trial.cost)
    assert amounts == ["0.01", "0.02", "0.03"]
    assert report.scorecard.cost == Cost(
        amount=Decimal("0.06"), currency="USD", source="test", version="1"
    )


async def test_sc14_one_unpriced_trial_leaves_the_scorecard_without_a_cost() -> None:
    """SC14: never a partial sum."""

    def mixed(ctx: TrialContext) -> Agent[None]:
        model = "unknown" if ctx.trial == 0 else "m"
        return Agent(ScriptedProvider([answer(1, model)]), prices=CentPerToken())

    report = await evaluate([CASE], {"default": mixed}, trials=2)
    assert report.scorecard.cost is None
    assert sorted(trial.cost is None for trial in report.cases[0].trials) == [False, True]


async def test_the_html_report_shows_the_cost_of_each_trial_case_and_run(tmp_path: Path) -> None:
    report = await evaluate([CASE], {"default": priced}, trials=2)
    index = write_html(report, tmp_path).read_text(encoding="utf-8")
    assert '<th class="num">Cost</th>' in index
    assert index.count("0.03 USD") == 2  # the scorecard's card and the case's row
    [page] = (tmp_path / "cases").iterdir()
    text = page.read_text(encoding="utf-8")
    assert "cost 0.01 USD" in text
    assert "cost 0.02 USD" in text


async def test_an_unpriced_run_shows_a_dash_for_its_cost(tmp_path: Path) -> None:
    def plain(ctx: TrialContext) -> Agent[None]:
        return Agent(ScriptedProvider(["sunny"]))

    report = await evaluate([CASE], {"default": plain}, trials=1)
    assert report.scorecard.cost is None
    write_html(report, tmp_path)
    [page] = (tmp_path / "cases").iterdir()
    assert "cost — ·" in page.read_text(encoding="utf-8")


def test_the_html_report_shows_a_cost_to_four_decimals_and_the_json_keeps_it_exact() -> None:
    """A trial of 0.0069075 USD reads 0.0069 USD; 0.03 USD is not padded."""
    exact = Cost(amount=Decimal("0.0069075"), currency="USD", source="test", version="1")
    assert fmt_cost(exact) == "0.0069 USD"
    assert fmt_cost(exact.model_copy(update={"amount": Decimal("0.00695")})) == "0.0070 USD"
    assert fmt_cost(exact.model_copy(update={"amount": Decimal("0.03")})) == "0.03 USD"
    assert Cost.model_validate_json(exact.model_dump_json()) == exact
