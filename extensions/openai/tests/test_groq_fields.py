"""Groq's message fields beside the answer are kept, on both paths: `executed_tools`
(the server-side search calls and their results) and `channel`. They are kept on the
reply's first block under `extra["openai"]["received"]` and not sent back (Groq
refuses assistant message fields it does not take)."""

from __future__ import annotations

import json
from typing import Any

from automata_wire_testing import Reply, WireServer, final_response, sse_data

from automata.core import Message, ModelRequest, TextBlock

from . import replies
from .conftest import ProviderMaker

QUESTION = Message.user("What happened in Oslo today?")
ARGUMENTS = json.dumps({"query": "Oslo news today"})
RESULTS = {"results": [{"title": "Oslo", "url": "https://example.com/oslo", "score": 0.9}]}
EXECUTED: list[dict[str, Any]] = [
    {
        "index": 0,
        "type": "search",
        "arguments": ARGUMENTS,
        "output": "Title: Oslo\nURL: https://example.com/oslo",
        "search_results": RESULTS,
    }
]
RECEIVED = {"executed_tools": EXECUTED, "channel": "final"}


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse_data(
        {
            "id": "chatcmpl-groq",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "groq/compound",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def groq_stream() -> Reply:
    """The fields in fragments, as a compound model streams them: the call first, its
    output and results in a later delta of the same `index`."""
    call = {"index": 0, "type": "search", "arguments": ARGUMENTS}
    done = {key: value for key, value in EXECUTED[0].items() if key != "arguments"}
    return Reply(
        events=[
            chunk({"role": "assistant", "content": "", "channel": "final"}),
            chunk({"executed_tools": [call]}),
            chunk({"executed_tools": [done]}),
            chunk({"content": "Snow."}),
            chunk({}, "stop"),
            b"data: [DONE]\n\n",
        ]
    )


async def test_a_whole_reply_keeps_executed_tools_and_channel_as_sent(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = replies.completion("Snow.", extra={"executed_tools": EXECUTED, "channel": "final"})
    server.enqueue(replies.reply(body))
    reply = await final_response(make_provider(), ModelRequest((QUESTION,)), streamed=False)
    assert reply.message.content == (
        TextBlock(text="Snow.", extra={"openai": {"received": RECEIVED}}),
    )


async def test_a_stream_folds_executed_tools_per_index_and_keeps_the_channel(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(groq_stream())
    reply = await final_response(make_provider(), ModelRequest((QUESTION,)), streamed=True)
    assert reply.message.content == (
        TextBlock(text="Snow.", extra={"openai": {"received": RECEIVED}}),
    )


async def test_the_kept_fields_are_not_sent_back(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = replies.completion("Snow.", extra={"executed_tools": EXECUTED, "channel": "final"})
    server.enqueue(replies.reply(body), replies.reply(replies.completion("Yes.")))
    provider = make_provider()
    reply = await provider.complete(ModelRequest((QUESTION,)))
    await provider.complete(ModelRequest((QUESTION, reply.message, Message.user("Sure?"))))
    assert server.received[1].body["messages"][1] == {"role": "assistant", "content": "Snow."}
