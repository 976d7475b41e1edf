"""Artifacts as thread facts: a tool's full output is journaled once, in the append
that commits its preview, listed by the view and served in pages by the service; the
model reads on with `read_artifact` (docs/threads.md, AR rules)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

import pytest

from automata.core import (
    Agent,
    Artifact,
    ModelRequest,
    ToolResult,
    ToolResultBlock,
    artifact_of,
    tool,
)
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import (
    ARTIFACT_PAGE,
    Host,
    ItemNotFoundError,
    PageBoundError,
    ThreadService,
    ThreadView,
    read_artifact_tool,
)
from automata.threads.store import ThreadStore

OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]

PAGE = "".join(f"line {n:05d} of the page\n" for n in range(1000))  # 23,000 characters
PIXELS = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400  # 102,408 bytes


@tool
def fetch_page(which: str) -> ToolResult:
    """Fetch a page or an image."""
    if which == "image":
        return ToolResult.of_artifact(Artifact(PIXELS, "image/png", name="plot.png"))
    return ToolResult.of_artifact(Artifact(PAGE, "text/markdown", name="page.md"))


def results_of(request: ModelRequest) -> list[ToolResultBlock]:
    return [
        block
        for message in request.messages
        if message.role == "tool"
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


def reading(request: ModelRequest) -> Reply:
    """A model that fetches the page twice (the same content), then reads on from the
    preview's offset, then answers with the first line it read."""
    seen = results_of(request)
    if not seen:
        return tool_calls(
            tool_call("c1", "fetch_page", which="page"),
            tool_call("c2", "fetch_page", which="page"),
        )
    if len(seen) == 2:
        artifact_id = artifact_of(seen[0].content[0])
        return tool_calls(tool_call("c3", "read_artifact", id=artifact_id, offset=2000))
    return seen[-1].text.split("\n")[0]


def reader_agent(service: ThreadService) -> Agent[None]:
    return Agent(FunctionProvider(reading), tools=[fetch_page, read_artifact_tool(service)])


async def test_the_model_sees_a_preview_and_the_journal_keeps_the_whole_once(
    open_host: OpenHost, settle: Settle, store: ThreadStore
) -> None:
    """AR1-AR3: the results record holds only the preview; one `artifact` record,
    committed in the same append, holds the content, though two calls returned it."""
    host = await open_host()
    service = host.thread_service(lambda request: reader_agent(service))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "read it", request_key="s")
    view = await settle(service, thread.thread_id)
    assert view.status == "done", view.error
    records = await store.read(thread.thread_id)
    kept = [r for r in records if r.kind == "artifact"]
    assert len(kept) == 1
    data = json.loads(kept[0].data)
    expected = Artifact(PAGE, "text/markdown")
    assert (data["id"], data["content"], data["size"]) == (expected.id, PAGE, len(PAGE))
    assert data["call"] in ("c1", "c2")  # the call that finished first
    results = next(r for r in records if r.kind == "results")
    assert results.seq == kept[0].seq + 1  # the same append, artifact first
    assert PAGE not in results.data
    shown = json.loads(results.data)["message"]["content"][0]["content"][0]["text"]
    assert shown.startswith(f'[artifact {expected.id}: text/markdown, 23000 bytes, "page.md"]')
    (info,) = view.artifacts
    assert (info.id, info.media_type, info.size, info.length, info.name, info.is_text) == (
        expected.id,
        "text/markdown",
        23000,
        23000,
        "page.md",
        True,
    )
    assert view.to_dict()["artifacts"][0]["id"] == expected.id
    # the model read on from offset 2000: the answer is the first line there
    assert view.items[-1].text == PAGE[2000:].split("\n")[0]


async def test_the_service_serves_an_artifact_in_pages_to_its_end(
    open_host: OpenHost, settle: Settle
) -> None:
    """AR5: pages of `limit` characters from `offset`, `next_offset` None at the end;
    a binary artifact pages bytes; bad offsets, limits and ids raise typed errors."""
    host = await open_host()

    def model(request: ModelRequest) -> Reply:
        if results_of(request):
            return "done"
        return tool_calls(
            tool_call("c1", "fetch_page", which="page"),
            tool_call("c2", "fetch_page", which="image"),
        )

    service = host.thread_service(lambda r: Agent(FunctionProvider(model), tools=[fetch_page]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "go", request_key="s")
    view = await settle(service, thread.thread_id)
    # the two calls run at once: journal order is the order they finished in
    by_type = {info.media_type: info.id for info in view.artifacts}
    text_id, image_id = by_type["text/markdown"], by_type["image/png"]
    pieces: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = await service.artifact(thread.thread_id, text_id, offset=offset, limit=10_000)
        assert isinstance(page.content, str)
        pieces.append(page.content)
        offset = page.next_offset
    assert pieces == [PAGE[:10_000], PAGE[10_000:20_000], PAGE[20_000:]]
    first = await service.artifact(thread.thread_id, image_id)
    assert first.content == PIXELS[:ARTIFACT_PAGE]
    assert first.next_offset == ARTIFACT_PAGE
    rest = await service.artifact(thread.thread_id, image_id, offset=ARTIFACT_PAGE)
    assert (rest.content, rest.next_offset) == (PIXELS[ARTIFACT_PAGE:], None)
    assert rest.info.media_type == "image/png"
    with pytest.raises(PageBoundError, match="offset"):
        await service.artifact(thread.thread_id, text_id, offset=len(PAGE) + 1)
    with pytest.raises(PageBoundError, match="limit"):
        await service.artifact(thread.thread_id, text_id, limit=ARTIFACT_PAGE + 1)
    with pytest.raises(ItemNotFoundError, match="no artifact"):
        await service.artifact(thread.thread_id, "art-0000")


async def test_a_new_host_serves_the_same_artifacts_and_the_model_reads_earlier_ones(
    open_host: OpenHost, settle: Settle
) -> None:
    """AR4-AR6: another host (a restart) lists the same artifacts and its model reads
    an artifact an earlier turn produced; an unknown id is an error result it sees."""
    first = await open_host()
    service = first.thread_service(lambda request: reader_agent(service))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "read it", request_key="s")
    before = await settle(service, thread.thread_id)
    await first.shutdown()

    expected = Artifact(PAGE, "text/markdown").id

    def later(request: ModelRequest) -> Reply:
        last = request.messages[-1]
        if last.role == "user":
            return tool_calls(
                tool_call("r1", "read_artifact", id=expected, offset=22_990),
                tool_call("r2", "read_artifact", id="art-none"),
            )
        return " | ".join(block.text for block in results_of(request)[-2:])

    second = await open_host()
    again = second.thread_service(
        lambda r: Agent(FunctionProvider(later), tools=[fetch_page, read_artifact_tool(again)])
    )
    assert (await again.view(thread.thread_id)).artifacts == before.artifacts
    await again.send(thread.thread_id, "the end?", request_key="s2")
    view = await settle(again, thread.thread_id)
    assert view.artifacts == before.artifacts
    assert view.items[-1].text == (
        f"{PAGE[22_990:]}\n[end of {expected}] | "
        f"thread {thread.thread_id!r} has no artifact 'art-none'"
    )
