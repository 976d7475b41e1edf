"""The statistics agree with independent references: Wilson intervals with statsmodels,
pass@k and pass^k with their closed forms in exact fractions, t quantiles and t
intervals with scipy (docs/eval-scorecard.md SC10-SC13)."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from automata.eval._stats import (
    mean_interval,
    pass_at_k,
    pass_hat_k,
    t_quantile,
    wilson_interval,
)

Z95 = float(stats.norm.isf(0.025))


def _statsmodels_wilson(successes: int, n: int, alpha: float) -> tuple[float, float]:
    low, high = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(low), float(high)


# SC10: Wilson intervals.


def test_sc10_wilson_matches_statsmodels_for_every_count_up_to_120_trials() -> None:
    for n in range(1, 121):
        for successes in range(n + 1):
            ours = wilson_interval(successes, n, z=Z95)
            reference = _statsmodels_wilson(successes, n, 0.05)
            assert ours == pytest.approx(reference, abs=1e-12), (successes, n)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=100_000),
    data=st.data(),
    alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2]),
)
def test_sc10_wilson_matches_statsmodels_for_large_counts_and_other_levels(
    n: int, data: st.DataObject, alpha: float
) -> None:
    successes = data.draw(st.integers(min_value=0, max_value=n))
    z = float(stats.norm.isf(alpha / 2))
    ours = wilson_interval(successes, n, z=z)
    assert ours == pytest.approx(_statsmodels_wilson(successes, n, alpha), abs=1e-12)


def test_sc10_the_default_z_is_the_usual_95_percent() -> None:
    for successes, n in [(0, 3), (2, 3), (7, 10), (50, 100)]:
        default = wilson_interval(successes, n)
        assert default == pytest.approx(_statsmodels_wilson(successes, n, 0.05), abs=1e-4)
        assert default == wilson_interval(successes, n, z=1.96)


@given(n=st.integers(min_value=1, max_value=500), data=st.data())
def test_sc10_wilson_bounds_the_observed_rate_within_zero_and_one(
    n: int, data: st.DataObject
) -> None:
    successes = data.draw(st.integers(min_value=0, max_value=n))
    low, high = wilson_interval(successes, n)
    assert 0.0 <= low <= successes / n <= high <= 1.0
    if successes == 0:
        assert low == 0.0
    if successes == n:
        assert high == 1.0


@pytest.mark.parametrize(
    ("successes", "n", "z", "message"),
    [
        (0, 0, 1.96, "at least one trial"),
        (1, 0, 1.96, "at least one trial"),
        (4, 3, 1.96, "cannot exceed"),
        (-1, 3, 1.96, "must not be negative"),
        (1, 3, 0.0, "z must be"),
        (1, 3, math.nan, "z must be"),
    ],
)
def test_sc10_wilson_refuses_no_trials_and_impossible_counts(
    successes: int, n: int, z: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        wilson_interval(successes, n, z=z)


def test_sc10_wilson_counts_must_be_ints() -> None:
    with pytest.raises(TypeError):
        wilson_interval(1.0, 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        wilson_interval(1, True)


# SC11 and SC12: the unbiased estimators.


def _exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def _exact_pass_hat_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


@st.composite
def _trials(draw: st.DrawFn, max_n: int = 400) -> tuple[int, int, int]:
    n = draw(st.integers(min_value=1, max_value=max_n))
    c = draw(st.integers(min_value=0, max_value=n))
    k = draw(st.integers(min_value=1, max_value=n))
    return n, c, k


@settings(max_examples=500)
@given(_trials())
def test_sc11_pass_at_k_matches_the_closed_form_in_exact_fractions(
    trials: tuple[int, int, int],
) -> None:
    n, c, k = trials
    assert pass_at_k(n, c, k) == pytest.approx(
        float(_exact_pass_at_k(n, c, k)), rel=1e-9, abs=1e-12
    )


@settings(max_examples=500)
@given(_trials())
def test_sc12_pass_hat_k_matches_the_closed_form_in_exact_fractions(
    trials: tuple[int, int, int],
) -> None:
    n, c, k = trials
    assert pass_hat_k(n, c, k) == pytest.approx(
        float(_exact_pass_hat_k(n, c, k)), rel=1e-9, abs=1e-300
    )


def test_sc11_sc12_every_small_case_matches_exactly_enough() -> None:
    for n in range(1, 31):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(
                    float(_exact_pass_at_k(n, c, k)), rel=1e-12, abs=1e-14
                )
                assert pass_hat_k(n, c, k) == pytest.approx(
                    float(_exact_pass_hat_k(n, c, k)), rel=1e-12, abs=1e-300
                )


def test_sc11_sc12_known_values() -> None:
    # 3 trials, 1 passed: one trial passes a third of the time; two drawn contain the
    # passing one two times out of three; all three never all pass.
    assert pass_at_k(3, 1, 1) == pytest.approx(1 / 3)
    assert pass_at_k(3, 1, 2) == pytest.approx(2 / 3)
    assert pass_at_k(3, 1, 3) == 1.0
    assert pass_hat_k(3, 2, 2) == pytest.approx(1 / 3)
    assert pass_hat_k(3, 1, 2) == 0.0
    assert pass_hat_k(3, 3, 3) == 1.0
    assert pass_at_k(3, 0, 3) == 0.0


@given(_trials(max_n=60))
def test_sc11_sc12_at_k_1_both_are_the_observed_rate(trials: tuple[int, int, int]) -> None:
    n, c, _ = trials
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)
    assert pass_hat_k(n, c, 1) == pytest.approx(c / n)


def test_sc11_pass_at_k_stays_finite_where_the_binomials_overflow_floats() -> None:
    n, c, k = 5000, 10, 2000
    assert math.comb(n, k) > 10**308
    assert pass_at_k(n, c, k) == pytest.approx(float(_exact_pass_at_k(n, c, k)), rel=1e-9)


@pytest.mark.parametrize(
    ("n", "c", "k", "message"),
    [
        (0, 0, 1, "n must be at least 1"),
        (3, 4, 1, "cannot exceed"),
        (3, -1, 1, "must not be negative"),
        (3, 1, 0, "k must be between"),
        (3, 1, 4, "k must be between"),
        (3, 1, -2, "must not be negative"),
    ],
)
def test_sc11_sc12_impossible_arguments_are_refused(n: int, c: int, k: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError, match=message):
        pass_hat_k(n, c, k)


def test_sc11_sc12_counts_must_be_ints() -> None:
    with pytest.raises(TypeError):
        pass_at_k(3.0, 1, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pass_hat_k(3, True, 1)


# SC13: the t interval.

_PROBABILITIES = [0.51, 0.6, 0.75, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9995]


def test_sc13_t_quantiles_match_scipy_for_df_1_to_100() -> None:
    for df in range(1, 101):
        for p in _PROBABILITIES:
            expected = float(stats.t.ppf(p, df))
            assert t_quantile(p, df) == pytest.approx(expected, rel=1e-6, abs=1e-6), (p, df)
            assert t_quantile(1 - p, df) == pytest.approx(-expected, rel=1e-6, abs=1e-6)


def test_sc13_t_quantiles_match_scipy_for_other_degrees_of_freedom() -> None:
    for df in [0.5, 2.5, 150.0, 1000.0, 1e6]:
        for p in [0.6, 0.9, 0.975, 0.999]:
            assert t_quantile(p, df) == pytest.approx(float(stats.t.ppf(p, df)), rel=1e-6)


def test_sc13_t_quantiles_near_the_median_stay_accurate() -> None:
    # Near p = 1/2 the quantile is (p - 1/2) / f(0), f the density at 0.
    for df in [3, 4, 10, 63]:
        density_at_zero = float(stats.t.pdf(0.0, df))
        assert t_quantile(0.5 + 1e-7, df) == pytest.approx(1e-7 / density_at_zero, rel=1e-6)
    assert t_quantile(0.5, 7) == 0.0


@pytest.mark.parametrize(
    ("p", "df", "message"),
    [
        (0.0, 3, "p must"),
        (1.0, 3, "p must"),
        (0.9, 0, "df must"),
        (0.9, -1, "df must"),
        (0.9, math.inf, "df must"),
    ],
)
def test_sc13_t_quantile_refuses_impossible_arguments(p: float, df: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        t_quantile(p, df)


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(
        st.floats(min_value=0, max_value=100, allow_nan=False), min_size=2, max_size=30
    ),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_sc13_mean_interval_matches_scipy(values: list[float], confidence: float) -> None:
    interval = mean_interval(values, confidence)
    assert interval is not None
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) / math.sqrt(len(values))
    if spread == 0:
        assert interval == pytest.approx((mean, mean))
        return
    low, high = stats.t.interval(confidence, len(values) - 1, loc=mean, scale=spread)
    assert interval == pytest.approx((float(low), float(high)), rel=1e-6, abs=1e-6)


def test_sc13_mean_interval_hand_example() -> None:
    # Totals 70, 75, 80: mean 75, s = 5, t(0.975, 2) = 4.302652729911275.
    low, high = mean_interval([70.0, 75.0, 80.0]) or (0.0, 0.0)
    half = 4.302652729911275 * 5 / math.sqrt(3)
    assert (low, high) == pytest.approx((75 - half, 75 + half), abs=1e-9)


def test_sc13_mean_interval_needs_two_values() -> None:
    assert mean_interval([]) is None
    assert mean_interval([81.5]) is None


@pytest.mark.parametrize(
    ("values", "confidence", "message"),
    [
        ([1.0, 2.0], 0.0, "confidence must"),
        ([1.0, 2.0], 1.0, "confidence must"),
        ([1.0, math.nan], 0.95, "finite values"),
    ],
)
def test_sc13_mean_interval_refuses_impossible_arguments(
    values: list[float], confidence: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        mean_interval(values, confidence)
