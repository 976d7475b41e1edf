"""Artifacts of a thread: the full content a tool returned beside its result, journaled
once, served in pages (docs/threads.md, AR rules).

The `artifact` record (data fields besides `v`): `turn` (null for one a fork or an
import copied), `call` (the call that returned it), `id` (the core's
content-addressed `Artifact.id`), `media_type`, `name`, `size` (bytes), `encoding`
(`text`, or `base64` for bytes) and `content`; and `agent`, the sub-agent tool whose
run made the call, only for an artifact of a sub-agent's call. It is committed in
the same append as the `results` record holding the preview (a sub-agent's: the
results of the parent's call that ran it), so a crash leaves both or neither. An id
the thread's journal already holds is not written again. A journal written before
artifacts has none; code that predates them skips the records (an unknown kind) and
shows the previews only.
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
    "copied_record",
]

ARTIFACT_PAGE = 100_000
"""The most characters (text) or bytes (binary) one `ThreadService.artifact` call
returns, and its default `limit`."""


@dataclass(frozen=True, slots=True)
class ArtifactInfo:
    """What a thread's view says of one artifact: its `id`, `media_type`, `size`
    (bytes), `length` (characters for text, bytes otherwise), `name`, the turn and
    call that produced it (no turn for one a fork or an import copied), the journal
    position (`seq`) it is kept at, and `agent`: the sub-agent tool whose run made
    the call (None when the thread's own agent made it)."""

    id: str
    media_type: str
    size: int
    length: int
    name: str
    is_text: bool
    turn_id: str | None
    call_id: str
    seq: int
    agent: str | None = None


@dataclass(frozen=True, slots=True)
class ArtifactPage:
    """`content[offset : offset + limit]` of an artifact (str for text, bytes
    otherwise). `next_offset` is where the next page starts, None after the last."""

    info: ArtifactInfo
    offset: int
    content: str | bytes
    next_offset: int | None


def artifact_record(
    turn_id: str | None, call_id: str, artifact: Artifact, *, agent: str | None = None
) -> NewRecord:
    """The `artifact` record keeping `artifact` whole (`agent`: the sub-agent tool
    whose run made the call, None for the thread's own agent)."""
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
        **({} if agent is None else {"agent": agent}),
    )


def copied_record(data: dict[str, Any]) -> NewRecord:
    """The `artifact` record a fork writes for the source's record `data`: the same
    fields and content, outside any turn (the fork ran none)."""
    fields = {name: value for name, value in data.items() if name != "v"}
    return encode("artifact", **{**fields, "turn": None})


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
        agent=None if data.get("agent") is None else str(data["agent"]),
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
