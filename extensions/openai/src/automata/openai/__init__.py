"""OpenAI Chat Completions provider for automata (and compatible servers)."""
