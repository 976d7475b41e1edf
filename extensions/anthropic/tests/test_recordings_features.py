"""Real Anthropic traffic with newer features, replayed through the official SDK:
citations on text blocks, server web search blocks, a streamed compaction block, and
per-iteration usage. Nothing the vendor sent may be lost, and what must go back on
the next turn goes back as received.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from automata_wire_testing import Reply, WireServer, final_response, replay, sse_event

from automata.anthropic import AnthropicProvider
from automata.core import (
    CallOptions,
    Citation,
    Message,
    ModelRequest,
    ProviderError,
    RawBlock,
    StopReason,
    TextBlock,
    TextDelta,
    Usage,
)

from . import replies
from .conftest import ProviderMaker
from .recordings import load, normalized

CITATIONS = "anthropic_web_search_citations.yaml"
COMPACTION = "anthropic_stream_compaction_delta_iterations.yaml"
ADVISOR = "anthropic_usage_iterations_advisor.yaml"


def search_request(recorded: dict[str, Any], *messages: Message) -> ModelRequest:
    first = Message.user(recorded["messages"][0]["content"][0]["text"])
    return ModelRequest(
        messages=(first, *messages),
        options=CallOptions(
            max_tokens=recorded["max_tokens"],
            thinking_budget=recorded["thinking"]["budget_tokens"],
        ),
    )


def without_citations(body: dict[str, Any]) -> dict[str, Any]:
    """`normalized(body)` with the citations of text blocks left out."""
    body = normalized(body)
    for message in body["messages"]:
        for block in message["content"]:
            block.pop("citations", None)
    return body


# --- citations and server web search (JSON) ------------------------------------------


async def test_citations_are_kept_on_the_text_blocks_they_belong_to(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(CITATIONS)
    provider = replay(server, make_provider, first)
    response = await provider.complete(search_request(first.request))
    recorded = [b for b in first.reply.json_body["content"] if b["type"] == "text"]
    texts = [b for b in response.message.content if isinstance(b, TextBlock)]
    assert [(b.text, [c.raw for c in b.citations], b.extra) for b in texts] == [
        (b["text"], b.get("citations", []), None) for b in recorded
    ]
    assert sum(1 for b in texts if b.citations) == 9


async def test_web_search_citations_are_read_into_typed_fields(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(CITATIONS)
    provider = replay(server, make_provider, first)
    response = await provider.complete(search_request(first.request))
    cited = next(b for b in response.message.content if isinstance(b, TextBlock) and b.citations)
    raw = cited.citations[0].raw
    assert raw is not None
    assert cited.citations[0] == Citation(
        kind="web_search_result_location",
        provider="anthropic",
        cited_text=raw["cited_text"],
        url=raw["url"],
        title=raw["title"],
        raw=raw,
    )


async def test_server_web_search_blocks_are_kept_raw_as_received(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(CITATIONS)
    provider = replay(server, make_provider, first)
    response = await provider.complete(search_request(first.request))
    raw = [b.data for b in response.message.content if isinstance(b, RawBlock)]
    assert raw == first.reply.json_body["content"][1:3]
    assert [b["type"] for b in raw] == ["server_tool_use", "web_search_tool_result"]


async def test_the_follow_up_sends_citations_and_search_blocks_back(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(CITATIONS)
    provider = replay(server, make_provider, first, second)
    reply = await provider.complete(search_request(first.request))
    final = await provider.complete(
        search_request(first.request, reply.message, Message.user("how about Mexico City?"))
    )
    sent = server.received[1].body
    # The turn is the one the vendor accepted (its recorder had left the citations
    # out; the API takes them back on text blocks), and carries every citation.
    recorded_turn = normalized(second.request)["messages"]
    assert without_citations(sent)["messages"] == recorded_turn
    received = first.reply.json_body["content"]
    assert normalized(sent)["messages"][1]["content"] == received
    assert final.stop_reason is StopReason.END_TURN
    assert final.usage == Usage(
        input_tokens=19859,
        output_tokens=544,
        extra={"anthropic": {"server_tool_use": {"web_search_requests": 1}}},
    )


async def test_server_tool_request_counts_are_kept_in_the_usage_and_add_up(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    """The recorded search call's `server_tool_use` counts (zeros left out) are kept in
    `Usage.extra`, and two calls' counts sum."""
    first, second = load(CITATIONS)
    provider = replay(server, make_provider, first, second)
    reply = await provider.complete(search_request(first.request))
    final = await provider.complete(
        search_request(first.request, reply.message, Message.user("how about Mexico City?"))
    )
    assert reply.usage is not None
    assert final.usage is not None
    searched = {"anthropic": {"server_tool_use": {"web_search_requests": 1}}}
    assert reply.usage.extra == searched
    assert (reply.usage + final.usage).extra == {
        "anthropic": {"server_tool_use": {"web_search_requests": 2}}
    }


async def test_the_follow_up_sends_each_citation_back_byte_for_byte(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, second = load(CITATIONS)
    provider = replay(server, make_provider, first, second)
    reply = await provider.complete(search_request(first.request))
    await provider.complete(search_request(first.request, reply.message, Message.user("?")))
    sent = server.received[1].body["messages"][1]["content"]
    received = first.reply.json_body["content"]
    pairs = zip(sent, received, strict=True)
    cited = [(s["citations"], r["citations"]) for s, r in pairs if "citations" in r]
    assert len(cited) == 9
    for went_back, came in cited:
        assert json.dumps(went_back) == json.dumps(came)


# --- citations in a stream ------------------------------------------------------------


async def test_streamed_citations_deltas_end_up_as_in_the_json_reply(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first, _ = load(CITATIONS)
    body = first.reply.json_body
    provider = make_provider(model=first.request["model"])
    server.enqueue(Reply(json_body=body), Reply(events=replies.stream_events(body)))
    whole = await provider.complete(search_request(first.request))
    streamed = await final_response(provider, search_request(first.request), streamed=True)
    assert streamed.message == whole.message


# --- compaction (stream) ----------------------------------------------------------------


def compaction_summary(events: Any) -> str:
    """The compaction block's content as the recorded stream spelled it."""
    for event in events:
        for line in event.decode().splitlines():
            if line.startswith("data:") and "compaction_delta" in line:
                content: str = json.loads(line[5:])["delta"]["content"]
                return content
    raise AssertionError("no compaction_delta in the recording")


async def test_a_streamed_compaction_block_keeps_its_content(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(COMPACTION)
    provider = replay(server, make_provider, only)
    response = await final_response(
        provider, ModelRequest(messages=(Message.user("hi"),)), streamed=True
    )
    summary = compaction_summary(only.reply.events)
    assert summary.startswith("The user provided a very long context")
    assert response.message.content == (
        RawBlock(provider="anthropic", data={"type": "compaction", "content": summary}),
        TextBlock(text="Hello! \N{WAVING HAND SIGN}"),
    )


async def test_the_compaction_block_goes_back_intact_on_the_next_turn(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    (only,) = load(COMPACTION)
    provider = replay(server, make_provider, only)
    request = ModelRequest(messages=(Message.user("hi"),))
    reply = await final_response(provider, request, streamed=True)
    server.enqueue(replies.reply(replies.message([{"type": "text", "text": "ok"}])))
    await provider.complete(
        ModelRequest(messages=(*request.messages, reply.message, Message.user("again")))
    )
    sent = server.received[1].body["messages"][1]["content"]
    assert sent[0] == {"type": "compaction", "content": compaction_summary(only.reply.events)}


# --- unknown deltas ---------------------------------------------------------------------


def one_block_stream(opening: dict[str, Any], *deltas: dict[str, Any]) -> Reply:
    start = replies.message([], stop_reason=None)
    events = [sse_event("message_start", {"type": "message_start", "message": start})]
    events.append(
        sse_event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": opening},
        )
    )
    for delta in deltas:
        events.append(
            sse_event(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            )
        )
    events.append(sse_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(
        sse_event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 3},
            },
        )
    )
    events.append(sse_event("message_stop", {"type": "message_stop"}))
    return Reply(events=events)


async def test_unknown_deltas_of_an_unknown_block_are_folded_into_it(
    server: WireServer, provider: AnthropicProvider
) -> None:
    memo: dict[str, Any] = {"type": "memo", "notes": None, "tags": [], "level": 1}
    delta = {"type": "memo_delta", "notes": "ab", "tags": ["x"], "level": 2}
    server.enqueue(one_block_stream(memo, delta, {**delta, "notes": "cd", "tags": ["y"]}))
    response = await final_response(
        provider, ModelRequest(messages=(Message.user("hi"),)), streamed=True
    )
    assert response.message.content == (
        RawBlock(
            provider="anthropic",
            data={"type": "memo", "notes": "abcd", "tags": ["x", "y"], "level": 2},
        ),
    )


async def test_an_unknown_delta_of_a_text_block_fails_the_reply_loudly(
    server: WireServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        one_block_stream(
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": "Hel"},
            {"type": "emphasis_delta", "style": "bold"},
        )
    )
    items: list[object] = []

    async def read() -> None:
        async for item in provider.stream(ModelRequest(messages=(Message.user("hi"),))):
            items.append(item)

    with pytest.raises(ProviderError) as caught:
        await read()
    assert items == [TextDelta("Hel")]
    assert str(caught.value) == "anthropic: unexpected emphasis_delta in a text block"
    assert not caught.value.retryable


# --- usage.iterations ------------------------------------------------------------------


async def test_a_streamed_compaction_counts_the_compaction_pass(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    # Top level: input 181, output 8 (the `message` iteration alone). Billed: the
    # compaction iteration (100 in, 83 out, 55096 read from cache) as well.
    (only,) = load(COMPACTION)
    provider = replay(server, make_provider, only)
    response = await final_response(
        provider, ModelRequest(messages=(Message.user("hi"),)), streamed=True
    )
    assert response.usage == Usage(input_tokens=281, output_tokens=91, cache_read_tokens=55096)


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_the_advisor_models_tokens_are_counted(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    # Top level: 2390 in, 121 out (the two `message` iterations: 1128 + 1262 and
    # 110 + 11). Billed: the advisor_message iteration (2518 in, 22 out) as well.
    (only,) = load(ADVISOR)
    body = copy.deepcopy(only.reply.json_body)
    provider = make_provider(model=only.request["model"])
    server.enqueue(Reply(events=replies.stream_events(body)) if streamed else only.reply)
    response = await final_response(
        provider, ModelRequest(messages=(Message.user("2+2?"),)), streamed=streamed
    )
    assert response.usage == Usage(input_tokens=4908, output_tokens=143)
    kinds = [b.kind for b in response.message.content if isinstance(b, RawBlock)]
    assert kinds == ["server_tool_use", "advisor_tool_result"]
