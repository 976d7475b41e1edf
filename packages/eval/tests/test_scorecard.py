"""The scorecard follows docs/eval-scorecard.md SC1-SC9: hand-computed runs, omitted
dimensions, the repair tier, and the boundaries (all pass, all fail, nothing run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from automata_docs_testing import RuleBook
from hypothesis import given, settings
from hypothesis import strategies as st

from automata.eval import Budgets, Case, CaseResult, Grade, JudgeScore, TrialResult
from automata.eval._scorecard import TOOL_GRADERS, is_tool_grade, score_run
from automata.eval._stats import mean_interval, wilson_interval

DOC = Path(__file__).parents[3] / "docs" / "eval-scorecard.md"
BUDGETS = Budgets()


def _trial(
    case: str = "c",
    *,
    passed: bool = True,
    grades: tuple[Grade, ...] = (),
    latency_ms: float = 0.0,
    tokens: tuple[int, int] = (0, 0),
    **extra: object,
) -> TrialResult:
    return TrialResult.model_validate(
        {
            "case": case,
            "trial": 0,
            "passed": passed,
            "grades": grades,
            "latency_ms": latency_ms,
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
            **extra,
        }
    )


def _case(name: str, *trials: TrialResult, tier: str = "regression") -> CaseResult:
    return CaseResult(case=Case(name=name, task="t", tier=tier), trials=trials)


def _gate(grader: str, passed: bool) -> Grade:
    return Grade(grader=grader, passed=passed)


def _rule(grader: str, passed: bool) -> Grade:
    return Grade(grader=grader, passed=passed, kind="compliance")


def _hand_run() -> list[CaseResult]:
    """Two cases of two trials; the numbers are worked out in the test below."""
    return [
        _case(
            "weather",
            _trial(
                passed=True,
                grades=(_gate("required_tools", True), _rule("forbidden_tools", True)),
                latency_ms=4000,
                tokens=(2000, 1000),
            ),
            _trial(
                passed=False,
                grades=(_gate("required_tools", False), _rule("forbidden_tools", True)),
                latency_ms=12000,
                tokens=(10000, 5000),
            ),
        ),
        _case(
            "fix",
            _trial(
                passed=True,
                grades=(_gate("tool_order", True), _rule("guardrails", True)),
                latency_ms=8000,
                tokens=(5000, 1000),
            ),
            _trial(
                passed=False,
                grades=(_gate("tool_order", True), _rule("guardrails", False)),
                latency_ms=8000,
                tokens=(5000, 1000),
            ),
            tier="repair",
        ),
    ]


def test_sc1_sc3_sc4_sc5_sc6_sc7_a_run_worked_out_by_hand() -> None:
    card = score_run(_hand_run(), BUDGETS)
    # L1: 3 of 4 trials kept every rule (the last broke a guardrail).
    assert card.compliance == card.l1 == 0.75
    # Tool-call accuracy: 3 of 4 trials passed their tool gates; repair: 1 of 2.
    assert card.tool_call_accuracy == 0.75
    assert card.repair_rate == 0.5
    assert card.l2 == pytest.approx((0.75 + 0.5) / 2)
    # L3: Pass@1 2/4; latency mean 8000 ms = budget -> 1; tokens mean 7500 -> 6000/7500.
    assert card.pass_at_1 == 0.5
    assert card.latency_score == 1.0
    assert card.token_score == pytest.approx(0.8)
    assert card.l3 == pytest.approx((0.5 + 1.0 + 0.8) / 3)
    # Total = 100 x (0.2 x 0.75 + 0.5 x 0.625 + 0.3 x 0.7667) = 15 + 31.25 + 23.
    assert card.total == pytest.approx(69.25)


def test_sc1_judge_scores_never_enter_the_scorecard() -> None:
    plain = [_case("c", _trial(grades=(_gate("required_tools", True),), latency_ms=100))]
    judged = [
        _case(
            "c",
            _trial(
                grades=(_gate("required_tools", True),),
                latency_ms=100,
                judge=(JudgeScore(dimension="clarity", score=1, gold=5),),
            ),
        )
    ]
    assert score_run(judged, BUDGETS) == score_run(plain, BUDGETS)


_grades = st.lists(
    st.builds(
        Grade,
        grader=st.sampled_from(
            [
                "required_tools",
                "required_args:search",
                "tool_order",
                "forbidden_tools",
                "guardrails",
                "contains",
                "completes",
            ]
        ),
        passed=st.booleans(),
        kind=st.sampled_from(["gate", "compliance"]),
    ),
    max_size=4,
)
_trials = st.builds(
    _trial,
    passed=st.booleans(),
    grades=_grades.map(tuple),
    latency_ms=st.floats(min_value=0, max_value=100_000),
    tokens=st.tuples(st.integers(0, 50_000), st.integers(0, 50_000)),
)
_cases = st.lists(
    st.builds(
        lambda trials, tier: _case("c", *trials, tier=tier),
        st.lists(_trials, max_size=4),
        st.sampled_from(["regression", "repair", "capability"]),
    ),
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(cases=_cases)
def test_sc1_every_level_is_a_rate_and_the_total_follows_the_formula(
    cases: list[CaseResult],
) -> None:
    card = score_run(cases, BUDGETS)
    rates = [card.l1, card.l2, card.l3, card.compliance, card.tool_call_accuracy]
    optional = [card.repair_rate, card.latency_score, card.token_score]
    for rate in rates + [card.pass_at_1] + [r for r in optional if r is not None]:
        assert 0.0 <= rate <= 1.0
    assert 0.0 <= card.total <= 100.0
    assert card.total == pytest.approx(100 * (0.2 * card.l1 + 0.5 * card.l2 + 0.3 * card.l3))
    assert score_run(cases, BUDGETS) == card


def test_sc2_pass_at_1_counts_every_trial_and_unfinished_ones_as_failures() -> None:
    cases = [
        _case("a", _trial(passed=True), _trial(passed=True), _trial(passed=False)),
        _case(
            "b",
            _trial(passed=True),
            _trial(passed=False, failure="provider_error", error="503"),
            _trial(passed=False, failure="cancelled"),
        ),
    ]
    card = score_run(cases, BUDGETS)
    assert card.pass_at_1 == pytest.approx(3 / 6)
    assert card.pass_at_1_interval == wilson_interval(3, 6)


def test_sc3_compliance_is_measured_over_the_trials_with_rules_only() -> None:
    cases = [
        _case("ruled", _trial(grades=(_rule("forbidden_tools", False),), passed=False)),
        _case("ruled2", _trial(grades=(_rule("guardrails", True), _rule("forbidden_tools", True)))),
        _case("free", _trial(grades=(_gate("contains", True),)), _trial()),
    ]
    assert score_run(cases, BUDGETS).compliance == 0.5


def test_sc3_one_broken_rule_makes_the_trial_non_compliant() -> None:
    trial = _trial(passed=False, grades=(_rule("guardrails", True), _rule("guardrails", False)))
    assert score_run([_case("c", trial)], BUDGETS).l1 == 0.0


def test_sc3_with_no_rules_anywhere_compliance_is_full() -> None:
    cases = [_case("c", _trial(passed=False, grades=(_gate("required_tools", False),)))]
    card = score_run(cases, BUDGETS)
    assert card.compliance == card.l1 == 1.0


def test_sc3_tool_selection_is_not_compliance() -> None:
    trial = _trial(passed=False, grades=(_gate("required_tools", False), _rule("guardrails", True)))
    card = score_run([_case("c", trial)], BUDGETS)
    assert card.l1 == 1.0
    assert card.tool_call_accuracy == 0.0


def test_sc4_which_grades_are_tool_grades() -> None:
    assert {"required_tools", "required_args", "tool_order"} == TOOL_GRADERS
    assert is_tool_grade(_gate("required_tools", True))
    assert is_tool_grade(_gate("required_args:search", False))
    assert is_tool_grade(_gate("tool_order", True))
    assert not is_tool_grade(_rule("forbidden_tools", True))
    assert not is_tool_grade(_rule("required_tools", True))
    assert not is_tool_grade(_gate("forbidden_tools", True))
    assert not is_tool_grade(_gate("contains", True))
    assert not is_tool_grade(_gate("required_tools_extra", True))


def test_sc4_accuracy_is_per_trial_over_trials_with_tool_grades() -> None:
    cases = [
        _case(
            "split",
            # Three tool grades, one failed: the trial is not accurate.
            _trial(
                passed=False,
                grades=(
                    _gate("required_tools:a", True),
                    _gate("required_tools:b", True),
                    _gate("required_args:a", False),
                ),
            ),
            _trial(grades=(_gate("required_tools:a", True), _gate("tool_order", True))),
            _trial(grades=(_gate("tool_order", True),)),
            _trial(grades=(_gate("contains", False),), passed=False),  # no tool grade
        ),
    ]
    assert score_run(cases, BUDGETS).tool_call_accuracy == pytest.approx(2 / 3)


def test_sc4_with_no_tool_grades_anywhere_accuracy_is_full() -> None:
    card = score_run(
        [_case("c", _trial(passed=False, grades=(_gate("contains", False),)))], BUDGETS
    )
    assert card.tool_call_accuracy == card.l2 == 1.0


def test_sc5_without_repair_cases_l2_is_tool_call_accuracy() -> None:
    cases = [
        _case("a", _trial(grades=(_gate("required_tools", True),))),
        _case("b", _trial(grades=(_gate("required_tools", False),), passed=False)),
    ]
    card = score_run(cases, BUDGETS)
    assert card.repair_rate is None
    assert card.repair_rate_interval is None
    assert card.l2 == card.tool_call_accuracy == 0.5


def test_sc5_the_repair_rate_comes_from_the_repair_tier_only() -> None:
    cases = [
        _case("regress", _trial(passed=False), _trial(passed=False)),
        _case("cap", _trial(passed=True), tier="capability"),
        _case("fix1", _trial(passed=True), _trial(passed=True), tier="repair"),
        _case("fix2", _trial(passed=False), _trial(passed=True), tier="repair"),
    ]
    card = score_run(cases, BUDGETS)
    assert card.repair_rate == 0.75
    assert card.repair_rate_interval == wilson_interval(3, 4)
    assert card.tool_call_accuracy == 1.0
    assert card.l2 == pytest.approx((1.0 + 0.75) / 2)


def test_sc6_scores_are_budget_over_the_mean_actual_capped_at_one() -> None:
    budgets = Budgets(latency_ms=1000, tokens=100)
    within = [_case("c", _trial(latency_ms=500, tokens=(40, 10)))]
    card = score_run(within, budgets)
    assert (card.latency_score, card.token_score) == (1.0, 1.0)
    over = [
        _case(
            "c",
            _trial(latency_ms=1000, tokens=(100, 100)),
            _trial(latency_ms=3000, tokens=(300, 300)),
        )
    ]
    card = score_run(over, budgets)
    assert card.latency_score == pytest.approx(1000 / 2000)
    assert card.token_score == pytest.approx(100 / 400)


def test_sc6_trials_that_measured_nothing_do_not_enter_the_mean() -> None:
    cases = [
        _case(
            "c",
            _trial(latency_ms=16000, tokens=(12000, 0)),
            _trial(passed=False, failure="provider_error"),  # 0 ms, 0 tokens
        )
    ]
    card = score_run(cases, BUDGETS)
    assert card.latency_score == pytest.approx(0.5)
    assert card.token_score == pytest.approx(0.5)


def test_sc6_a_dimension_with_no_measurement_is_omitted() -> None:
    card = score_run([_case("c", _trial(latency_ms=2000))], BUDGETS)
    assert card.latency_score == 1.0
    assert card.token_score is None


@pytest.mark.parametrize(
    "budgets", [Budgets(latency_ms=0), Budgets(tokens=0), Budgets(latency_ms=-5)]
)
def test_sc6_budgets_must_be_positive(budgets: Budgets) -> None:
    with pytest.raises(ValueError, match="budgets must be positive"):
        score_run([_case("c", _trial())], budgets)


def test_sc7_l3_is_the_mean_of_the_dimensions_present() -> None:
    budgets = Budgets(latency_ms=1000, tokens=100)
    both = [_case("c", _trial(passed=False, latency_ms=2000, tokens=(25, 25)))]
    assert score_run(both, budgets).l3 == pytest.approx((0.0 + 0.5 + 1.0) / 3)
    latency_only = [_case("c", _trial(passed=False, latency_ms=2000))]
    assert score_run(latency_only, budgets).l3 == pytest.approx((0.0 + 0.5) / 2)
    tokens_only = [_case("c", _trial(passed=False, tokens=(400, 0)))]
    assert score_run(tokens_only, budgets).l3 == pytest.approx((0.0 + 0.25) / 2)
    neither = [_case("c", _trial(passed=True), _trial(passed=False))]
    assert score_run(neither, budgets).l3 == 0.5


def test_sc8_intervals_on_pass_at_1_repair_rate_and_total() -> None:
    repeats = [69.25, 71.0, 66.5]
    card = score_run(_hand_run(), BUDGETS, repeat_totals=repeats)
    assert card.pass_at_1_interval == wilson_interval(2, 4)
    assert card.repair_rate_interval == wilson_interval(1, 2)
    assert card.total_interval == mean_interval(repeats)
    assert card.total_interval is not None
    assert card.total_interval[0] < sum(repeats) / 3 < card.total_interval[1]


def test_sc8_one_repeat_gives_no_interval_on_the_total() -> None:
    assert score_run(_hand_run(), BUDGETS).total_interval is None
    assert score_run(_hand_run(), BUDGETS, repeat_totals=[70.0]).total_interval is None


def test_sc9_a_run_with_no_trials_scores_nothing() -> None:
    for cases in ([], [_case("never-ran")]):
        card = score_run(cases, BUDGETS)
        assert (card.total, card.l1, card.l2, card.l3) == (0.0, 0.0, 0.0, 0.0)
        assert (card.compliance, card.tool_call_accuracy, card.pass_at_1) == (0.0, 0.0, 0.0)
        assert card.repair_rate is None
        assert card.latency_score is None
        assert card.token_score is None
        assert card.pass_at_1_interval is None
        assert card.repair_rate_interval is None


def test_sc1_sc9_boundaries_all_pass_and_all_fail() -> None:
    passing = [
        _case(
            "c",
            *[
                _trial(
                    grades=(_gate("required_tools", True), _rule("forbidden_tools", True)),
                    latency_ms=1000,
                    tokens=(100, 100),
                )
                for _ in range(3)
            ],
            tier="repair",
        )
    ]
    card = score_run(passing, BUDGETS)
    assert card.total == 100.0
    assert card.pass_at_1_interval == (wilson_interval(3, 3)[0], 1.0)
    failing = [
        _case(
            "c",
            *[
                _trial(
                    passed=False,
                    grades=(_gate("required_tools", False), _rule("forbidden_tools", False)),
                )
                for _ in range(3)
            ],
            tier="repair",
        )
    ]
    card = score_run(failing, BUDGETS)
    assert card.total == 0.0
    assert card.pass_at_1_interval == (0.0, wilson_interval(0, 3)[1])


def test_every_rule_of_the_doc_is_pinned_by_a_test() -> None:
    """Each rule SC1, SC2, ... of docs/eval-scorecard.md is named by a test (`test_sc3_...`)."""
    RuleBook.of("docs/eval-scorecard.md", __file__).check(at_least=14)
