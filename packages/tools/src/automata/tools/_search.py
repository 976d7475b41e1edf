"""`web_search`: vendor-neutral web search for a model.

A search backend implements `Searcher` (for example `automata.tavily.TavilySearch`);
the tool formats what it returns as numbered sources, each with a title, URL and a
short snippet, or says plainly that nothing was found.
"""

# No `from __future__ import annotations` here: the tool's parameter annotations use
# values computed when the tool is built (the result ceiling), so they must be
# evaluated then.

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Protocol

from pydantic import Field

from automata.core import Tool, ToolResult, tool
from automata.tools._errors import ToolError

__all__ = ["SearchError", "SearchResult", "Searcher", "format_results", "web_search"]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One source found by a search: where it is and a short excerpt of it."""

    title: str
    url: str
    snippet: str = ""


class SearchError(ToolError):
    """A search backend failed (rejected key, rate limit, network). The message is
    shown to the model as the tool's error result."""


class Searcher(Protocol):
    """A web search backend."""

    async def search(self, query: str, *, max_results: int) -> Sequence[SearchResult]:
        """Up to `max_results` results for `query`, best first. Raises `SearchError`."""
        ...


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rstrip()
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut + "…"


def format_results(query: str, results: Sequence[SearchResult], *, snippet_chars: int = 300) -> str:
    """Numbered sources (title, URL, snippet), or one line saying nothing was found."""
    if not results:
        return f"No results found for {query!r}."
    blocks = []
    for number, result in enumerate(results, start=1):
        title = _shorten(result.title, 200) or "(untitled)"
        lines = [f"{number}. {title}", f"   {result.url}"]
        snippet = _shorten(result.snippet, snippet_chars)
        if snippet:
            lines.append(f"   {snippet}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def web_search(
    searcher: Searcher,
    *,
    default_results: int = 5,
    max_results: int = 10,
    snippet_chars: int = 300,
    name: str = "web_search",
) -> Tool:
    """A tool that searches the web through `searcher` (the model supplies `query`
    and optionally `max_results`, between 1 and `max_results`, default
    `default_results`). Snippets are shortened to `snippet_chars` characters."""
    if max_results < 1:
        raise ValueError(f"max_results must be at least 1, got {max_results}")
    if not 1 <= default_results <= max_results:
        raise ValueError(f"default_results must be between 1 and {max_results}")
    if snippet_chars < 20:
        raise ValueError(f"snippet_chars must be at least 20, got {snippet_chars}")
    ceiling = max_results

    async def search(
        query: Annotated[str, Field(min_length=1), "What to search the web for."],
        max_results: Annotated[
            int, Field(ge=1, le=ceiling), f"How many results to return (1-{ceiling})."
        ] = default_results,
    ) -> ToolResult:
        if not query.strip():
            return ToolResult.error("the query is empty")
        try:
            results = await searcher.search(query, max_results=max_results)
        except SearchError as exc:
            return ToolResult.error(f"search failed: {exc}")
        return ToolResult.text(
            format_results(query, list(results)[:max_results], snippet_chars=snippet_chars)
        )

    return tool(
        search,
        name=name,
        description="Search the web. Returns numbered sources with title, URL and a short snippet.",
    )
