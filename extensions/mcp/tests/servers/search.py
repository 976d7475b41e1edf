"""An MCP server, run as a stdio subprocess, offering the deep-research `web_search`
tool backed by the example's `DemoSearcher`: the built-in tool, served over MCP.

Each query that reaches this process is appended as a line to the file named by
`SEARCH_LOG`, so a test can tell the search went through the server."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from deep_research import DemoSearcher

from automata.mcp import serve_stdio
from automata.tools import SearchResult, web_search


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as file:
        file.write(line + "\n")


class RecordingSearcher:
    """`DemoSearcher`, writing each query to `log` first."""

    def __init__(self, log: Path) -> None:
        self._log = log
        self._inner = DemoSearcher()

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        await asyncio.to_thread(_append, self._log, query)
        return await self._inner.search(query, max_results=max_results)


if __name__ == "__main__":
    searcher = RecordingSearcher(Path(os.environ["SEARCH_LOG"]))
    asyncio.run(serve_stdio([web_search(searcher, default_results=5)], name="search"))
