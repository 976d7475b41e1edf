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
    "check",
    "open_team",
    "pick_provider",
]

ProviderName = Literal["anthropic", "openai", "demo"]
SearchName = Literal["tavily", "demo"]

PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "openai", "demo")
DEFAULT_MODELS: Mapping[str, str] = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-4.1"}
_KEYS: Mapping[str, str] = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
_TAVILY_KEY = "TAVILY_API_KEY"


class ConfigError(Exception):
    """The flags and environment do not make a runnable setup; the message says why."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything `open_team` needs. `search` None means the provider's natural
    choice: canned results for the demo, Tavily otherwise. `base_url` is an
    OpenAI-compatible endpoint for the openai provider."""

    provider: ProviderName
    model: str | None = None
    search: SearchName | None = None
    tavily_base_url: str | None = None
    base_url: str | None = None
    pace: float = 0.0

    @property
    def search_backend(self) -> SearchName:
        """The search backend this run uses."""
        return self.search or ("demo" if self.provider == "demo" else "tavily")


def pick_provider(
    flag: str | None, environ: Mapping[str, str], *, base_url: str | None = None
) -> ProviderName:
    """`--provider`, else `DEEP_RESEARCH_PROVIDER`, else openai when `--base-url` names
    an OpenAI-compatible endpoint, else the first provider whose API key is set, else
    the demo."""
    chosen = flag or environ.get("DEEP_RESEARCH_PROVIDER", "").strip().lower()
    if chosen:
        for name in PROVIDERS:
            if name == chosen:
                return name
        raise ConfigError(f"unknown provider {chosen!r}: choose one of {', '.join(PROVIDERS)}")
    if base_url:
        return "openai"
    if environ.get(_KEYS["anthropic"]):
        return "anthropic"
    if environ.get(_KEYS["openai"]):
        return "openai"
    return "demo"


def check(settings: Settings, environ: Mapping[str, str]) -> None:
    """Raise `ConfigError` if `settings` cannot run in `environ`: a `--base-url` for a
    provider other than openai, or missing API keys (all of them named at once, with
    the flag that runs without each)."""
    if settings.base_url and settings.provider != "openai":
        raise ConfigError(
            "--base-url is for OpenAI-compatible endpoints: use it with --provider openai"
        )
    missing: list[tuple[str, str]] = []  # (variable, the flag that needs it)
    if settings.provider != "demo" and not environ.get(_KEYS[settings.provider]):
        missing.append((_KEYS[settings.provider], f"--provider {settings.provider}"))
    if settings.search_backend == "tavily" and not environ.get(_TAVILY_KEY):
        missing.append((_TAVILY_KEY, "--search tavily"))
    if not missing:
        return
    names = " and ".join(f"{key} (for {flag})" for key, flag in missing)
    instead = " ".join(f"{flag.split()[0]} demo" for _, flag in missing)
    them = "it" if len(missing) == 1 else "them"
    raise ConfigError(
        f"missing {names}; set {them} in the environment, or use {instead} to run without {them}"
    )


async def open_team(
    settings: Settings, environ: Mapping[str, str], stack: AsyncExitStack
) -> tuple[TeamProviders, Searcher]:
    """The providers and searcher `settings` ask for, with the keys in `environ`;
    whatever holds connections is closed when `stack` closes. Raises `ConfigError`
    (see `check`) before opening anything."""
    check(settings, environ)
    searcher: Searcher
    if settings.search_backend == "demo":
        searcher = DemoSearcher(pace=settings.pace)
    else:
        from automata.tavily import TavilySearch

        tavily = TavilySearch(environ[_TAVILY_KEY], base_url=settings.tavily_base_url)
        stack.push_async_callback(tavily.aclose)
        searcher = tavily

    if settings.provider == "demo":
        return demo_providers(settings.pace), searcher
    key = environ[_KEYS[settings.provider]]
    model = settings.model or DEFAULT_MODELS[settings.provider]
    if settings.provider == "anthropic":
        from automata.anthropic import AnthropicProvider

        anthropic = await stack.enter_async_context(AnthropicProvider(model, api_key=key))
        return TeamProviders.shared(anthropic), searcher
    from automata.openai import OpenAIProvider

    openai = await stack.enter_async_context(
        OpenAIProvider(model, api_key=key, base_url=settings.base_url)
    )
    return TeamProviders.shared(openai), searcher
