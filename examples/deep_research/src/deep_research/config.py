"""Choosing the models and the search backend from flags and the environment.

The vendor SDKs are imported only when their provider or backend is chosen, so the
demo starts without loading them.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Literal

from automata.tools import Searcher
from deep_research.demo import DemoSearcher, demo_providers
from deep_research.team import TeamProviders

__all__ = [
    "DEFAULT_MODELS",
    "PROVIDERS",
    "ConfigError",
    "Settings",
    "open_team",
    "pick_provider",
]

ProviderName = Literal["anthropic", "openai", "demo"]
SearchName = Literal["tavily", "demo"]

PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "openai", "demo")
DEFAULT_MODELS: Mapping[str, str] = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1"}
_KEYS: Mapping[str, str] = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


class ConfigError(Exception):
    """The flags and environment do not make a runnable setup; the message says why."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything `open_team` needs. `search` None means the provider's natural
    choice: canned results for the demo, Tavily otherwise."""

    provider: ProviderName
    model: str | None = None
    search: SearchName | None = None
    tavily_base_url: str | None = None
    pace: float = 0.0


def pick_provider(flag: str | None, environ: Mapping[str, str]) -> ProviderName:
    """`--provider`, else `DEEP_RESEARCH_PROVIDER`, else the first provider whose API
    key is set, else the demo."""
    chosen = flag or environ.get("DEEP_RESEARCH_PROVIDER", "").strip().lower()
    if chosen:
        for name in PROVIDERS:
            if name == chosen:
                return name
        raise ConfigError(f"unknown provider {chosen!r}: choose one of {', '.join(PROVIDERS)}")
    if environ.get(_KEYS["anthropic"]):
        return "anthropic"
    if environ.get(_KEYS["openai"]):
        return "openai"
    return "demo"


async def open_team(
    settings: Settings, environ: Mapping[str, str], stack: AsyncExitStack
) -> tuple[TeamProviders, Searcher]:
    """The providers and searcher `settings` ask for; whatever holds connections is
    closed when `stack` closes. Raises `ConfigError` for a missing key."""
    search = settings.search or ("demo" if settings.provider == "demo" else "tavily")
    searcher: Searcher
    if search == "demo":
        searcher = DemoSearcher(pace=settings.pace)
    else:
        from automata.tavily import TavilySearch

        try:
            tavily = TavilySearch(base_url=settings.tavily_base_url)
        except ValueError as exc:
            raise ConfigError(f"{exc} (or use --search demo for canned results)") from None
        stack.push_async_callback(tavily.aclose)
        searcher = tavily

    if settings.provider == "demo":
        return demo_providers(settings.pace), searcher
    key = _KEYS[settings.provider]
    if not environ.get(key):
        raise ConfigError(f"--provider {settings.provider} needs {key} in the environment")
    model = settings.model or DEFAULT_MODELS[settings.provider]
    if settings.provider == "anthropic":
        from automata.anthropic import AnthropicProvider

        anthropic = await stack.enter_async_context(AnthropicProvider(model))
        return TeamProviders.shared(anthropic), searcher
    from automata.openai import OpenAIProvider

    openai = await stack.enter_async_context(OpenAIProvider(model))
    return TeamProviders.shared(openai), searcher
