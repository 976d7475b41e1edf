"""An error event after the finish reason (OpenRouter's "token limit reached", its
chunk carrying usage) is raised, not dropped as the tail of a whole reply, and the
run counts the usage it carried. Through `chat.completions.create` (a client whose
`post` cannot take the body) the SDK's stream drops the chunk, usage and all, when it
raises: the error is raised alike."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, sse_data

from automata.core import (
    Agent,
    IncompleteResponseError,
    Message,
    ModelRequest,
    ProviderError,
    Usage,
)

from . import replies
from .conftest import ProviderMaker
from .older_client import ThroughCreate

ERROR_USAGE = {"prompt_tokens": 30, "completion_tokens": 4096, "total_tokens": 4126}
SPENT = Usage(input_tokens=30, output_tokens=4096)


def error_after_finish() -> Reply:
    body = replies.completion("Once upon a time", finish_reason="length")
    events = replies.stream_events(body, include_usage=False)[:-1]  # without [DONE]
    error_chunk: dict[str, Any] = {
        "id": body["id"],
        "object": "chat.completion.chunk",
        "created": 1,
        "model": body["model"],
        "provider": "Example",
        "error": {"code": "server_error", "message": "token limit reached"},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
        "usage": ERROR_USAGE,
    }
    return Reply(events=[*events, sse_data(error_chunk), b"data: [DONE]\n\n"])


def usage_on(provider: Any) -> Usage | None:
    """The default path keeps the error chunk's usage; the SDK's stream drops the chunk."""
    return None if isinstance(provider, ThroughCreate) else SPENT


async def test_the_error_event_after_the_finish_reason_is_raised_with_its_usage(
    server: WireServer, provider: Any
) -> None:
    server.enqueue(error_after_finish())
    request = ModelRequest(messages=(Message.user("Tell a story"),))
    with pytest.raises(ProviderError, match="token limit reached") as caught:
        _ = [item async for item in provider.stream(request)]
    assert caught.value.retryable is False
    assert caught.value.usage == usage_on(provider)


async def test_the_run_fails_incomplete_and_counts_the_usage_the_error_carried(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(error_after_finish())
    provider = make_provider()
    stream = Agent(provider).stream("Tell a story")
    with pytest.raises(IncompleteResponseError, match="token limit reached") as caught:
        _ = [event async for event in stream]
    result = caught.value.result
    assert result is not None
    assert result.usage == (usage_on(provider) or Usage())
    assert result.messages[-1].text == "Once upon a time"
