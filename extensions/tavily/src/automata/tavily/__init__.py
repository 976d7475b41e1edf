"""Tavily web search backend for automata-tools."""
