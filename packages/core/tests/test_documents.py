"""Document blocks and citations in the core: what they hold, what they refuse, and how
a transcript keeps them."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from automata.core import (
    Citation,
    DocumentBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    TranscriptError,
    dump_messages,
    load_messages,
)
from automata.core._run_arguments import task_message
from automata.core._tools import to_tool_result

PDF = b"%PDF-1.4 fake"
CITATION = Citation(
    kind="char_location",
    provider="anthropic",
    cited_text="The grass is green.",
    document_index=0,
    document_title="Facts",
    start=0,
    end=20,
    raw={
        "type": "char_location",
        "cited_text": "The grass is green.",
        "document_index": 0,
        "document_title": "Facts",
        "start_char_index": 0,
        "end_char_index": 20,
        "file_id": None,
    },
)


def test_a_pdf_document_holds_its_bytes_and_media_type() -> None:
    block = DocumentBlock.pdf(PDF, title="Report", citations=True)
    assert (block.media_type, block.data, block.url, block.text) == (
        "application/pdf",
        PDF,
        None,
        None,
    )
    assert block.title == "Report"
    assert block.citations is True


def test_a_pdf_document_by_url_holds_the_url() -> None:
    block = DocumentBlock.pdf("https://example.com/a.pdf")
    assert (block.media_type, block.url, block.data) == (
        "application/pdf",
        "https://example.com/a.pdf",
        None,
    )


def test_a_plain_text_document_is_text_plain() -> None:
    block = DocumentBlock.plain_text("The grass is green.", context="facts")
    assert (block.media_type, block.text, block.context) == (
        "text/plain",
        "The grass is green.",
        "facts",
    )


@pytest.mark.parametrize(
    "fields",
    [{}, {"media_type": "application/pdf", "data": PDF, "url": "https://example.com/a.pdf"}],
)
def test_a_document_needs_exactly_one_source(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="a document needs exactly one of data, url or text"):
        DocumentBlock.model_validate(fields)


def test_inline_document_data_needs_a_media_type() -> None:
    with pytest.raises(ValidationError, match="inline document data needs a media_type"):
        DocumentBlock(data=PDF)


def test_document_blocks_are_frozen() -> None:
    block = DocumentBlock.plain_text("x")
    with pytest.raises(ValidationError, match="frozen"):
        block.title = "y"


def test_documents_in_user_messages_and_tool_results_round_trip_through_a_transcript() -> None:
    messages = [
        Message.user([DocumentBlock.pdf(PDF, title="Report", citations=True), TextBlock(text="?")]),
        Message(
            role="tool",
            content=(
                ToolResultBlock(
                    tool_use_id="t1", content=(DocumentBlock.plain_text("notes", context="c"),)
                ),
            ),
        ),
        Message.user([DocumentBlock.pdf("https://example.com/a.pdf")]),
    ]
    dumped = dump_messages(messages)
    assert load_messages(dumped) == messages
    first = json.loads(dumped)["messages"][0]["content"][0]
    assert first == {
        "type": "document",
        "media_type": "application/pdf",
        "data": "JVBERi0xLjQgZmFrZQ==",
        "title": "Report",
        "citations": True,
    }


def test_citations_round_trip_through_a_transcript() -> None:
    messages = [Message.assistant([TextBlock(text="Green.", citations=(CITATION,))])]
    assert load_messages(dump_messages(messages)) == messages


def test_a_text_block_without_citations_dumps_as_before() -> None:
    dumped = dump_messages([Message.assistant("hi")])
    assert dumped == (
        '{"format":"automata.transcript","version":1,'
        '"messages":[{"role":"assistant","content":[{"type":"text","text":"hi"}]}]}'
    )


def test_a_citation_leaves_out_the_fields_it_does_not_say() -> None:
    block = TextBlock(text="x", citations=(Citation(kind="url_citation", url="https://e.com"),))
    dumped = json.loads(dump_messages([Message.assistant([block])]))
    assert dumped["messages"][0]["content"][0]["citations"] == [
        {"kind": "url_citation", "provider": "", "url": "https://e.com"}
    ]


def test_a_citation_whose_raw_data_json_cannot_hold_is_refused_naming_where() -> None:
    bad = Citation(kind="char_location", raw={"start_char_index": float("nan")})
    where = r"0\.content\.0\.citations\.0\.raw\.start_char_index"
    with pytest.raises(TranscriptError, match=where):
        dump_messages([Message.assistant([TextBlock(text="x", citations=(bad,))])])


def test_a_tool_may_return_a_document_as_its_result() -> None:
    document = DocumentBlock.plain_text("notes")
    assert to_tool_result([document, TextBlock(text="see above")]).content == (
        document,
        TextBlock(text="see above"),
    )


def test_a_task_may_hold_documents() -> None:
    document = DocumentBlock.pdf(PDF)
    message = task_message([document, TextBlock(text="Summarize it.")], "run")
    assert message.content == (document, TextBlock(text="Summarize it."))
