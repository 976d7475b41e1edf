"""Google Gemini provider for automata.

`GoogleProvider` wraps the official `google-genai` SDK (the Gemini API and Vertex AI)
and implements `automata.core.StreamProvider`: text, thinking with thought signatures
sent back as received, parallel function calls, images, PDFs and audio in, native
structured output, Google Search grounding, code execution and URL context, a model
catalog and embeddings.
"""

from automata.core.providers import DEFAULT_RETRY_STATUSES
from automata.google._provider import DEFAULT_EMBEDDING_MODEL, GoogleProvider
from automata.google._reading import FINISH_REASONS, map_stop_reason

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_RETRY_STATUSES",
    "FINISH_REASONS",
    "GoogleProvider",
    "map_stop_reason",
]
