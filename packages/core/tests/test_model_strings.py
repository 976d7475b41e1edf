"""Model strings: `Agent("prefix:model")` builds the provider an installed extension
registers under the `automata.providers` entry points; the core names no vendor."""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import EntryPoint

import pytest

from automata.core import UnknownProviderError
from automata.core._model_strings import ENTRY_POINT_GROUP, resolve_model
from automata.core.testing import ScriptedProvider

BUILT: list[str] = []


def scripted(model: str) -> ScriptedProvider:
    """An entry point's object: called with the model name."""
    BUILT.append(model)
    return ScriptedProvider(["hi"])


def only(*points: EntryPoint) -> Iterable[EntryPoint]:
    return points


ACME = EntryPoint("acme", f"{__name__}:scripted", ENTRY_POINT_GROUP)


def test_the_prefix_picks_the_extension_and_the_rest_is_the_model() -> None:
    BUILT.clear()
    provider = resolve_model("acme:big-model:v2", installed=lambda: only(ACME))
    assert isinstance(provider, ScriptedProvider)
    assert BUILT == ["big-model:v2"]


def test_a_first_party_prefix_without_its_extension_names_the_package() -> None:
    with pytest.raises(UnknownProviderError) as caught:
        resolve_model("anthropic:claude-sonnet-4-5", installed=lambda: only(ACME))
    assert str(caught.value) == (
        "model string 'anthropic:claude-sonnet-4-5' needs the automata-ai-anthropic "
        "package: pip install automata-ai-anthropic"
    )


def test_an_unknown_prefix_lists_what_is_installed() -> None:
    with pytest.raises(UnknownProviderError) as caught:
        resolve_model("nope:model", installed=lambda: only(ACME))
    assert str(caught.value) == (
        "model string 'nope:model': no installed extension provides 'nope' (installed: "
        "acme); install the extension that registers it under the 'automata.providers' "
        "entry points"
    )


@pytest.mark.parametrize("spec", [":model", "openai:", "gpt-4o"])
def test_a_string_without_both_halves_is_refused(spec: str) -> None:
    with pytest.raises(TypeError, match="which names no provider"):
        resolve_model(spec, installed=lambda: only(ACME))
