"""Tavily web search backend for automata-ai-tools.

`TavilySearch` implements `automata.tools.Searcher` on Tavily's official
`tavily-python` async client::

    from automata.tavily import TavilySearch
    from automata.tools import web_search

    search_tool = web_search(TavilySearch())  # key from TAVILY_API_KEY
"""

from automata.tavily._search import TavilySearch

__all__ = ["TavilySearch"]
