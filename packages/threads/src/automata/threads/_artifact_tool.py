"""`read_artifact`: the tool a thread's model reads an artifact with, page by page.

The model is shown an artifact's preview and id in a tool result (core `Artifact`);
give the thread's agent this tool (from the host's factory) and it can read on from
the offset the preview names. It reads what the journal holds, so it serves
artifacts of earlier turns and of calls committed before a restart alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from automata.core import FunctionTool, ImageBlock, TextBlock, ToolContext, ToolResult, tool
from automata.threads._agents import thread_of
from automata.threads._errors import ItemNotFoundError, PageBoundError

if TYPE_CHECKING:
    from automata.threads._service import ThreadService

__all__ = ["READ_PAGE", "read_artifact_tool"]

READ_PAGE = 8000
"""The characters of a text artifact one `read_artifact` call returns by default."""


def read_artifact_tool(
    service: ThreadService, *, page: int = READ_PAGE, name: str = "read_artifact"
) -> FunctionTool:
    """A tool `read_artifact(id, offset=0)` reading `page` characters of one of the
    calling thread's text artifacts from `offset`, ending with where the next page
    starts; an image artifact comes back whole as an image, any other binary one as an
    error result naming its media type. Unknown ids and offsets past the end are error
    results the model can correct. Read-only, so idempotent."""

    async def read_artifact(
        id: Annotated[str, "The artifact id a tool result named (art-...)."],
        context: ToolContext[Any],
        offset: Annotated[int, "Where to start reading, in characters."] = 0,
    ) -> ToolResult:
        thread_id = thread_of(context)
        if thread_id is None:
            return ToolResult.error(f"{name} runs only in a thread service's turn")
        try:
            first = await service.artifact(thread_id, id, offset=offset, limit=page)
        except (ItemNotFoundError, PageBoundError) as exc:
            return ToolResult.error(str(exc))
        info = first.info
        if isinstance(first.content, str):
            end = first.next_offset
            tail = (
                f"[end of {info.id}]"
                if end is None
                else f'[continues: read_artifact(id="{info.id}", offset={end})]'
            )
            return ToolResult.text(f"{first.content}\n{tail}")
        if not info.media_type.startswith("image/"):
            return ToolResult.error(
                f"{info.id} is {info.media_type} ({info.size} bytes), which cannot be read as text"
            )
        data = b""
        at: int | None = 0
        while at is not None:
            got = await service.artifact(thread_id, id, offset=at)
            if isinstance(got.content, bytes):
                data += got.content
            at = got.next_offset
        image = ImageBlock(media_type=info.media_type, data=data)
        return ToolResult(content=(TextBlock(text=f"{info.id}:"), image))

    return tool(
        read_artifact,
        name=name,
        description=(
            "Read more of an artifact a tool result previewed, by its id, from an offset."
        ),
        idempotent=True,
    )
