"""Documents in, citations out, on the Responses wire, through the official SDK and the
local server: what OpenAIResponsesProvider sends for a `DocumentBlock` (an
`input_file` part, in a user message or a tool's output), and how it reads a reply's
`annotations` (JSON and SSE) into typed citations that go back as received."""

from __future__ import annotations

from typing import Any

import pytest
from automata_wire_testing import (
    Reply,
    WireServer,
    ask,
    final_response,
    sent_body,
    tool_message,
)
from automata_wire_testing import responses as wire

from automata.core import (
    Agent,
    Citation,
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ToolUseBlock,
    dump_messages,
    load_messages,
)
from automata.openai import OpenAIResponsesProvider

from .responses_support import ResponsesMaker, make_provider

__all__ = ["make_provider"]

PDF = b"%PDF-1.4 fake"
PDF_URL = "data:application/pdf;base64,JVBERi0xLjQgZmFrZQ=="
OK = wire.reply(wire.response(wire.message("ok")))
MODES = pytest.mark.parametrize("streamed", [False, True], ids=["json", "sse"])

ANSWER = "Revenue rose 12% (report.pdf), see weather.example."
FILE_CITATION: dict[str, Any] = {
    "type": "file_citation",
    "file_id": "file-abc",
    "filename": "report.pdf",
    "index": 18,
}
URL_CITATION: dict[str, Any] = {
    "type": "url_citation",
    "url": "https://weather.example",
    "title": "Weather",
    "start_index": 35,
    "end_index": 50,
}
CONTAINER_CITATION: dict[str, Any] = {
    "type": "container_file_citation",
    "container_id": "cntr_1",
    "file_id": "cfile_1",
    "filename": "chart.png",
    "start_index": 0,
    "end_index": 7,
}
FILE_PATH: dict[str, Any] = {"type": "file_path", "file_id": "file-out", "index": 3}
ANNOTATIONS = [FILE_CITATION, URL_CITATION, CONTAINER_CITATION, FILE_PATH]
CITED = wire.response(wire.message(ANSWER, annotations=ANNOTATIONS))
CITATIONS = (
    Citation(
        kind="file_citation", provider="openai", document_title="report.pdf", raw=FILE_CITATION
    ),
    Citation(
        kind="url_citation",
        provider="openai",
        start=35,
        end=50,
        url="https://weather.example",
        title="Weather",
        raw=URL_CITATION,
    ),
    Citation(
        kind="container_file_citation",
        provider="openai",
        document_title="chart.png",
        start=0,
        end=7,
        raw=CONTAINER_CITATION,
    ),
    Citation(kind="file_path", provider="openai", raw=FILE_PATH),
)


async def _input(
    server: WireServer, provider: OpenAIResponsesProvider, *messages: Message
) -> list[Any]:
    items: list[Any] = (await sent_body(server, provider, ask(*messages), OK))["input"]
    return items


# --- documents in ----------------------------------------------------------------------


async def test_a_pdf_goes_as_an_input_file_with_its_data_url_named_by_its_title(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2: PDF bytes are an `input_file` with a `file_data` data URL and the title as
    `filename`."""
    document = DocumentBlock.pdf(PDF, title="report.pdf")
    items = await _input(server, provider, Message.user([document, TextBlock(text="Sum up.")]))
    assert items == [
        {
            "role": "user",
            "content": [
                {"type": "input_file", "filename": "report.pdf", "file_data": PDF_URL},
                {"type": "input_text", "text": "Sum up."},
            ],
        }
    ]


async def test_an_untitled_pdf_is_named_document_pdf(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2: an untitled PDF is `document.pdf`; a lone document still goes as a list of
    parts."""
    items = await _input(server, provider, Message.user([DocumentBlock.pdf(PDF)]))
    assert items[0]["content"] == [
        {"type": "input_file", "filename": "document.pdf", "file_data": PDF_URL}
    ]


async def test_a_pdf_by_url_goes_as_a_file_url_for_the_api_to_fetch(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2: a document by URL is an `input_file` with `file_url`, named only when titled."""
    untitled = DocumentBlock.pdf("https://example.com/a.pdf")
    titled = DocumentBlock.pdf("https://example.com/b.pdf", title="B")
    items = await _input(server, provider, Message.user([untitled, titled]))
    assert items[0]["content"] == [
        {"type": "input_file", "file_url": "https://example.com/a.pdf"},
        {"type": "input_file", "filename": "B", "file_url": "https://example.com/b.pdf"},
    ]


async def test_a_plain_text_document_goes_as_a_text_plain_file_after_its_context(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR2: plain text is an `input_file` of `text/plain` data (`document.txt` when
    untitled), its `context` an `input_text` part just before it."""
    document = DocumentBlock.plain_text("The grass is green.", context="Facts to rely on")
    items = await _input(server, provider, Message.user([document]))
    assert items[0]["content"] == [
        {"type": "input_text", "text": "Facts to rely on"},
        {
            "type": "input_file",
            "filename": "document.txt",
            "file_data": "data:text/plain;base64,VGhlIGdyYXNzIGlzIGdyZWVuLg==",
        },
    ]


async def test_documents_a_tool_returned_go_in_its_output_after_its_text(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR5: a tool result with a document is a `function_call_output` whose output is a
    list of parts: the text, then images and documents in order."""
    call = Message.assistant([ToolUseBlock(id="call_1", name="fetch", input={})])
    result = tool_message(
        "call_1",
        TextBlock(text="here"),
        ImageBlock(media_type="image/png", data=b"png"),
        DocumentBlock.pdf(PDF, title="a.pdf", context="The annual report"),
    )
    items = await _input(server, provider, Message.user("go"), call, result)
    assert items[2] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [
            {"type": "input_text", "text": "here"},
            {"type": "input_image", "image_url": "data:image/png;base64,cG5n", "detail": "auto"},
            {"type": "input_text", "text": "The annual report"},
            {"type": "input_file", "filename": "a.pdf", "file_data": PDF_URL},
        ],
    }


# --- citations out ---------------------------------------------------------------------


@MODES
async def test_every_annotation_kind_is_read_into_a_typed_citation(
    server: WireServer, provider: OpenAIResponsesProvider, streamed: bool
) -> None:
    """OR4: `file_citation`, `url_citation`, `container_file_citation` and `file_path`
    annotations are the text block's citations, each whole in `raw`."""
    server.enqueue(wire.reply(CITED))
    response = await final_response(provider, ask(Message.user("Why?")), streamed=streamed)
    (answer,) = response.message.content
    assert isinstance(answer, TextBlock)
    assert (answer.text, answer.citations) == (ANSWER, CITATIONS)


async def test_annotations_announced_in_a_stream_fill_a_final_response_without_them(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR10: `response.output_text.annotation.added` events give the citations when the
    final response leaves the part's annotations out."""
    bare = wire.response(wire.message(ANSWER))
    server.enqueue(lambda _: Reply(events=wire.stream_events(CITED, ending=bare)))
    response = await final_response(provider, ask(Message.user("Why?")), streamed=True)
    (answer,) = response.message.content
    assert isinstance(answer, TextBlock)
    assert answer.citations == CITATIONS


async def test_citations_go_back_as_the_annotations_received_after_a_transcript_round_trip(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR4: the message item goes back with its annotations exactly as received, also
    from a transcript dumped and loaded."""
    server.enqueue(wire.reply(CITED))
    question = Message.user("Why?")
    reply = await provider.complete(ask(question))
    history = load_messages(dump_messages([question, reply.message]))
    assert history[1] == reply.message
    items = await _input(server, provider, *history, Message.user("thanks"))
    assert items[1]["content"] == [
        {"type": "output_text", "text": ANSWER, "annotations": ANNOTATIONS}
    ]


async def test_annotations_kept_by_an_older_transcript_still_go_back(
    server: WireServer, provider: OpenAIResponsesProvider
) -> None:
    """OR4: a text block that keeps its annotations in `extra` (written before citations
    were typed) sends them back."""
    kept = {"openai-responses": {"item": {"id": "msg_1"}, "annotations": [URL_CITATION]}}
    old = Message.assistant([TextBlock(text="See it.", extra=kept)])
    items = await _input(server, provider, Message.user("?"), old, Message.user("ok"))
    assert items[1]["content"] == [
        {"type": "output_text", "text": "See it.", "annotations": [URL_CITATION]}
    ]


async def test_an_agent_run_sends_the_document_and_keeps_the_citations(
    server: WireServer, make_provider: ResponsesMaker
) -> None:
    """OR2, OR4: an agent's document reaches the wire and the reply's citations are in its
    transcript."""
    server.enqueue(wire.reply(CITED))
    agent = Agent(make_provider())
    result = await agent.run([DocumentBlock.pdf(PDF), TextBlock(text="Why?")])
    sent_part = server.received[0].body["input"][0]["content"][0]
    assert sent_part == {"type": "input_file", "filename": "document.pdf", "file_data": PDF_URL}
    (answer,) = result.messages[-1].content
    assert isinstance(answer, TextBlock)
    assert answer.citations == CITATIONS
