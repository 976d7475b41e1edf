"""Artifacts where a thread's history comes from elsewhere: a fork copies the artifacts
its cut previews (and none of the source's later ones), an import takes the artifacts
its tool results preview, a sub-agent's artifacts are the parent thread's, and a purge
of a fork or of its source leaves the other's copies whole (docs/threads.md, AR7-AR10).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol

import pytest

from automata.core import (
    Agent,
    Artifact,
    InvalidArgumentError,
    Message,
    ModelRequest,
    ToolResult,
    ToolResultBlock,
    artifact_of,
    as_tool,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    ItemNotFoundError,
    RequestConflictError,
    ThreadNotFoundError,
    ThreadService,
    ThreadView,
    read_artifact_tool,
)
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


class Clock(Protocol):
    """The memory store's clock the `clock` fixture gives (SQLite keeps real time)."""

    now: float


PAGES = {
    "first": "".join(f"first page, line {n:05d}\n" for n in range(4000)),  # 92,000 characters
    "later": "".join(f"later page, line {n:05d} é\n" for n in range(300)),
}
PIXELS = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 500  # 128,008 bytes


@tool
def fetch(which: str) -> ToolResult:
    """Fetch a page, or the plot."""
    if which == "plot":
        return ToolResult.of_artifact(Artifact(PIXELS, "image/png", name="plot.png"))
    return ToolResult.of_artifact(Artifact(PAGES[which], "text/plain", name=f"{which}.txt"))


def results_of(request: ModelRequest) -> list[ToolResultBlock]:
    return [
        block
        for message in request.messages
        if message.role == "tool"
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def fetching(request: ModelRequest) -> Reply:
    """Each turn fetches what its message names (space-separated), then reads the
    first artifact it got on from offset 90,000 when the message says `read`, then
    answers with the last result's first line."""
    last = request.messages[-1]
    if last.role == "user":
        words = last.text.split()
        wanted = [word for word in words if word in (*PAGES, "plot")]
        if wanted:
            return tool_calls(*(tool_call(f"c-{word}", "fetch", which=word) for word in wanted))
        first = next(block for block in results_of(request) if artifact_of(block.content[0]))
        found = artifact_of(first.content[0])
        return tool_calls(tool_call("c-read", "read_artifact", id=found, offset=90_000))
    return results_of(request)[-1].text.split("\n")[0]


async def whole(service: ThreadService, thread_id: str, artifact_id: str) -> str | bytes:
    """An artifact read back page by page, to its end."""
    pieces: list[str | bytes] = []
    offset: int | None = 0
    while offset is not None:
        page = await service.artifact(thread_id, artifact_id, offset=offset, limit=30_000)
        pieces.append(page.content)
        offset = page.next_offset
    return "".join(p for p in pieces if isinstance(p, str)) or b"".join(
        p for p in pieces if isinstance(p, bytes)
    )


def ids(view: ThreadView) -> list[str]:
    return [info.id for info in view.artifacts]


FIRST, PLOT, LATER = (
    Artifact(PAGES["first"], "text/plain"),
    Artifact(PIXELS, "image/png"),
    Artifact(PAGES["later"], "text/plain"),
)


async def test_a_fork_serves_the_artifacts_its_cut_previews_and_not_the_sources_later_ones(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """AR7: the fork's artifacts are the source's up to the cut, with the same ids and
    content and no turn; an artifact the source journaled after the cut is not the
    fork's; a fork of the fork keeps them; the fork's model reads them on."""
    service: ThreadService = await service_for(
        lambda request: Agent(
            FunctionProvider(fetching), tools=[fetch, read_artifact_tool(service)]
        )
    )
    source = (await service.create(request_key="c")).thread_id
    await service.send(source, "first plot", request_key="s1")
    await settle(service, source)
    await service.send(source, "later", request_key="s2")
    view = await settle(service, source)
    batch = ids(view)[:2]  # in the order the two calls of the first turn finished
    assert sorted(batch) == sorted([FIRST.id, PLOT.id])
    assert ids(view) == [*batch, LATER.id]
    [cut_at] = [item for item in view.items if item.call_id == "c-plot"]

    fork = await service.fork(source, cut_at.id, request_key="f1")
    assert ids(fork) == batch
    by_id = {info.id: info for info in view.artifacts}
    for info in fork.artifacts:
        kept = by_id[info.id]
        assert (info.media_type, info.size, info.length, info.name, info.call_id) == (
            kept.media_type,
            kept.size,
            kept.length,
            kept.name,
            kept.call_id,
        )
        assert info.turn_id is None  # the fork ran no turn
    assert await whole(service, fork.thread_id, FIRST.id) == PAGES["first"]
    assert await whole(service, fork.thread_id, PLOT.id) == PIXELS
    with pytest.raises(ItemNotFoundError, match="no artifact"):
        await service.artifact(fork.thread_id, LATER.id)
    # each copy is journaled just before the copied results that preview it
    records = await store.read(fork.thread_id)
    kinds = [record.kind for record in records]
    assert kinds.count("artifact") == 2
    results_at = next(
        n for n, r in enumerate(records) if r.kind == "message" and FIRST.id in r.data
    )
    assert kinds[results_at - 2 : results_at] == ["artifact", "artifact"]

    [forked_call] = [item for item in fork.items if item.call_id == "c-first"]
    again = await service.fork(fork.thread_id, forked_call.id, request_key="f2")
    assert again.artifacts == tuple(
        replace(info, seq=mine.seq)
        for info, mine in zip(fork.artifacts, again.artifacts, strict=True)
    )
    await service.send(again.thread_id, "read on", request_key="s3")
    read = await settle(service, again.thread_id)
    assert read.status == "done", read.error
    assert read.items[-1].text == PAGES["first"][90_000:].split("\n")[0]
    whole_fork = await service.fork(source, view.items[-1].id, request_key="f3")
    assert ids(whole_fork) == ids(view)
    other = await service_for(lambda request: Agent(FunctionProvider(fetching)))
    assert (await other.view(fork.thread_id)).artifacts == fork.artifacts


def transcript() -> list[Message]:
    """A conversation a plain run had: one call whose result previews `FIRST`."""
    result = ToolResult.of_artifact(Artifact(PAGES["first"], "text/plain", name="first.txt"))
    return [
        Message.user("fetch the first page"),
        Message(role="assistant", content=(tool_call("c1", "fetch", which="first"),)),
        Message(
            role="tool",
            content=(ToolResultBlock(tool_use_id="c1", content=result.content),),
        ),
        Message.assistant("fetched"),
    ]


async def test_an_import_serves_the_artifacts_its_tool_results_preview(
    service_for: ServiceFor, store: ThreadStore
) -> None:
    """AR8: an imported transcript's artifacts are served like a turn's, as returned by
    the call whose result previews them; the same request again is a duplicate, and
    with other artifacts a conflict."""
    service = await service_for(lambda request: Agent(FunctionProvider(fetching)))
    artifact = Artifact(PAGES["first"], "text/plain", name="first.txt")
    [block] = transcript()[2].content
    assert isinstance(block, ToolResultBlock)
    assert [artifact_of(inner) for inner in block.content] == [artifact.id]
    made = await service.import_transcript(
        transcript(), request_key="i1", artifacts=[artifact, artifact]
    )
    (info,) = made.artifacts
    assert (info.id, info.name, info.call_id, info.turn_id, info.length) == (
        FIRST.id,
        "first.txt",
        "c1",
        None,
        len(PAGES["first"]),
    )
    assert await whole(service, made.thread_id, FIRST.id) == PAGES["first"]
    again = await service.import_transcript(
        transcript(), request_key="i1", artifacts=[artifact, artifact]
    )
    assert again.thread_id == made.thread_id
    with pytest.raises(RequestConflictError):
        await service.import_transcript(transcript(), request_key="i1")
    plain = await service.import_transcript(transcript(), request_key="i2")
    assert plain.artifacts == ()
    kinds = [record.kind for record in await store.read(made.thread_id)]
    assert kinds == ["created", "message", "message", "artifact", "message", "message"]


async def test_an_import_refuses_artifacts_its_transcript_does_not_preview(
    service_for: ServiceFor,
) -> None:
    """AR8: an artifact no tool result previews, or an item that is not an artifact,
    is refused before anything is created."""
    service = await service_for(lambda request: Agent(FunctionProvider(fetching)))
    with pytest.raises(InvalidArgumentError, match="previewed by no tool result"):
        await service.import_transcript(transcript(), request_key="i1", artifacts=[LATER])
    with pytest.raises(InvalidArgumentError, match="not an Artifact"):
        await service.import_transcript(
            transcript(),
            request_key="i2",
            artifacts=[PAGES["first"]],  # type: ignore[list-item]
        )
    with pytest.raises(InvalidArgumentError, match="surrogate"):
        await service.import_transcript(
            transcript(),
            request_key="i3",
            artifacts=[Artifact(PAGES["first"], "text/plain", name="\ud800")],
        )
    assert (await service.list()).threads == ()


def researching(request: ModelRequest) -> Reply:
    """The sub-agent: fetches the first page, then names what it found."""
    seen = results_of(request)
    if not seen:
        return tool_calls(tool_call("sub-c1", "fetch", which="first"))
    return f"found {artifact_of(seen[0].content[0])}"


def delegating(request: ModelRequest) -> Reply:
    """The parent: asks its researcher, then reads what it found from offset 90,000."""
    seen = results_of(request)
    if not seen:
        return tool_calls(tool_call("c-ask", "researcher", task="find the first page"))
    if len(seen) == 1:
        found = seen[0].text.removeprefix("found ")
        return tool_calls(tool_call("c-read", "read_artifact", id=found, offset=90_000))
    return seen[-1].text.split("\n")[0]


async def test_a_sub_agent_s_artifact_is_journaled_and_served_from_the_parent_thread(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """AR9: an artifact a tool returned inside a sub-agent's run is journaled in the
    append of the parent's results, listed with the sub-agent's name and call, served
    by the parent thread, and read by the parent's model, also from another host."""
    researcher = Agent(FunctionProvider(researching), tools=[fetch])

    def agent(service: ThreadService) -> Agent[None]:
        return Agent(
            FunctionProvider(delegating),
            tools=[
                as_tool(researcher, "researcher", "Research a topic."),
                read_artifact_tool(service),
            ],
        )

    service: ThreadService = await service_for(lambda request: agent(service))
    thread = (await service.create(request_key="c")).thread_id
    await service.send(thread, "research", request_key="s")
    view = await settle(service, thread)
    assert view.status == "done", view.error
    (info,) = view.artifacts
    assert (info.id, info.call_id, info.agent, info.name) == (
        FIRST.id,
        "sub-c1",
        "researcher",
        "first.txt",
    )
    assert view.items[-1].text == PAGES["first"][90_000:].split("\n")[0]
    assert await whole(service, thread, FIRST.id) == PAGES["first"]
    records = await store.read(thread)
    [kept] = [r for r in records if r.kind == "artifact"]
    results = next(r for r in records if r.kind == "results")
    between = [r.kind for r in records if kept.seq < r.seq < results.seq]
    assert set(between) <= {"activity"}  # committed with the results of c-ask
    assert json.loads(kept.data)["agent"] == "researcher"
    other: ThreadService = await service_for(lambda request: agent(other))
    assert (await other.view(thread)).artifacts == view.artifacts
    assert await whole(other, thread, FIRST.id) == PAGES["first"]


async def test_purging_a_fork_or_its_source_leaves_the_others_artifacts_whole(
    service_for: ServiceFor, settle: Settle, store: ThreadStore, clock: Clock
) -> None:
    """AR10: a purged source takes its own artifact records only, so its fork still
    serves its copies; a purged fork takes its copies only, so the source still serves
    its artifacts; no purged thread leaves a record behind."""
    service = await service_for(lambda request: Agent(FunctionProvider(fetching), tools=[fetch]))

    async def later() -> None:  # the next write is later on either store's clock
        clock.now += 10
        await asyncio.sleep(0.02)

    async def source_and_fork(key: str) -> tuple[str, str]:
        source = (await service.create(request_key=f"{key}c")).thread_id
        await service.send(source, "first", request_key=f"{key}s")
        view = await settle(service, source)
        fork = await service.fork(source, view.items[-1].id, request_key=f"{key}f")
        assert ids(fork) == [FIRST.id]
        return source, fork.thread_id

    old_source, old_fork = await source_and_fork("a")
    await later()
    keep_source, drop_fork = await source_and_fork("b")
    await later()
    await service.send(keep_source, "later", request_key="b2")  # written after the forks
    await settle(service, keep_source)
    rows = {row.thread_id: row for row in (await service.list()).threads}
    assert rows[drop_fork].updated_at < rows[keep_source].updated_at
    middle = (rows[drop_fork].updated_at + rows[keep_source].updated_at) / 2
    # keep the newest three (by creation): the old source goes, its fork stays
    report = await service.purge(keep_last=3)
    assert report.thread_ids == (old_source,)
    assert await whole(service, old_fork, FIRST.id) == PAGES["first"]
    with pytest.raises(ThreadNotFoundError):  # a purged thread serves no artifact
        await service.artifact(old_source, FIRST.id)
    # now take what ended before the source's last turn: the old fork and the new fork
    report = await service.purge(ended_before=middle)
    assert set(report.thread_ids) == {old_fork, drop_fork}
    assert await whole(service, keep_source, FIRST.id) == PAGES["first"]
    assert ids(await service.view(keep_source)) == [FIRST.id, LATER.id]
    for gone in (old_source, old_fork, drop_fork):
        assert await _left(store, gone) == []


async def _left(store: ThreadStore, thread_id: str) -> list[object]:
    """What the store still reads of `thread_id` (nothing once it is gone)."""
    try:
        return list(await store.read(thread_id))
    except ThreadNotFoundError:  # a store may refuse to read an unknown thread
        return []
