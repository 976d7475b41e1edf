"""automata.eval: evaluate automata agents.

Cases as data (YAML or Python), code graders as hard gates, opt-in model graders,
k trials per case, a scorecard with confidence intervals, A/B comparison, JSON and
HTML reports, a CLI and a pytest plugin. Works on any automata `Agent`.
"""

from __future__ import annotations

from automata.eval._html import write_html
from automata.eval._model import (
    REPORT_FORMAT,
    REPORT_VERSION,
    Budgets,
    Case,
    CaseResult,
    Difficulty,
    Expect,
    FileExpectation,
    Grade,
    JudgeDimension,
    JudgeScore,
    Reliability,
    RunReport,
    Scorecard,
    ToolCallRecord,
    TrialFailure,
    TrialResult,
)

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
    "Reliability",
    "RunReport",
    "Scorecard",
    "ToolCallRecord",
    "TrialFailure",
    "TrialResult",
    "write_html",
]
