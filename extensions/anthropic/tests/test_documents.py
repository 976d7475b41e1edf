"""Documents in, citations out, on the Messages API wire: what AnthropicProvider sends
for a `DocumentBlock`, how it reads the citations of a reply (JSON and stream), and
that the citations go back on the next turn exactly as the API sent them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, final_response, sent_body, tool_message

from automata.anthropic import AnthropicProvider
from automata.core import (
    Agent,
    Citation,
    DocumentBlock,
    Message,
    TextBlock,
    ToolUseBlock,
    dump_messages,
    load_messages,
)

from . import replies
from .conftest import ProviderMaker

PDF = b"%PDF-1.4 fake"
PDF_B64 = "JVBERi0xLjQgZmFrZQ=="
OK = replies.reply(replies.message([{"type": "text", "text": "ok"}]))

# A cited answer about a plain-text document, as the API sends it (the `file_id` null
# included: what goes back must be what came).
CHAR_CITATION: dict[str, Any] = {
    "type": "char_location",
    "cited_text": "The grass is green. ",
    "document_index": 0,
    "document_title": "Facts",
    "start_char_index": 0,
    "end_char_index": 20,
    "file_id": None,
}
PAGE_CITATION: dict[str, Any] = {
    "type": "page_location",
    "cited_text": "Revenue grew 12%.",
    "document_index": 1,
    "document_title": "Report",
    "start_page_number": 2,
    "end_page_number": 3,
}
CITED_REPLY = replies.message(
    [
        {"type": "text", "text": "According to the documents, "},
        {"type": "text", "text": "the grass is green", "citations": [CHAR_CITATION]},
        {"type": "text", "text": " and revenue grew.", "citations": [PAGE_CITATION]},
    ]
)


async def sent(server: WireServer, provider: AnthropicProvider, *messages: Message) -> Any:
    return (await sent_body(server, provider, ask(*messages), OK))["messages"]


# --- documents in ----------------------------------------------------------------------


async def test_a_pdf_goes_as_a_base64_document_with_title_context_and_citations(
    server: WireServer, provider: AnthropicProvider
) -> None:
    document = DocumentBlock.pdf(PDF, title="Report", context="Q3 figures", citations=True)
    messages = await sent(server, provider, Message.user([document, TextBlock(text="Sum up.")]))
    assert messages[0]["content"][0] == {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
        "title": "Report",
        "context": "Q3 figures",
        "citations": {"enabled": True},
    }


async def test_a_pdf_by_url_goes_as_a_url_source(
    server: WireServer, provider: AnthropicProvider
) -> None:
    document = DocumentBlock.pdf("https://example.com/report.pdf")
    messages = await sent(server, provider, Message.user([document]))
    assert messages[0]["content"] == [
        {"type": "document", "source": {"type": "url", "url": "https://example.com/report.pdf"}}
    ]


async def test_a_plain_text_document_goes_as_a_text_source(
    server: WireServer, provider: AnthropicProvider
) -> None:
    document = DocumentBlock.plain_text("The grass is green.", title="Facts", citations=True)
    messages = await sent(server, provider, Message.user([document]))
    assert messages[0]["content"] == [
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "The grass is green."},
            "title": "Facts",
            "citations": {"enabled": True},
        }
    ]


async def test_plain_text_given_as_bytes_goes_as_a_text_source(
    server: WireServer, provider: AnthropicProvider
) -> None:
    document = DocumentBlock(media_type="text/plain", data="Grün".encode())
    messages = await sent(server, provider, Message.user([document]))
    assert messages[0]["content"][0]["source"] == {
        "type": "text",
        "media_type": "text/plain",
        "data": "Grün",
    }


async def test_a_document_a_tool_returned_goes_in_its_tool_result(
    server: WireServer, provider: AnthropicProvider
) -> None:
    call = Message.assistant([ToolUseBlock(id="toolu_1", name="read", input={})])
    result = tool_message("toolu_1", TextBlock(text="here"), DocumentBlock.plain_text("notes"))
    messages = await sent(server, provider, Message.user("go"), call, result)
    assert messages[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [
            {"type": "text", "text": "here"},
            {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": "notes"},
            },
        ],
        "is_error": False,
    }


async def test_a_document_in_an_assistant_turn_is_not_sent(
    server: WireServer, provider: AnthropicProvider
) -> None:
    assistant = Message.assistant([DocumentBlock.plain_text("x"), TextBlock(text="done")])
    messages = await sent(server, provider, Message.user("hi"), assistant)
    assert messages[1] == {"role": "assistant", "content": "done"}


async def test_a_cache_breakpoint_may_sit_on_a_document(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    provider = make_provider(cache_conversation=True)
    body = await sent_body(server, provider, ask(Message.user([DocumentBlock.pdf(PDF)])), OK)
    assert body["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}


# --- citations out ---------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_citations_in_a_reply_are_read_into_typed_citations(
    server: WireServer, provider: AnthropicProvider, streamed: bool
) -> None:
    server.enqueue(replies.reply(CITED_REPLY))
    response = await final_response(provider, ask(Message.user("?")), streamed=streamed)
    plain, green, grew = response.message.content
    assert plain == TextBlock(text="According to the documents, ")
    assert green == TextBlock(
        text="the grass is green",
        citations=(
            Citation(
                kind="char_location",
                provider="anthropic",
                cited_text="The grass is green. ",
                document_index=0,
                document_title="Facts",
                start=0,
                end=20,
                raw=CHAR_CITATION,
            ),
        ),
    )
    assert isinstance(grew, TextBlock)
    assert grew.citations[0].kind == "page_location"
    assert (grew.citations[0].start, grew.citations[0].end) == (2, 3)
    assert grew.extra is None


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_citations_go_back_on_the_next_turn_exactly_as_received(
    server: WireServer, provider: AnthropicProvider, streamed: bool
) -> None:
    server.enqueue(replies.reply(CITED_REPLY))
    question = Message.user("?")
    response = await final_response(provider, ask(question), streamed=streamed)
    # through a saved transcript too
    history = load_messages(dump_messages([question, response.message]))
    messages = await sent(server, provider, *history, Message.user("thanks"))
    sent_blocks = messages[1]["content"]
    # The SDK parses the reply before the provider sees it, so keys come back in the
    # SDK's order; every key and value is the API's (byte for byte once keys are
    # sorted; the recorded traffic in test_recordings_features.py matches unsorted).
    canonical = json.dumps(sent_blocks, sort_keys=True)
    assert canonical == json.dumps(CITED_REPLY["content"], sort_keys=True)


async def test_another_providers_citations_are_not_sent(
    server: WireServer, provider: AnthropicProvider
) -> None:
    foreign = Citation(kind="url_citation", provider="openai", url="https://e.com", raw={})
    assistant = Message.assistant([TextBlock(text="cited", citations=(foreign,))])
    messages = await sent(server, provider, Message.user("hi"), assistant)
    assert messages[1] == {"role": "assistant", "content": "cited"}


async def test_a_streamed_agent_run_sends_the_document_and_keeps_the_citations(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(replies.reply(CITED_REPLY))
    agent = Agent(make_provider())
    facts = DocumentBlock.plain_text("The grass is green.", title="Facts", citations=True)
    async with agent.stream([facts, TextBlock(text="What colour is the grass?")]) as stream:
        async for _ in stream:
            pass
    sent_document = server.received[0].body["messages"][0]["content"][0]
    assert sent_document["citations"] == {"enabled": True}
    cited = stream.result.messages[-1].content[1]
    assert isinstance(cited, TextBlock)
    assert [c.raw for c in cited.citations] == [CHAR_CITATION]
