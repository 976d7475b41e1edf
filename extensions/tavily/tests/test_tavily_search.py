"""TavilySearch through the official client, pointed at a local server speaking Tavily's API."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import httpx
import pytest

from automata.core import ToolContext, ToolUseBlock
from automata.tavily import TavilySearch
from automata.tools import SearchError, SearchResult, web_search

from .conftest import TavilyServer

SOURCE: dict[str, Any] = {
    "title": "asyncio — Asynchronous I/O",
    "url": "https://docs.python.org/3/library/asyncio.html",
    "content": "asyncio is a library to write concurrent code using async/await.",
    "score": 0.93,
    "raw_content": None,
}
REPLY: dict[str, Any] = {
    "query": "python asyncio",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [
        SOURCE,
        {
            "title": "Real Python: Async IO",
            "url": "https://realpython.com/async-io-python/",
            "content": "A walkthrough of async IO in Python.",
            "score": 0.81,
            "raw_content": None,
        },
    ],
    "response_time": 0.42,
}


def local(server: TavilyServer, **options: Any) -> TavilySearch:
    return TavilySearch("tvly-test-key", base_url=server.base_url, **options)


async def test_results_map_title_url_and_content(tavily_server: TavilyServer) -> None:
    tavily_server.reply = REPLY
    results = await local(tavily_server).search("python asyncio", max_results=2)
    assert results == [
        SearchResult(
            title="asyncio — Asynchronous I/O",
            url="https://docs.python.org/3/library/asyncio.html",
            snippet="asyncio is a library to write concurrent code using async/await.",
        ),
        SearchResult(
            title="Real Python: Async IO",
            url="https://realpython.com/async-io-python/",
            snippet="A walkthrough of async IO in Python.",
        ),
    ]


async def test_the_request_is_a_search_with_the_key_as_bearer_token(
    tavily_server: TavilyServer,
) -> None:
    await local(tavily_server).search("python asyncio", max_results=3)
    (request,) = tavily_server.received
    assert request.path == "/search"
    assert request.headers["authorization"] == "Bearer tvly-test-key"
    assert request.body == {
        "query": "python asyncio",
        "max_results": 3,
        "search_depth": "basic",
        "topic": "general",
    }


async def test_search_options_are_sent(tavily_server: TavilyServer) -> None:
    searcher = local(
        tavily_server,
        search_depth="advanced",
        topic="news",
        include_domains=["python.org"],
        exclude_domains=["example.com"],
    )
    await searcher.search("q", max_results=1)
    body = tavily_server.received[0].body
    assert body["search_depth"] == "advanced"
    assert body["topic"] == "news"
    assert body["include_domains"] == ["python.org"]
    assert body["exclude_domains"] == ["example.com"]


async def test_results_without_a_url_are_skipped(tavily_server: TavilyServer) -> None:
    tavily_server.reply = {"results": [{"title": "no link", "content": "x"}, SOURCE]}
    results = await local(tavily_server).search("q", max_results=5)
    assert [r.title for r in results] == ["asyncio — Asynchronous I/O"]


async def test_an_empty_result_list_is_empty(tavily_server: TavilyServer) -> None:
    tavily_server.reply = {"query": "q", "results": []}
    assert await local(tavily_server).search("q", max_results=5) == []


async def test_a_rejected_key_is_a_search_error(tavily_server: TavilyServer) -> None:
    tavily_server.status = 401
    tavily_server.reply = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
    with pytest.raises(SearchError) as caught:
        await local(tavily_server).search("q", max_results=1)
    assert str(caught.value) == (
        "Tavily rejected the API key: Unauthorized: missing or invalid API key."
    )


async def test_rate_limiting_is_a_search_error(tavily_server: TavilyServer) -> None:
    tavily_server.status = 429
    tavily_server.reply = {"detail": {"error": "Too many requests."}}
    with pytest.raises(SearchError, match=r"Tavily usage limit reached: Too many requests\."):
        await local(tavily_server).search("q", max_results=1)


async def test_a_plan_limit_is_a_search_error(tavily_server: TavilyServer) -> None:
    tavily_server.status = 432
    tavily_server.reply = {"detail": {"error": "This request exceeds your plan's set usage limit."}}
    with pytest.raises(SearchError, match="Tavily refused the request"):
        await local(tavily_server).search("q", max_results=1)


async def test_a_bad_request_is_a_search_error(tavily_server: TavilyServer) -> None:
    tavily_server.status = 400
    tavily_server.reply = {"detail": {"error": "Query is too long."}}
    with pytest.raises(SearchError, match=r"Tavily rejected the query: Query is too long\."):
        await local(tavily_server).search("q", max_results=1)


async def test_a_server_error_is_a_search_error_with_the_status(
    tavily_server: TavilyServer,
) -> None:
    tavily_server.status = 502
    tavily_server.reply = {"detail": "bad gateway"}
    with pytest.raises(SearchError, match="Tavily answered HTTP 502"):
        await local(tavily_server).search("q", max_results=1)


async def test_a_slow_answer_is_a_search_error(tavily_server: TavilyServer) -> None:
    tavily_server.delay = 1.0
    with pytest.raises(SearchError, match=r"did not answer within 0.2 s"):
        await local(tavily_server, timeout=0.2).search("q", max_results=1)


async def test_an_unreachable_server_is_a_search_error() -> None:
    searcher = TavilySearch("tvly-test-key", base_url="http://127.0.0.1:9")
    with pytest.raises(SearchError, match="could not reach Tavily: ConnectError"):
        await searcher.search("q", max_results=1)


async def test_a_shared_client_is_used_and_left_open(tavily_server: TavilyServer) -> None:
    async with httpx.AsyncClient(base_url=tavily_server.base_url) as client:
        searcher = TavilySearch("tvly-test-key", client=client)
        await searcher.search("first", max_results=1)
        await searcher.search("second", max_results=1)
        assert not client.is_closed
    assert [r.body["query"] for r in tavily_server.received] == ["first", "second"]
    assert tavily_server.received[0].headers["authorization"] == "Bearer tvly-test-key"


async def test_searches_on_one_event_loop_share_a_connection(tavily_server: TavilyServer) -> None:
    async with local(tavily_server) as searcher:
        await searcher.search("first", max_results=1)
        await searcher.search("second", max_results=1)
    first, second = tavily_server.received
    assert first.client_port == second.client_port


async def test_aclose_releases_the_connection(tavily_server: TavilyServer) -> None:
    searcher = local(tavily_server)
    await searcher.search("first", max_results=1)
    await searcher.aclose()
    await searcher.search("second", max_results=1)
    await searcher.aclose()
    first, second = tavily_server.received
    assert first.client_port != second.client_port


def test_one_searcher_works_across_event_loops(tavily_server: TavilyServer) -> None:
    # As with agent.run_sync: each call runs on a fresh event loop.
    tavily_server.reply = REPLY
    searcher = local(tavily_server)
    for query in ("first", "second"):
        results = asyncio.run(searcher.search(query, max_results=1))
        assert results[0].url == "https://docs.python.org/3/library/asyncio.html"


async def test_web_search_over_tavily_formats_numbered_sources(tavily_server: TavilyServer) -> None:
    tavily_server.reply = REPLY
    tool = web_search(local(tavily_server))
    context = ToolContext(
        call=ToolUseBlock(id="c1", name=tool.name, input={}), agent="a", invocation_id="i"
    )
    result = await tool.execute({"query": "python asyncio", "max_results": 2}, context)
    text = result.as_text() if not isinstance(result, str) else result
    assert text.startswith(
        "1. asyncio — Asynchronous I/O\n   https://docs.python.org/3/library/asyncio.html\n"
    )
    assert "2. Real Python: Async IO" in text
    assert tavily_server.received[0].body["max_results"] == 2


def test_the_key_defaults_to_the_environment(
    monkeypatch: pytest.MonkeyPatch, tavily_server: TavilyServer
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-from-env")
    TavilySearch(base_url=tavily_server.base_url)  # does not raise


def test_no_key_at_all_is_refused_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(ValueError, match="needs an API key"):
        TavilySearch()


def test_repr_does_not_show_the_key() -> None:
    assert "tvly-secret" not in repr(TavilySearch("tvly-secret"))


@pytest.mark.live
@pytest.mark.skipif(not os.environ.get("TAVILY_API_KEY"), reason="TAVILY_API_KEY is not set")
async def test_live_search_returns_sources() -> None:
    results = await TavilySearch().search("Python programming language", max_results=3)
    assert 1 <= len(results) <= 3
    assert all(r.url.startswith(("http://", "https://")) for r in results)
