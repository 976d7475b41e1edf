"""First-party tools for automata agents: HTTP fetch, sandboxed files, allow-listed shell, web search."""
