"""`TavilySearch`: the `automata.tools.Searcher` backed by Tavily's official async client."""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

import httpx

from automata.tools import SearchError, SearchResult
from tavily import AsyncTavilyClient  # type: ignore[import-untyped]
from tavily.errors import (  # type: ignore[import-untyped]
    BadRequestError,
    ForbiddenError,
    InvalidAPIKeyError,
    UsageLimitExceededError,
)
from tavily.errors import TimeoutError as TavilyTimeoutError

__all__ = ["TavilySearch"]

SearchDepth = Literal["basic", "advanced", "fast", "ultra-fast"]
Topic = Literal["general", "news", "finance"]


class TavilySearch:
    """Web search through Tavily, for `automata.tools.web_search`.

    `api_key` defaults to the `TAVILY_API_KEY` environment variable; without either,
    construction fails rather than falling back to the SDK's unauthenticated mode.
    `base_url` points the official client at another server speaking Tavily's API (a
    gateway, or a local server in tests). `client` is an `httpx.AsyncClient` for the SDK
    to use (it adds its auth headers to it; you close it). Without one, the SDK's own
    client is created once per event loop and reused, so connections are pooled;
    `aclose()` (or `async with`) releases it. Failures raise `SearchError` with a
    readable message.
    """

    __slots__ = (
        "_api_key",
        "_base_url",
        "_client",
        "_clients",
        "_exclude_domains",
        "_include_domains",
        "_search_depth",
        "_timeout",
        "_topic",
    )

    def __init__(
        self,
        api_key: str | None = None,
        *,
        search_depth: SearchDepth = "basic",
        topic: Topic = "general",
        include_domains: Sequence[str] = (),
        exclude_domains: Sequence[str] = (),
        timeout: float = 30.0,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("TAVILY_API_KEY", "")
        if not key:
            raise ValueError("TavilySearch needs an API key: pass api_key or set TAVILY_API_KEY")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self._api_key = key
        self._search_depth = search_depth
        self._topic = topic
        self._include_domains = list(include_domains)
        self._exclude_domains = list(exclude_domains)
        self._timeout = timeout
        self._base_url = base_url
        self._client = client
        # One SDK client per event loop: its connections belong to the loop they were
        # opened on, so a searcher shared across loops (run_sync) must not mix them.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    def __repr__(self) -> str:
        where = f", base_url={self._base_url!r}" if self._base_url else ""
        return f"TavilySearch(search_depth={self._search_depth!r}, topic={self._topic!r}{where})"

    async def __aenter__(self) -> TavilySearch:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections this searcher opened on the running event loop
        (a `client` you passed in is yours to close)."""
        sdk = self._clients.pop(asyncio.get_running_loop(), None)
        if sdk is not None:
            await sdk.close()

    def _sdk(self) -> Any:
        loop = asyncio.get_running_loop()
        sdk = self._clients.get(loop)
        if sdk is None:
            sdk = AsyncTavilyClient(
                api_key=self._api_key, api_base_url=self._base_url, client=self._client
            )
            self._clients[loop] = sdk
        return sdk

    async def search(self, query: str, *, max_results: int) -> list[SearchResult]:
        """Up to `max_results` results for `query`, in Tavily's order."""
        sdk = self._sdk()
        try:
            response = await sdk.search(
                query,
                max_results=max_results,
                search_depth=self._search_depth,
                topic=self._topic,
                include_domains=self._include_domains or None,
                exclude_domains=self._exclude_domains or None,
                timeout=self._timeout,
            )
        except InvalidAPIKeyError as exc:
            raise SearchError(_with_detail("Tavily rejected the API key", exc)) from None
        except UsageLimitExceededError as exc:
            raise SearchError(_with_detail("Tavily usage limit reached", exc)) from None
        except ForbiddenError as exc:
            raise SearchError(_with_detail("Tavily refused the request", exc)) from None
        except BadRequestError as exc:
            raise SearchError(_with_detail("Tavily rejected the query", exc)) from None
        except TavilyTimeoutError:
            raise SearchError(f"Tavily did not answer within {self._timeout:g} s") from None
        except httpx.HTTPStatusError as exc:
            status = exc.response.status_code
            raise SearchError(f"Tavily answered HTTP {status}") from None
        except httpx.HTTPError as exc:
            raise SearchError(f"could not reach Tavily: {type(exc).__name__}: {exc}") from None
        return _results(response)


def _with_detail(message: str, exc: Exception) -> str:
    detail = str(exc).strip()
    return f"{message}: {detail}" if detail else message


def _results(response: object) -> list[SearchResult]:
    if not isinstance(response, Mapping):
        raise SearchError("Tavily returned an unexpected response")
    items: Any = response.get("results") or []
    if not isinstance(items, list):
        raise SearchError("Tavily returned an unexpected response")
    results = []
    for item in items:
        if not isinstance(item, Mapping) or not item.get("url"):
            continue
        results.append(
            SearchResult(
                title=str(item.get("title") or ""),
                url=str(item["url"]),
                snippet=str(item.get("content") or ""),
            )
        )
    return results
