"""A thread's views as ACP updates: a reply's text is sent once, whether the client
saw it live (a draft, which joins adjacent text blocks) or only once committed."""

from __future__ import annotations

from acp.schema import AgentMessageChunk, AgentThoughtChunk, TextContentBlock

from automata.acp._view_updates import ViewDiffer
from automata.core import Usage
from automata.threads import ThreadView, ViewItem


def view(*items: ViewItem, version: int) -> ThreadView:
    return ThreadView(
        thread_id="t",
        parent_id=None,
        title="",
        status="running",
        items=items,
        queue=(),
        usage=Usage(),
        version=version,
        current_turn="turn-1",
    )


def text(kind: str, key: str, written: str, *, live: bool = False) -> ViewItem:
    return ViewItem(id=key, ordinal=0, kind=kind, turn_id="turn-1", text=written, live=live)  # type: ignore[arg-type]


def sent(differ: ViewDiffer, shown: ThreadView) -> list[tuple[str, str]]:
    chunks: list[tuple[str, str]] = []
    for update in differ.updates(shown):
        assert isinstance(update, AgentMessageChunk | AgentThoughtChunk)
        assert isinstance(update.content, TextContentBlock)
        chunks.append((update.session_update, update.content.text))
    return chunks


def test_text_a_draft_showed_joined_is_not_sent_again_when_its_blocks_commit_apart() -> None:
    differ = ViewDiffer(users=False)
    user = text("user", "turn-1.0.0", "hello")
    differ.prime(view(user, version=1))
    live = view(
        user,
        text("thinking", "turn-1.1.0", "a greeting", live=True),
        text("assistant", "turn-1.1.1", "Hello, editor", live=True),
        version=2,
    )
    committed = view(
        user,
        text("thinking", "turn-1.1.0", "a greeting"),
        text("assistant", "turn-1.1.1", "Hello"),
        text("assistant", "turn-1.1.2", ", editor"),
        version=3,
    )
    assert sent(differ, live) == [
        ("agent_thought_chunk", "a greeting"),
        ("agent_message_chunk", "Hello, editor"),
    ]
    assert sent(differ, committed) == []


def test_committed_text_blocks_seen_for_the_first_time_are_sent_in_order() -> None:
    differ = ViewDiffer(users=False)
    committed = view(
        text("assistant", "turn-1.1.0", "Hello"),
        text("assistant", "turn-1.1.1", ", editor"),
        text("assistant", "turn-1.2.0", "again"),
        version=3,
    )
    assert sent(differ, committed) == [
        ("agent_message_chunk", "Hello"),
        ("agent_message_chunk", ", editor"),
        ("agent_message_chunk", "again"),
    ]
    assert sent(differ, committed) == []
