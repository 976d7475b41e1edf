"""Compaction composes with the conversation cache: the cached prefix is rewritten only
on the turns where the summary changes, and fully re-read on every other turn."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from automata_wire_testing import Reply, WireServer

from automata.core import Agent, Compactor, Message, ModelRequest, TextBlock
from automata.core._compaction import SUMMARY_OPENING
from automata.core.testing import FunctionProvider

from . import replies
from .conftest import ProviderMaker


@dataclass
class CacheRecord:
    read_blocks: int
    written_blocks: int
    breakpoint_blocks: int


@dataclass
class PromptCache:
    """The server side of Anthropic prompt caching, reduced to its rule: the prefix of
    a request (tools, system, then message blocks in order) up to a block marked with
    `cache_control` is written to the cache, and a later request that starts with a
    written prefix reads it instead of paying for it again. Token counts are the
    blocks' JSON length over four."""

    written: set[tuple[str, ...]] = field(default_factory=set)
    records: list[CacheRecord] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        keys: list[str] = []
        marked: list[int] = []
        for kind in ("tools", "system"):
            if kind in body:
                keys.append(json.dumps({kind: body[kind]}, sort_keys=True))
        for message in body["messages"]:
            for block in blocks_of(message["content"]):
                if "cache_control" in block:
                    marked.append(len(keys))
                plain = {k: v for k, v in block.items() if k != "cache_control"}
                keys.append(json.dumps({"role": message["role"], **plain}, sort_keys=True))
        read = next(
            (end for end in range(len(keys), 0, -1) if tuple(keys[:end]) in self.written), 0
        )
        end_of_cached = marked[-1] + 1 if marked else 0
        for position in marked:
            self.written.add(tuple(keys[: position + 1]))
        self.records.append(CacheRecord(read, max(0, end_of_cached - read), end_of_cached))

        def tokens(part: list[str]) -> int:
            return sum(len(k) for k in part) // 4

        last_user = blocks_of(body["messages"][-1]["content"])[-1].get("text", "")
        answer = f"answer to {last_user[:12]}" + " detail" * 20
        usage = {
            "input_tokens": tokens(keys[max(read, end_of_cached) :]),
            "cache_read_input_tokens": tokens(keys[:read]),
            "cache_creation_input_tokens": tokens(keys[read:end_of_cached]),
            "output_tokens": len(answer) // 4,
        }
        return Reply(json_body=replies.message([{"type": "text", "text": answer}], usage=usage))


def blocks_of(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A turn's content as blocks (the API reads a string as one text block)."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def numbered_summaries() -> FunctionProvider:
    """A summarizer whose every summary is new: "summary 1", "summary 2", ..."""
    count = 0

    def summarize(request: ModelRequest) -> Message:
        nonlocal count
        count += 1
        return Message.assistant(f"summary {count}")

    return FunctionProvider(summarize)


def summary_of(body: dict[str, Any]) -> str | None:
    first = blocks_of(body["messages"][0]["content"])[0]
    text = first.get("text", "")
    return text if text.startswith(SUMMARY_OPENING) else None


async def test_the_cached_prefix_is_rewritten_only_when_the_summary_changes(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    cache = PromptCache()
    server.always(cache)
    summarizer = numbered_summaries()
    compactor = Compactor(summarizer, max_tokens=600, keep_recent=2, recompute_every=6)
    provider = make_provider(cache_conversation=True)
    agent = Agent(compactor.metered(provider), system_prompt="You answer.", hooks=[compactor])
    session = agent.session()
    for turn in range(14):
        await session.run(f"question {turn:02d}: " + "context " * 25)

    bodies = [received.body for received in server.received]
    summaries = [summary_of(body) for body in bodies]
    first_compacted = next(i for i, s in enumerate(summaries) if s is not None)
    assert first_compacted > 1, "compaction started before the trigger"
    changes = [
        turn
        for turn in range(1, len(bodies))
        if summaries[turn] is not None and summaries[turn] != summaries[turn - 1]
    ]
    assert len(changes) >= 2
    assert len(summarizer.requests) == len(changes)

    # every turn re-reads all that the turn before it wrote, except when the summary
    # changed: then, and only then, the conversation prefix is written anew
    misses = [
        turn
        for turn in range(1, len(bodies))
        if cache.records[turn].read_blocks < cache.records[turn - 1].breakpoint_blocks
    ]
    assert misses == changes
    for turn in range(1, len(bodies)):
        if turn not in changes:
            added = (
                cache.records[turn].breakpoint_blocks - cache.records[turn - 1].breakpoint_blocks
            )
            assert cache.records[turn].written_blocks == added

    # and the transcript the session keeps is the uncompacted conversation
    assert not any(
        isinstance(b, TextBlock) and b.text.startswith(SUMMARY_OPENING)
        for m in session.messages
        for b in m.content
    )
    assert len(session.messages) == 1 + 2 * 14
