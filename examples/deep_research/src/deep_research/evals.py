"""Agent factories for the example's eval suite (`evals/eval_deep_research.yaml`).

`FACTORIES` maps each agent a case may name to a factory of `TrialContext`:

- `orchestrator`: the whole team, run once on its task (it plans inline);
- `researcher` and `writer`: each role on its own;
- `researcher_search_down`: a researcher whose search backend fails every query (the
  repair case: it must say the evidence is thin rather than invent sources).

Offline (no `--model`), every role runs on the demo's scripted models. With `--model`
(`TrialContext.model`, for example `openai:gpt-4.1`), every role runs on that model,
resolved by the core through the installed provider extensions. Search always uses
`DemoSearcher`'s canned results, so no trial reaches the web.

    automata-eval run --cases examples/deep_research/evals \\
        --agents deep_research.evals:FACTORIES --trials 3
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from automata.core import Agent
from automata.eval import AgentFactory, TrialContext
from automata.tools import SearchError, SearchResult
from deep_research.demo import DemoSearcher, demo_providers
from deep_research.team import TeamProviders, build_orchestrator, build_researcher, build_writer

__all__ = ["FACTORIES", "FailingSearcher", "team_providers"]


class FailingSearcher:
    """A `Searcher` whose backend is down: every query raises `SearchError`."""

    async def search(self, query: str, *, max_results: int) -> Sequence[SearchResult]:
        raise SearchError("the search service is unavailable")


def team_providers(ctx: TrialContext) -> TeamProviders:
    """The demo's scripted models, or the run's `--model` for every role."""
    if ctx.model is None:
        return demo_providers()
    return TeamProviders.shared(Agent(ctx.model).provider)


def orchestrator(ctx: TrialContext) -> Agent:
    """The whole team: the orchestrator with its researcher and writer tools."""
    return build_orchestrator(team_providers(ctx), DemoSearcher())


def researcher(ctx: TrialContext) -> Agent:
    """One researcher, searching the demo's canned sources."""
    return build_researcher(team_providers(ctx).researcher, DemoSearcher())


def researcher_search_down(ctx: TrialContext) -> Agent:
    """One researcher whose every search fails."""
    return build_researcher(team_providers(ctx).researcher, FailingSearcher())


def writer(ctx: TrialContext) -> Agent:
    """The writer on its own (it has no tools)."""
    return build_writer(team_providers(ctx).writer)


FACTORIES: Mapping[str, AgentFactory] = {
    "orchestrator": orchestrator,
    "researcher": researcher,
    "researcher_search_down": researcher_search_down,
    "writer": writer,
}
