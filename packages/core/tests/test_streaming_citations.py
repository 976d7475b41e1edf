"""Citations in a streamed run (docs/streaming.md, M12): they are not events; they
reach the transcript on the reply's text blocks, and the accumulator's text is the
text alone."""

from __future__ import annotations

from automata.core import Agent, Citation, Message, StreamAccumulator, TextBlock
from automata.core.testing import ScriptedProvider

CITATION = Citation(
    kind="char_location",
    provider="scripted",
    cited_text="The grass is green.",
    document_index=0,
    start=0,
    end=19,
    raw={"type": "char_location", "start_char_index": 0, "end_char_index": 19},
)
REPLY = Message.assistant(
    [TextBlock(text="It is "), TextBlock(text="green", citations=(CITATION,)), TextBlock(text=".")]
)


async def test_citations_reach_the_result_transcript_and_the_view_holds_the_text_alone() -> None:
    """M12: a streamed reply's citations are on its text blocks in `stream.result`;
    the accumulator's view joins the text with nothing added."""
    agent = Agent(ScriptedProvider([REPLY]))
    accumulator = StreamAccumulator()
    async with agent.stream("What colour is the grass?") as stream:
        async for event in stream:
            accumulator.add(event)
    answer = stream.result.messages[-1]
    assert answer.content[1] == TextBlock(text="green", citations=(CITATION,))
    (view,) = accumulator.views()
    assert view.text == "It is green."
