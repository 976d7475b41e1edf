"""web_search: what reaches the backend, and how results read to the model."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from automata.core import InvalidToolArguments
from automata.tools import SearchError, SearchResult, web_search

from .conftest import Invoke


class RecordingSearcher:
    """A backend that returns canned results and records each query."""

    def __init__(
        self, results: Iterable[SearchResult] = (), error: Exception | None = None
    ) -> None:
        self.results = list(results)
        self.error = error
        self.calls: list[tuple[str, int]] = []

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        self.calls.append((query, max_results))
        if self.error is not None:
            raise self.error
        return self.results


def sample(n: int) -> list[SearchResult]:
    return [
        SearchResult(title=f"Title {i}", url=f"https://example.com/{i}", snippet=f"Snippet {i}.")
        for i in range(1, n + 1)
    ]


async def test_results_are_numbered_with_title_url_and_snippet(invoke: Invoke) -> None:
    tool = web_search(RecordingSearcher(sample(2)))
    result = await invoke(tool, query="python")
    assert result.as_text() == (
        "1. Title 1\n   https://example.com/1\n   Snippet 1.\n\n"
        "2. Title 2\n   https://example.com/2\n   Snippet 2."
    )


async def test_no_results_says_so_plainly(invoke: Invoke) -> None:
    result = await invoke(web_search(RecordingSearcher([])), query="zxqv nothing")
    assert not result.is_error
    assert result.as_text() == "No results found for 'zxqv nothing'."


async def test_the_default_result_count_is_passed_to_the_backend(invoke: Invoke) -> None:
    searcher = RecordingSearcher(sample(1))
    await invoke(web_search(searcher, default_results=4), query="q")
    assert searcher.calls == [("q", 4)]


async def test_the_models_result_count_is_passed_to_the_backend(invoke: Invoke) -> None:
    searcher = RecordingSearcher(sample(1))
    await invoke(web_search(searcher), query="q", max_results=2)
    assert searcher.calls == [("q", 2)]


async def test_a_result_count_over_the_ceiling_is_invalid(invoke: Invoke) -> None:
    with pytest.raises(InvalidToolArguments, match="max_results"):
        await invoke(web_search(RecordingSearcher(), max_results=5), query="q", max_results=6)


async def test_an_empty_query_is_invalid(invoke: Invoke) -> None:
    with pytest.raises(InvalidToolArguments, match="query"):
        await invoke(web_search(RecordingSearcher()), query="")


async def test_a_backend_returning_too_many_results_is_cut_to_the_count(invoke: Invoke) -> None:
    result = await invoke(web_search(RecordingSearcher(sample(8))), query="q", max_results=3)
    assert "3. Title 3" in result.as_text()
    assert "4. Title 4" not in result.as_text()


async def test_long_snippets_are_shortened_on_a_word_boundary(invoke: Invoke) -> None:
    long = SearchResult(title="T", url="https://e.com", snippet="word " * 200)
    result = await invoke(web_search(RecordingSearcher([long]), snippet_chars=50), query="q")
    snippet_line = result.as_text().splitlines()[2].strip()
    assert len(snippet_line) <= 50
    assert snippet_line.endswith("word…")


async def test_snippet_whitespace_is_collapsed(invoke: Invoke) -> None:
    messy = SearchResult(title="T", url="https://e.com", snippet="a\n\n  b\tc")
    result = await invoke(web_search(RecordingSearcher([messy])), query="q")
    assert result.as_text().splitlines()[2] == "   a b c"


async def test_a_missing_title_is_marked(invoke: Invoke) -> None:
    untitled = SearchResult(title="", url="https://e.com/x")
    result = await invoke(web_search(RecordingSearcher([untitled])), query="q")
    assert result.as_text() == "1. (untitled)\n   https://e.com/x"


async def test_a_backend_failure_is_an_error_result(invoke: Invoke) -> None:
    searcher = RecordingSearcher(error=SearchError("rate limited"))
    result = await invoke(web_search(searcher), query="q")
    assert result.is_error
    assert result.as_text() == "search failed: rate limited"


def test_the_schema_states_the_result_bounds() -> None:
    schema = web_search(RecordingSearcher(), max_results=7, default_results=3).input_schema
    bounds = schema["properties"]["max_results"]
    assert (bounds["minimum"], bounds["maximum"], bounds["default"]) == (1, 7, 3)
    assert schema["required"] == ["query"]
