"""Model strings: `"anthropic:claude-sonnet-4-5"` resolved to a provider object through
the provider extensions installed beside the core.

An extension registers itself under the entry-point group `automata.providers`: the
entry point's name is the prefix and its object is called with the model name. The core
names no vendor and imports nothing until a string asks for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points

from automata.core._errors import ArgumentTypeError, InvalidArgumentError
from automata.core._provider import Provider

__all__ = [
    "ENTRY_POINT_GROUP",
    "KNOWN_EXTENSIONS",
    "UnknownProviderError",
    "as_provider",
    "check_provider",
    "resolve_model",
]

ENTRY_POINT_GROUP = "automata.providers"
"""The entry-point group provider extensions register under."""

KNOWN_EXTENSIONS = {
    "anthropic": "automata-ai-anthropic",
    "openai": "automata-ai-openai",
    "openai-responses": "automata-ai-openai",
}
"""Prefixes of the first-party extensions and the distribution that provides each, so
a missing one is named in the error."""


class UnknownProviderError(InvalidArgumentError):
    """A model string whose prefix no installed extension provides."""


def _installed() -> Iterable[EntryPoint]:
    return entry_points(group=ENTRY_POINT_GROUP)


def resolve_model(
    spec: str, *, installed: Callable[[], Iterable[EntryPoint]] = _installed
) -> Provider:
    """The provider a `"prefix:model"` string names, built with the extension's
    defaults (keys and base URLs from the vendor's usual environment variables).

    Raises `UnknownProviderError` naming the package to install when no installed
    extension has the prefix, and `ArgumentTypeError` for a string without a prefix.
    Whatever the extension raises while building the provider (a missing API key,
    say) propagates unchanged.
    """
    prefix, sep, model = spec.partition(":")
    if not sep or not prefix or not model:
        raise ArgumentTypeError(
            f"Agent() got the model string {spec!r}, which names no provider; write it "
            f'as "provider:model" (e.g. "openai:gpt-4o", "anthropic:claude-sonnet-4-5") '
            "or pass a provider object"
        )
    found = {point.name: point for point in installed()}
    point = found.get(prefix)
    if point is None:
        package = KNOWN_EXTENSIONS.get(prefix)
        if package is not None:
            raise UnknownProviderError(
                f"model string {spec!r} needs the {package} package: pip install {package}"
            )
        known = ", ".join(sorted(found)) or "none"
        raise UnknownProviderError(
            f"model string {spec!r}: no installed extension provides {prefix!r} "
            f"(installed: {known}); install the extension that registers it under the "
            f"{ENTRY_POINT_GROUP!r} entry points"
        )
    factory = point.load()
    provider: Provider = factory(model)
    return provider


_PROVIDER_FACTS = ("provider_name", "model", "supports_streaming", "supports_native_output")


def check_provider(provider: object, *, where: str = "Agent()") -> None:
    """Refuse what is not a provider with an `ArgumentTypeError` whose message names
    `where` (the call that was given it) and the fix."""
    hint = (
        'pass a provider object, e.g. AnthropicProvider("claude-sonnet-4-5") from '
        'automata.anthropic, or a model string such as "anthropic:claude-sonnet-4-5"'
    )
    if provider is None:
        raise ArgumentTypeError(f"{where} needs a provider, got None; {hint}")
    if not callable(getattr(provider, "complete", None)):
        raise ArgumentTypeError(
            f"{where} needs a provider (an object with an async `complete` method), "
            f"got an object of type {type(provider).__name__}; {hint}"
        )
    missing = [name for name in _PROVIDER_FACTS if not hasattr(provider, name)]
    if missing:
        raise ArgumentTypeError(
            f"provider {type(provider).__name__} does not declare "
            f"{', '.join(missing)}; see the Provider protocol in automata.core"
        )


def as_provider(value: object, *, where: str = "Agent()") -> Provider:
    """`value` as a provider: a model string resolved (`resolve_model`), a provider
    object checked (`check_provider`) and returned as is."""
    provider = resolve_model(value) if isinstance(value, str) else value
    check_provider(provider, where=where)
    return provider  # type: ignore[return-value]
