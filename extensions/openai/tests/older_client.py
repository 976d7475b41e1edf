"""A client the default path cannot post through, so calls go through the SDK's
`create` methods: how the tests reach the fallback path, whose SDK models are dumped
into the same reader as a raw reply's JSON."""

from __future__ import annotations

import warnings
from typing import Any

from automata_wire_testing.older_clients import without_raw_post
from openai import AsyncOpenAI

from automata.openai import OpenAIProvider

__all__ = ["OlderOpenAI", "ThroughCreate", "through_create"]


OlderOpenAI = without_raw_post(AsyncOpenAI)
"""A client whose `post` no longer takes the body as JSON data, `body` (an SDK that
changed it)."""


class ThroughCreate(OpenAIProvider):
    """`OpenAIProvider` on an `OlderOpenAI` it builds (and owns): every call goes
    through `chat.completions.create`."""

    client_class = OlderOpenAI


def through_create(model: str, **options: Any) -> ThroughCreate:
    """A `ThroughCreate` provider, checking that it warned it goes through `create`
    (options the provider refuses raise as they would on the default path)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        provider = ThroughCreate(model, **options)
    assert [str(w.message) for w in caught] == [
        "OpenAIProvider: calls go through chat.completions.create: "
        "OlderOpenAI.post takes no body, options, stream"
    ]
    return provider
