"""The "Cloud platforms" sample of docs/providers.md runs as written: every client class
it names builds a provider offline (nothing is sent until a call)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from automata.anthropic import AnthropicProvider
from automata.openai import OpenAIProvider

DOC = Path(__file__).resolve().parents[3] / "docs" / "providers.md"


def cloud_platforms_sample() -> str:
    """The first Python block after the section's heading."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Cloud platforms", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "the Cloud platforms section has no Python sample"
    return found.group(1)


def test_the_cloud_platforms_sample_builds_a_provider_for_every_client_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Credentials the clients would otherwise find in the machine's environment.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    monkeypatch.setenv("ANTHROPIC_FOUNDRY_API_KEY", "foundry-key")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-project")
    namespace: dict[str, object] = {}
    exec(compile(cloud_platforms_sample(), str(DOC), "exec"), namespace)
    built = {name: type(namespace[name]) for name in ("bedrock", "vertex", "foundry")}
    assert built == dict.fromkeys(("bedrock", "vertex", "foundry"), AnthropicProvider)
    assert isinstance(namespace["azure"], OpenAIProvider)
    assert isinstance(namespace["gpt_on_bedrock"], OpenAIProvider)
    vertex = namespace["vertex"]
    assert isinstance(vertex, AnthropicProvider)
    assert type(vertex.client).__name__ == "AsyncAnthropicVertex"
