"""The public surface of automata.anthropic: pinned, and built on public core modules."""

from pathlib import Path

import automata.anthropic


def test_the_public_names_are_pinned() -> None:
    assert automata.anthropic.__all__ == [
        "DEFAULT_RETRY_STATUSES",
        "STOP_REASONS",
        "AnthropicProvider",
        "map_stop_reason",
    ]


def test_no_module_imports_a_private_core_module() -> None:
    sources = Path(automata.anthropic.__file__).parent.glob("*.py")
    assert [p.name for p in sources if "automata.core._" in p.read_text()] == []
