"""Anthropic (Claude) provider for automata.

`AnthropicProvider` wraps the official `anthropic` SDK and implements
`automata.core.StreamProvider`: text, signed thinking, tool calls and results, images,
prompt caching, native structured output, and rate-limit retries.
"""

from automata.anthropic._provider import AnthropicProvider
from automata.anthropic._wire import STOP_REASONS, map_stop_reason
from automata.core.providers import DEFAULT_RETRY_STATUSES

__all__ = ["DEFAULT_RETRY_STATUSES", "STOP_REASONS", "AnthropicProvider", "map_stop_reason"]
