"""The public surface of automata.openai: pinned, and built on public core modules."""

from pathlib import Path

import automata.openai


def test_the_public_names_are_pinned() -> None:
    expected = ["DEFAULT_RETRY_STATUSES", "ERROR_PREFIX", "FINISH_REASONS", "OpenAIProvider"]
    expected.append("OpenAIResponsesProvider")
    assert automata.openai.__all__ == [*expected, "map_finish_reason"]


def test_the_sources_import_only_public_core_modules() -> None:
    private = [
        path.name
        for path in Path(automata.openai.__file__).parent.glob("*.py")
        if "automata.core._" in path.read_text()
    ]
    assert private == []
