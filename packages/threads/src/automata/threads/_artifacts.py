"""Artifacts of a thread: the full content a tool returned beside its result, journaled
once, served in pages (docs/threads.md, AR rules).

The `artifact` record (data fields besides `v`): `turn`, `call` (the call that
returned it), `id` (the core's content-addressed `Artifact.id`), `media_type`,
`name`, `size` (bytes), `encoding` (`text`, or `base64` for bytes) and `content`.
It is committed in the same append as the `results` record holding the preview, so
a crash leaves both or neither. An id the thread's journal already holds is not
written again. A journal written before artifacts has none; code that predates them
skips the records (an unknown kind) and shows the previews only.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from automata.core import Artifact
from automata.threads._errors import PageBoundError
from automata.threads._records import encode
from automata.threads.store import NewRecord

__all__ = [
    "ARTIFACT_PAGE",
    "ArtifactInfo",
    "ArtifactPage",
    "artifact_info",
    "artifact_page",
    "artifact_record",
]

ARTIFACT_PAGE = 100_000
"""The most characters (text) or bytes (binary) one `ThreadService.artifact` call
returns, and its default `limit`."""


@dataclass(frozen=True, slots=True)
class ArtifactInfo:
    """What a thread's view says of one artifact: its `id`, `media_type`, `size`
    (bytes), `length` (characters for text, bytes otherwise), `name`, the turn and
    call that produced it and the journal position (`seq`) it is kept at."""

    id: str
    media_type: str
    size: int
    length: int
    name: str
    is_text: bool
    turn_id: str | None
    call_id: str
    seq: int


@dataclass(frozen=True, slots=True)
class ArtifactPage:
    """`content[offset : offset + limit]` of an artifact (str for text, bytes
    otherwise). `next_offset` is where the next page starts, None after the last."""

    info: ArtifactInfo
    offset: int
    content: str | bytes
    next_offset: int | None


def artifact_record(turn_id: str, call_id: str, artifact: Artifact) -> NewRecord:
    """The `artifact` record keeping `artifact` whole."""
    content = artifact.content
    text = content if isinstance(content, str) else base64.b64encode(content).decode("ascii")
    return encode(
        "artifact",
        turn=turn_id,
        call=call_id,
        id=artifact.id,
        media_type=artifact.media_type,
        name=artifact.name,
        size=artifact.size,
        encoding="text" if isinstance(content, str) else "base64",
        content=text,
    )


def _content(data: dict[str, Any]) -> str | bytes:
    text = str(data["content"])
    return base64.b64decode(text) if data.get("encoding") == "base64" else text


def artifact_info(seq: int, data: dict[str, Any]) -> ArtifactInfo:
    """What the view shows of the `artifact` record at `seq`."""
    is_text = data.get("encoding") != "base64"
    size = int(data["size"])
    return ArtifactInfo(
        id=str(data["id"]),
        media_type=str(data["media_type"]),
        size=size,
        length=len(str(data["content"])) if is_text else size,
        name=str(data.get("name") or ""),
        is_text=is_text,
        turn_id=data.get("turn"),
        call_id=str(data.get("call") or ""),
        seq=seq,
    )


def artifact_page(
    info: ArtifactInfo, data: dict[str, Any], offset: int, limit: int
) -> ArtifactPage:
    """A page of the artifact the record `data` keeps. Raises `PageBoundError` for an
    `offset` outside 0..length or a `limit` outside 1..`ARTIFACT_PAGE`."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= ARTIFACT_PAGE:
        raise PageBoundError(f"limit must be an int from 1 to {ARTIFACT_PAGE}, got {limit!r}")
    if isinstance(offset, bool) or not isinstance(offset, int) or not 0 <= offset <= info.length:
        raise PageBoundError(f"offset must be an int from 0 to {info.length}, got {offset!r}")
    content = _content(data)
    end = offset + limit
    return ArtifactPage(info, offset, content[offset:end], end if end < info.length else None)
