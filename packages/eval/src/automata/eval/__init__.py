"""automata.eval: evaluate automata agents.

Cases as data (YAML or Python), code graders as hard gates, opt-in model graders,
k trials per case, a scorecard with confidence intervals, A/B comparison, JSON and
HTML reports, a CLI and a pytest plugin. Works on any automata `Agent`.

Names are imported on first use, so importing the package (as the pytest plugin
does in every pytest run) costs almost nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automata.eval._cases import CaseFileError, SelectionError, load_cases, select
    from automata.eval._compare import Comparison, Delta, compare, graduates
    from automata.eval._graders import grade
    from automata.eval._html import write_html
    from automata.eval._judge import Judge, JudgeVerdict, judge_agreement
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
        Rate,
        Reliability,
        ReliabilityGroup,
        RunReport,
        Scorecard,
        ToolCallRecord,
        TrialFailure,
        TrialResult,
    )
    from automata.eval._observation import Observation
    from automata.eval._reliability import reliability
    from automata.eval._reports import ReportFormatError, export_failed, load_report, write_report
    from automata.eval._runner import UnknownAgentError, evaluate, evaluate_sync
    from automata.eval._sandbox import Sandbox, TrialContext, WorkspaceSandbox
    from automata.eval._scorecard import score_run
    from automata.eval._stats import (
        mean_interval,
        pass_at_k,
        pass_hat_k,
        t_quantile,
        wilson_interval,
    )
    from automata.eval._trial import AgentFactory

_HOMES = {
    "automata.eval._cases": ("CaseFileError", "SelectionError", "load_cases", "select"),
    "automata.eval._compare": ("Comparison", "Delta", "compare", "graduates"),
    "automata.eval._graders": ("grade",),
    "automata.eval._html": ("write_html",),
    "automata.eval._judge": ("Judge", "JudgeVerdict", "judge_agreement"),
    "automata.eval._model": (
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
    ),
    "automata.eval._observation": ("Observation",),
    "automata.eval._reports": ("ReportFormatError", "export_failed", "load_report", "write_report"),
    "automata.eval._reliability": ("reliability",),
    "automata.eval._runner": ("UnknownAgentError", "evaluate", "evaluate_sync"),
    "automata.eval._sandbox": ("Sandbox", "TrialContext", "WorkspaceSandbox"),
    "automata.eval._scorecard": ("score_run",),
    "automata.eval._stats": (
        "mean_interval",
        "pass_at_k",
        "pass_hat_k",
        "t_quantile",
        "wilson_interval",
    ),
    "automata.eval._trial": ("AgentFactory",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'automata.eval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOME_OF])


__all__ = [
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "AgentFactory",
    "Budgets",
    "Case",
    "CaseFileError",
    "CaseResult",
    "Comparison",
    "Delta",
    "Difficulty",
    "Expect",
    "FileExpectation",
    "Grade",
    "Judge",
    "JudgeDimension",
    "JudgeScore",
    "JudgeVerdict",
    "Observation",
    "Rate",
    "Reliability",
    "ReliabilityGroup",
    "ReportFormatError",
    "RunReport",
    "Sandbox",
    "Scorecard",
    "SelectionError",
    "ToolCallRecord",
    "TrialContext",
    "TrialFailure",
    "TrialResult",
    "UnknownAgentError",
    "WorkspaceSandbox",
    "compare",
    "evaluate",
    "evaluate_sync",
    "export_failed",
    "grade",
    "graduates",
    "judge_agreement",
    "load_cases",
    "load_report",
    "mean_interval",
    "pass_at_k",
    "pass_hat_k",
    "reliability",
    "score_run",
    "select",
    "t_quantile",
    "wilson_interval",
    "write_html",
    "write_report",
]
