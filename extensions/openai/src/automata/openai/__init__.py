"""OpenAI Chat Completions provider for automata (and compatible servers).

`OpenAIProvider` wraps the official `openai` SDK and implements
`automata.core.StreamProvider`: text, tool calls and results (errors prefixed
`error: `, returned images forwarded in a user message), images, native structured
output through `response_format`, usage with cached tokens, and rate-limit retries.
"""

from automata.core.providers import DEFAULT_RETRY_STATUSES
from automata.openai._provider import OpenAIProvider
from automata.openai._wire import ERROR_PREFIX, FINISH_REASONS, map_finish_reason

__all__ = [
    "DEFAULT_RETRY_STATUSES",
    "ERROR_PREFIX",
    "FINISH_REASONS",
    "OpenAIProvider",
    "map_finish_reason",
]
