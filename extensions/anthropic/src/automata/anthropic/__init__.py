"""Anthropic (Claude) provider for automata."""
