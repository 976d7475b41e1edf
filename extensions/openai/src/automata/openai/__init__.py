"""OpenAI providers for automata (and compatible servers): Chat Completions and the
Responses API.

`OpenAIProvider` wraps the official `openai` SDK and implements
`automata.core.StreamProvider`: text, tool calls and results (errors prefixed
`error: `, returned images forwarded in a user message), images, native structured
output through `response_format`, usage with cached tokens, and rate-limit retries.
`OpenAIResponsesProvider` speaks the Responses API (`client.responses.create`):
reasoning items sent back verbatim (stateless with `store=False`), parallel function
calls, images and documents, citations, native structured output through
`text.format`, its own stream events, and `previous_response_id` as an option. Both
are also a `ModelCatalog` and an `Embedder`.
"""

from automata.core.providers import DEFAULT_RETRY_STATUSES
from automata.openai._provider import OpenAIProvider
from automata.openai._responses_provider import OpenAIResponsesProvider
from automata.openai._wire import ERROR_PREFIX, FINISH_REASONS, map_finish_reason

__all__ = [
    "DEFAULT_RETRY_STATUSES",
    "ERROR_PREFIX",
    "FINISH_REASONS",
    "OpenAIProvider",
    "OpenAIResponsesProvider",
    "map_finish_reason",
]
