"""Documents in, citations out, on the Chat Completions wire: what OpenAIProvider sends
for a `DocumentBlock` (a `file` content part), what it refuses (a document by URL), and
how it reads a reply's `annotations` (JSON and stream) into typed citations."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, final_response, sent_body, tool_message

from automata.core import (
    Agent,
    Citation,
    DocumentBlock,
    ImageBlock,
    Message,
    ProviderError,
    TextBlock,
    ToolUseBlock,
    dump_messages,
    load_messages,
)
from automata.openai import OpenAIProvider

from . import replies
from .conftest import ProviderMaker

PDF = b"%PDF-1.4 fake"
PDF_URL = "data:application/pdf;base64,JVBERi0xLjQgZmFrZQ=="
OK = replies.reply(replies.completion("ok"))

ANSWER = "Lisbon is sunny today (weather.example)."
ANNOTATION: dict[str, Any] = {
    "type": "url_citation",
    "url_citation": {
        "end_index": 38,
        "start_index": 23,
        "title": "Lisbon weather",
        "url": "https://weather.example/lisbon",
    },
}
CITED = replies.completion(ANSWER, extra={"annotations": [ANNOTATION]})


async def sent(server: WireServer, provider: OpenAIProvider, *messages: Message) -> Any:
    return (await sent_body(server, provider, ask(*messages), OK))["messages"]


# --- documents in ----------------------------------------------------------------------


async def test_a_pdf_goes_as_a_file_part_named_by_its_title(
    server: WireServer, provider: OpenAIProvider
) -> None:
    document = DocumentBlock.pdf(PDF, title="report.pdf")
    messages = await sent(server, provider, Message.user([document, TextBlock(text="Sum up.")]))
    assert messages[0]["content"] == [
        {"type": "file", "file": {"filename": "report.pdf", "file_data": PDF_URL}},
        {"type": "text", "text": "Sum up."},
    ]


async def test_an_untitled_document_is_named_for_its_media_type(
    server: WireServer, provider: OpenAIProvider
) -> None:
    messages = await sent(server, provider, Message.user([DocumentBlock.pdf(PDF)]))
    assert messages[0]["content"][0]["file"]["filename"] == "document.pdf"


async def test_a_plain_text_document_goes_as_a_text_plain_file_after_its_context(
    server: WireServer, provider: OpenAIProvider
) -> None:
    document = DocumentBlock.plain_text("The grass is green.", context="Facts to rely on")
    messages = await sent(server, provider, Message.user([document]))
    assert messages[0]["content"] == [
        {"type": "text", "text": "Facts to rely on"},
        {
            "type": "file",
            "file": {
                "filename": "document.txt",
                "file_data": "data:text/plain;base64,VGhlIGdyYXNzIGlzIGdyZWVuLg==",
            },
        },
    ]


async def test_a_document_by_url_is_refused_naming_the_limitation(
    server: WireServer, provider: OpenAIProvider
) -> None:
    document = DocumentBlock.pdf("https://example.com/report.pdf")
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask(Message.user([document])))
    assert str(caught.value) == (
        "openai: Chat Completions takes documents inline only, not by URL "
        "(https://example.com/report.pdf); pass the document's bytes (DocumentBlock.pdf(data))"
    )
    assert caught.value.retryable is False
    assert server.received == []


async def test_documents_a_tool_returned_follow_the_tool_messages_in_a_user_message(
    server: WireServer, provider: OpenAIProvider
) -> None:
    call = Message.assistant([ToolUseBlock(id="call_1", name="fetch", input={})])
    result = tool_message(
        "call_1",
        TextBlock(text="here"),
        ImageBlock(media_type="image/png", data=b"png"),
        DocumentBlock.pdf(PDF, title="a.pdf"),
    )
    messages = await sent(server, provider, Message.user("go"), call, result)
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "here\n[the tool returned an image and a document, "
        "attached in the next user message]",
    }
    assert messages[3] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "Files returned by tool call call_1:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,cG5n"}},
            {"type": "file", "file": {"filename": "a.pdf", "file_data": PDF_URL}},
        ],
    }


# --- citations out ---------------------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_url_citation_annotations_are_read_into_typed_citations(
    server: WireServer, provider: OpenAIProvider, streamed: bool
) -> None:
    server.enqueue(replies.reply(CITED))
    response = await final_response(provider, ask(Message.user("Weather?")), streamed=streamed)
    assert response.message.content == (
        TextBlock(
            text=ANSWER,
            citations=(
                Citation(
                    kind="url_citation",
                    provider="openai",
                    start=23,
                    end=38,
                    url="https://weather.example/lisbon",
                    title="Lisbon weather",
                    raw=ANNOTATION,
                ),
            ),
        ),
    )


async def test_citations_stay_in_the_transcript_and_are_not_sent_back(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.enqueue(replies.reply(CITED))
    question = Message.user("Weather?")
    response = await provider.complete(ask(question))
    history = load_messages(dump_messages([question, response.message]))
    assert history[1] == response.message
    messages = await sent(server, provider, *history, Message.user("thanks"))
    assert messages[1] == {"role": "assistant", "content": ANSWER}


async def test_annotations_that_are_not_a_list_are_a_malformed_reply(
    server: WireServer, provider: OpenAIProvider
) -> None:
    server.enqueue(replies.reply(replies.completion("x", extra={"annotations": "oops"})))
    with pytest.raises(ProviderError, match="malformed reply: annotations is not a list: 'oops'"):
        await final_response(provider, ask(Message.user("?")), streamed=True)


async def test_an_agent_run_sends_the_document_and_keeps_the_citations(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    server.enqueue(replies.reply(CITED))
    agent = Agent(make_provider())
    result = await agent.run([DocumentBlock.pdf(PDF), TextBlock(text="Weather?")])
    sent_part = server.received[0].body["messages"][0]["content"][0]
    assert sent_part == {"type": "file", "file": {"filename": "document.pdf", "file_data": PDF_URL}}
    (answer,) = result.messages[-1].content
    assert isinstance(answer, TextBlock)
    assert [c.url for c in answer.citations] == ["https://weather.example/lisbon"]
