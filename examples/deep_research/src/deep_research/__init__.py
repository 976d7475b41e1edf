"""Example: a multi-agent deep-research run watched live from a `StreamAccumulator`.

`build_orchestrator` wires the orchestrator, researcher and writer agents;
`research` runs them on a topic; `render_dashboard` / `LiveDashboard` / `PlainLog`
show the run; `demo_providers` and `DemoSearcher` make it run with no key.
`python -m deep_research "topic"` puts it together.
"""

from deep_research.demo import DemoSearcher, demo_providers
from deep_research.models import Findings, ResearchAssignment, ResearchPlan, WritingBrief
from deep_research.pipeline import ResearchOutcome, research, writer_report
from deep_research.team import TeamProviders, build_orchestrator
from deep_research.ui import LiveDashboard, PlainLog, render_dashboard

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
    "demo_providers",
    "render_dashboard",
    "research",
    "writer_report",
]
