"""The statistics of an evaluation: Wilson intervals on proportions, the unbiased
pass@k and pass^k estimators, and a Student t interval on a mean.

Pure functions of their arguments, standard library only (no scipy at run time). The
rules they follow are docs/eval-scorecard.md SC10-SC13; the tests check each against an
independent reference (statsmodels, exact fractions, scipy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["mean_interval", "pass_at_k", "pass_hat_k", "t_quantile", "wilson_interval"]


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval `(low, high)` on a proportion `successes / n`.

    Guaranteed: `0 <= low <= successes / n <= high <= 1`; the same numbers as
    statsmodels' `proportion_confint(method="wilson")` at the same `z` (1.96 is the
    usual two-sided 95%). Raises ValueError when `n < 1` (an interval on no trials
    means nothing: callers report None), when `successes` is outside `0..n`, or when
    `z` is not a positive finite number (SC10)."""
    _check_count("n", n)
    _check_count("successes", successes)
    if n < 1:
        raise ValueError("a Wilson interval needs at least one trial (n >= 1)")
    if successes > n:
        raise ValueError(f"successes ({successes}) cannot exceed n ({n})")
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be a positive finite number, not {z!r}")
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes == n else min(1.0, max(p, centre + half))
    return (low, high)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k, the chance that at least one of `k` trials
    drawn without replacement from `n` (of which `c` passed) passes:
    `1 - C(n - c, k) / C(n, k)`.

    Computed as `1 - prod(1 - k / i for i in n-c+1..n)`, which never forms the large
    binomials. Raises ValueError unless `n >= 1`, `0 <= c <= n` and `1 <= k <= n` (SC11)."""
    _check_estimator_args(n, c, k)
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass^k, the chance that all of `k` trials drawn
    without replacement from `n` (of which `c` passed) pass: `C(c, k) / C(n, k)`.

    Computed as `prod((c - i) / (n - i) for i in 0..k-1)`. Raises ValueError unless
    `n >= 1`, `0 <= c <= n` and `1 <= k <= n` (SC12)."""
    _check_estimator_args(n, c, k)
    if c < k:
        return 0.0
    product = 1.0
    for i in range(k):
        product *= (c - i) / (n - i)
    return product


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float] | None:
    """The two-sided Student t interval `(low, high)` on the mean of `values` (for
    example the totals of repeated runs): `mean -/+ t(df = n - 1) * s / sqrt(n)`, with
    `s` the sample standard deviation.

    None for fewer than two values (no spread to measure). Raises ValueError when a
    value is not finite or `confidence` is not strictly between 0 and 1 (SC13)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, not {confidence!r}")
    data = [float(value) for value in values]
    if any(not math.isfinite(value) for value in data):
        raise ValueError("mean_interval needs finite values")
    n = len(data)
    if n < 2:
        return None
    mean = math.fsum(data) / n
    variance = math.fsum((value - mean) ** 2 for value in data) / (n - 1)
    half = t_quantile((1.0 + confidence) / 2.0, n - 1) * math.sqrt(variance / n)
    return (mean - half, mean + half)


def t_quantile(p: float, df: float) -> float:
    """The `p` quantile of Student's t distribution with `df` degrees of freedom
    (what `scipy.stats.t.ppf(p, df)` computes), to about 1e-9 relative or better.

    The distribution function is the regularized incomplete beta function (a Lentz
    continued fraction); it is inverted by bisection. Raises ValueError unless
    `0 < p < 1` and `df > 0` (SC13)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be strictly between 0 and 1, not {p!r}")
    if not (math.isfinite(df) and df > 0):
        raise ValueError(f"df must be a positive finite number, not {df!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2.0 * p - 1.0) / math.sqrt(2.0 * p * (1.0 - p))
    # Search t >= 0 for the mass beyond t (for p near 1) or between 0 and t (for p
    # near 1/2), whichever of the two is small, so neither is lost to cancellation.
    use_tail = p >= 0.75
    target = 1.0 - p if use_tail else p - 0.5

    def below(t: float) -> bool:
        """Whether t lies below the quantile."""
        if use_tail:
            return 0.5 * _regularized_beta(df / (df + t * t), df / 2.0, 0.5) > target
        return 0.5 * _regularized_beta(t * t / (df + t * t), 0.5, df / 2.0) < target

    low, high = 0.0, 1.0
    while below(high):
        low, high = high, high * 2.0
    for _ in range(2100):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if below(middle):
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    # The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the
    # symmetry I_x(a, b) = 1 - I_{1-x}(b, a) on the other side.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 1000):
        m2 = 2 * m
        numerator = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + numerator * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + numerator / c
        c = c if abs(c) > tiny else tiny
        result *= d * c
        numerator = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + numerator * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + numerator / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        result *= step
        if abs(step - 1.0) < 1e-16:
            break
    return result


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must not be negative, not {value}")


def _check_estimator_args(n: int, c: int, k: int) -> None:
    for name, value in (("n", n), ("c", c), ("k", k)):
        _check_count(name, value)
    if n < 1:
        raise ValueError("n must be at least 1 (the number of trials)")
    if c > n:
        raise ValueError(f"c ({c}) cannot exceed n ({n})")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n ({n}), not {k}")
