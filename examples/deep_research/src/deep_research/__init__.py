"""Example: a multi-agent deep-research run watched live from a `StreamAccumulator`.

`build_orchestrator` wires the orchestrator, researcher and writer agents;
`research` runs them on a topic; `render_dashboard` / `LiveDashboard` / `PlainLog`
show the run; `demo_providers` and `DemoSearcher` make it run with no key.
`python -m deep_research "topic"` puts it together.

The names below are imported from their modules on first use, and this module
imports nothing that Python has not loaded already, so that `python -m deep_research`
is running its own code (which leaves quietly on Ctrl+C) before the heavy modules
load.
"""

import importlib

TYPE_CHECKING = False  # what `typing.TYPE_CHECKING` is at run time, without the import

__all__ = [
    "DemoSearcher",
    "Findings",
    "LiveDashboard",
    "PlainLog",
    "ResearchAssignment",
    "ResearchOutcome",
    "ResearchPlan",
    "TeamProviders",
    "WritingBrief",
    "build_orchestrator",
    "build_researcher",
    "build_writer",
    "demo_providers",
    "render_dashboard",
    "research",
    "writer_report",
]

_MODULES = {
    "DemoSearcher": "demo",
    "demo_providers": "demo",
    "Findings": "models",
    "ResearchAssignment": "models",
    "ResearchPlan": "models",
    "WritingBrief": "models",
    "ResearchOutcome": "pipeline",
    "research": "pipeline",
    "writer_report": "pipeline",
    "TeamProviders": "team",
    "build_orchestrator": "team",
    "build_researcher": "team",
    "build_writer": "team",
    "LiveDashboard": "ui",
    "PlainLog": "ui",
    "render_dashboard": "ui",
}

if TYPE_CHECKING:
    from deep_research.demo import DemoSearcher, demo_providers
    from deep_research.models import Findings, ResearchAssignment, ResearchPlan, WritingBrief
    from deep_research.pipeline import ResearchOutcome, research, writer_report
    from deep_research.team import (
        TeamProviders,
        build_orchestrator,
        build_researcher,
        build_writer,
    )
    from deep_research.ui import LiveDashboard, PlainLog, render_dashboard
else:

    def __getattr__(name: str) -> object:
        module = _MODULES.get(name)
        if module is None:
            raise AttributeError(f"module 'deep_research' has no attribute {name!r}")
        value = getattr(importlib.import_module(f"deep_research.{module}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
