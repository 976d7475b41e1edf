"""Artifacts: a tool's full output kept beside the transcript, the model shown a
bounded preview and a content-addressed id (docs/threads.md, AR rules)."""

from __future__ import annotations

import pytest

from automata.core import (
    PREVIEW_CHARS,
    Agent,
    ArgumentTypeError,
    Artifact,
    InvalidArgumentError,
    StreamEvent,
    ToolResult,
    ToolResultBlock,
    ToolResultEvent,
    artifact_of,
    preview_block,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls


def test_an_artifact_id_is_the_sha256_of_its_media_type_and_content() -> None:
    """AR2: the same media type and content give the same id, whatever the name."""
    page = Artifact("# Title\n" + "x" * 5000, "text/markdown")
    again = Artifact("# Title\n" + "x" * 5000, "text/markdown", name="another name")
    assert page.id == again.id
    assert page.id.startswith("art-")
    assert len(page.id) == 36
    assert Artifact("# Title\n" + "x" * 5000, "text/plain").id != page.id
    assert Artifact("# Title\n" + "x" * 4999, "text/markdown").id != page.id


def test_size_counts_utf8_bytes_and_length_counts_the_paging_unit() -> None:
    text = Artifact("é" * 10, "text/plain")
    assert (text.size, text.length, text.is_text) == (20, 10, True)
    image = Artifact(b"\x89PNG" + bytes(96), "image/png")
    assert (image.size, image.length, image.is_text) == (100, 100, False)


def test_a_text_preview_is_the_first_2000_characters_and_a_given_one_is_cut_to_it() -> None:
    """AR1: a binary artifact has no preview unless given one."""
    assert PREVIEW_CHARS == 2000
    long = Artifact("a" * 1999 + "bc" + "d" * 10_000, "text/plain")
    assert long.preview == "a" * 1999 + "b"
    assert Artifact(b"data", "image/png", preview="p" * 3000).preview == "p" * 2000
    assert Artifact(b"data", "image/png").preview == ""


def test_bad_artifacts_are_refused_with_typed_errors() -> None:
    with pytest.raises(InvalidArgumentError, match="media type"):
        Artifact("text", "plain")
    with pytest.raises(ArgumentTypeError, match="str or bytes"):
        Artifact(["not", "content"], "text/plain")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="valid Unicode"):
        Artifact("half a pair: \ud800", "text/plain")


def test_the_preview_block_names_the_id_and_where_reading_on_starts() -> None:
    page = Artifact("w" * 5000, "text/markdown", name="https://example.test/")
    block = preview_block(page)
    lines = block.text.split("\n")
    assert lines[0] == (f'[artifact {page.id}: text/markdown, 5000 bytes, "https://example.test/"]')
    assert lines[1] == "w" * 2000
    assert lines[2] == (
        f'[preview: 2000 of 5000 characters; read on with read_artifact(id="{page.id}", '
        "offset=2000)]"
    )
    assert artifact_of(block) == page.id
    short = preview_block(Artifact("all of it", "text/plain"))
    assert short.text.split("\n")[1:] == ["all of it"]


async def test_the_model_sees_the_preview_and_the_result_event_carries_the_whole() -> None:
    """AR1: in a plain run the messages hold the preview, the event the content."""
    body = "line\n" * 2000  # 10,000 characters

    @tool
    def fetch_page() -> ToolResult:
        """Fetch the page."""
        return ToolResult.of_artifact(Artifact(body, "text/plain"), note="fetched")

    provider = ScriptedProvider([tool_calls(tool_call("c1", "fetch_page")), "done"])
    agent = Agent(provider, tools=[fetch_page])
    stream = agent.stream("go")
    events: list[StreamEvent] = [event async for event in stream]
    result = stream.result
    tool_message = result.messages[-2]
    block = tool_message.content[0]
    assert isinstance(block, ToolResultBlock)
    seen = block.text
    assert seen.startswith("fetched\n[artifact art-")
    assert body not in seen
    assert len(seen) < PREVIEW_CHARS + 300
    finished = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [a.content for a in finished[0].artifacts] == [body]
    assert artifact_of(block.content[1]) == finished[0].artifacts[0].id


async def test_a_tool_result_with_artifacts_that_are_not_artifacts_is_an_error_result() -> None:
    @tool
    def broken() -> ToolResult:
        """Broken."""
        return ToolResult.text("x").__class__(artifacts=("text",))  # type: ignore[arg-type]

    provider = ScriptedProvider([tool_calls(tool_call("c1", "broken")), "done"])
    result = await Agent(provider, tools=[broken]).run("go")
    block = result.messages[-2].content[0]
    assert isinstance(block, ToolResultBlock)
    assert block.is_error
    assert "artifacts are not Artifact values" in block.text
