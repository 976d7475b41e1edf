"""The values of an evaluation: cases (what to run and expect) and results (what
happened), all frozen pydantic models so they load from YAML and round-trip through the
JSON report unchanged.

A case names its agent by the name of a factory (the runner is given a mapping of
names to factories), so a case file never holds code. Results keep what graders and
reports need: the tool calls made, the grades, timing, tokens, the failure kind, and a
short transcript summary (never the whole transcript).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from automata.core import Cost
from automata.eval._text import encodable

__all__ = [
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "Budgets",
    "Case",
    "CaseResult",
    "Difficulty",
    "Expect",
    "FileExpectation",
    "Grade",
    "JudgeDimension",
    "JudgeScore",
    "Rate",
    "Reliability",
    "ReliabilityGroup",
    "RunReport",
    "Scorecard",
    "ToolCallRecord",
    "TrialFailure",
    "TrialResult",
]

REPORT_FORMAT: Literal["automata.eval.report"] = "automata.eval.report"
REPORT_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Difficulty(StrEnum):
    """How hard a case is; selections like `medium+` take that level and above."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


class FileExpectation(_Frozen):
    """A file the agent must leave in its trial's workspace (a path relative to it):
    it exists, and holds each of `contains` (and matches `matches`, a regex, when set)."""

    contains: tuple[str, ...] = ()
    matches: str | None = None


class Expect(_Frozen):
    """The code graders of a case, the hard gates: each set field is one check.

    - `required_tools`: each was called at least once (coverage);
    - `forbidden_tools`: none was called (compliance, L1);
    - `tool_order`: these tools were first called in this order; soft by default (the
      calls may interleave with others), `strict_order` demands exactly this sequence;
    - `required_args`: per tool, arguments some call of it was given (equal values);
    - `completes`: the run ended with an answer, not an error or a step limit;
    - `max_steps`: the run made at most this many model calls;
    - `contains` / `contains_any` / `matches`: the final text holds all / one of these
      strings / matches this regex;
    - `guardrails`: regexes the final text must not match (compliance, L1);
    - `files`: files in the trial's workspace.
    """

    required_tools: tuple[str, ...] = ()
    forbidden_tools: tuple[str, ...] = ()
    tool_order: tuple[str, ...] = ()
    strict_order: bool = False
    required_args: dict[str, dict[str, Any]] = Field(default_factory=dict)
    completes: bool = True
    max_steps: int | None = None
    contains: tuple[str, ...] = ()
    contains_any: tuple[str, ...] = ()
    matches: str | None = None
    guardrails: tuple[str, ...] = ()
    files: dict[str, FileExpectation] = Field(default_factory=dict)


class JudgeDimension(_Frozen):
    """One dimension a model grader scores from 1 to 5 (`gold`: the score a person
    gave a reference answer, used to measure the judge's agreement)."""

    name: str
    rubric: str
    gold: int | None = None


class Case(_Frozen):
    """One evaluation case.

    `agent` names the factory that builds the agent under test; `tier` groups cases
    (`regression`, `capability`, `repair`, ...; the scorecard's repair rate comes from
    `repair` cases only); `smoke` puts the case in the quick set; `judge` lists the
    dimensions an (opt-in) model grader scores.

    The name is the case's identifier (its page's file name, what selections and test
    ids match): one that is blank or holds a lone surrogate (text UTF-8 cannot encode)
    is refused with pydantic's `ValidationError`. Other text may hold lone surrogates;
    reports write them as escapes (`\\ud800`)."""

    name: str
    task: str
    agent: str = "default"
    expect: Expect = Field(default_factory=Expect)
    difficulty: Difficulty = Difficulty.MEDIUM
    tier: str = "regression"
    smoke: bool = False
    tags: tuple[str, ...] = ()
    judge: tuple[JudgeDimension, ...] = ()

    @field_validator("name")
    @classmethod
    def _name_is_set(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a case needs a name")
        if not encodable(value):
            raise ValueError(
                f"the name {value!r} holds a lone surrogate (text UTF-8 cannot encode); "
                "a case name is an identifier"
            )
        return value


class ToolCallRecord(_Frozen):
    """A tool call the agent made, in order, with whether its result was an error."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    is_error: bool = False


class Grade(_Frozen):
    """One grader's verdict on one trial. `kind` is `gate` (a hard check; a failed
    gate fails the trial) or `compliance` (also a gate, and counted in L1)."""

    grader: str
    passed: bool
    detail: str = ""
    kind: Literal["gate", "compliance"] = "gate"


class JudgeScore(_Frozen):
    """A model grader's score for one dimension: 1-5, or 0 when it could not tell.
    Judge scores never fail a trial and never enter the total."""

    dimension: str
    score: int
    gold: int | None = None
    rationale: str = ""


TrialFailure = Literal["provider_error", "timeout", "cancelled", "agent_error"]
"""Why a trial did not run to its end (None in `TrialResult.failure` when it did)."""


class TrialResult(_Frozen):
    """One run of one case. `passed` is True when every gate passed. `cost` is the
    run's cost as its agent's price table priced it (None without one, or when a call
    could not be priced: docs/loop.md L95-L96). `retries` is how many failed provider
    attempts the run repeated (`RunResult.retries`, docs/loop.md L99); `model` the
    model the trial's agent asked for (its provider's `model`, else the run's), None
    when neither names one."""

    case: str
    trial: int
    passed: bool
    grades: tuple[Grade, ...] = ()
    tool_calls: tuple[ToolCallRecord, ...] = ()
    steps: int = 0
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    retries: int = 0
    model: str | None = None
    failure: TrialFailure | None = None
    error: str | None = None
    output: str = ""
    transcript_summary: tuple[str, ...] = ()
    judge: tuple[JudgeScore, ...] = ()
    cost: Cost | None = None


class CaseResult(_Frozen):
    """A case and its trials; the case passes only when all its trials pass."""

    case: Case
    trials: tuple[TrialResult, ...]

    @property
    def passed(self) -> bool:
        return bool(self.trials) and all(trial.passed for trial in self.trials)


class Budgets(_Frozen):
    """What L3's latency and token scores are measured against (per trial)."""

    latency_ms: float = 8000.0
    tokens: int = 6000


class Rate(_Frozen):
    """`count` out of `total`, with its share `rate` and the Wilson 95% `interval` on
    it; both None when `total` is 0 (nothing to measure)."""

    count: int = 0
    total: int = 0
    rate: float | None = None
    interval: tuple[float, float] | None = None


class Reliability(_Frozen):
    """How the run went, apart from how good the agent was (docs/eval.md E21).

    Counts of trials by failure kind, the provider retries the trials made, and
    `attempts`: the provider attempts they made (model calls plus retries). The rates
    are shares of trials, except `retry_rate`: the share of attempts that failed and
    were repeated."""

    trials: int = 0
    provider_errors: int = 0
    retries: int = 0
    timeouts: int = 0
    cancelled: int = 0
    agent_errors: int = 0
    attempts: int = 0
    provider_error_rate: Rate = Field(default_factory=Rate)
    retry_rate: Rate = Field(default_factory=Rate)
    timeout_rate: Rate = Field(default_factory=Rate)
    cancellation_rate: Rate = Field(default_factory=Rate)


class ReliabilityGroup(_Frozen):
    """The reliability of the trials of one model or one case, named `name`."""

    name: str
    reliability: Reliability


class Scorecard(_Frozen):
    """Total = 100 x (0.2 L1 + 0.5 L2 + 0.3 L3), each level in [0, 1].

    Intervals are `(low, high)` pairs (Wilson, 95%), None when there was nothing to
    measure; `total_interval` comes from `--repeats`. `cost` is what every trial cost
    together (SC14), None when one of them has no cost; it is shown, never scored."""

    total: float
    l1: float
    l2: float
    l3: float
    compliance: float
    tool_call_accuracy: float
    repair_rate: float | None = None
    pass_at_1: float
    latency_score: float | None = None
    token_score: float | None = None
    pass_at_1_interval: tuple[float, float] | None = None
    repair_rate_interval: tuple[float, float] | None = None
    total_interval: tuple[float, float] | None = None
    cost: Cost | None = None


class RunReport(_Frozen):
    """Everything one evaluation run produced, as written to its JSON report.
    `reliability` covers every trial; `reliability_by_model` and `reliability_by_case`
    the same per model (sorted by name; trials naming no model under `"unnamed"`) and
    per case (in case order)."""

    format: Literal["automata.eval.report"] = REPORT_FORMAT
    version: int = REPORT_VERSION
    run_id: str
    started_at: str
    model: str | None = None
    judge_model: str | None = None
    trials_per_case: int
    budgets: Budgets = Field(default_factory=Budgets)
    cases: tuple[CaseResult, ...]
    scorecard: Scorecard
    reliability: Reliability = Field(default_factory=Reliability)
    reliability_by_model: tuple[ReliabilityGroup, ...] = ()
    reliability_by_case: tuple[ReliabilityGroup, ...] = ()
    repeat_totals: tuple[float, ...] = ()
    judge_agreement: float | None = None
