"""Artifacts: content a tool hands back that is too big, or not meant, for the model to
read whole (a fetched page, a generated file, an image).

A tool returns `ToolResult.of_artifact(artifact)`: the result's content is one text
block, the artifact's preview (at most `PREVIEW_CHARS` characters) under a header
naming its id, media type and size, and the full content travels beside it, on
`ToolResult.artifacts` and on the call's `ToolResultEvent.artifacts`, never in the
transcript. The model therefore sees the preview and an id it can ask for.

An artifact's id is content-addressed: `art-` and the first 32 hex digits of the
SHA-256 of its media type and content. The same content gets the same id in every
process, before anything is stored and after any restart, a retried call that
produces the same bytes names the same artifact (a durable thread stores it once),
and a forked transcript's previews still name what they showed. What keeps the full
content is the caller's choice: a durable thread journals it (docs/threads.md, AR
rules); a plain run leaves it on the `ToolResultEvent` for whoever streams the run
and keeps only the preview in its messages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from automata.core._blocks import TextBlock
from automata.core._errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["PREVIEW_CHARS", "Artifact", "artifact_of", "preview_block"]

PREVIEW_CHARS = 2000
"""The most characters of an artifact the model is shown in its tool result."""

_EXTRA_KEY = "automata"


@dataclass(frozen=True, slots=True)
class Artifact:
    """A tool's output kept whole beside the transcript: `content` (text, or bytes for
    an image or a file), its `media_type` (`text/markdown`, `image/png`, ...), an
    optional `name` (a file name, a URL) and the `preview` the model sees.

    Text content is previewed by its first `PREVIEW_CHARS` characters unless a
    `preview` is given; binary content has no preview unless given one (a caption).
    A given preview longer than `PREVIEW_CHARS` is cut to it. `id` and `size` (bytes;
    UTF-8 for text) follow from the content.
    """

    content: str | bytes
    media_type: str
    name: str = ""
    preview: str = field(default="")
    id: str = field(init=False, default="")
    size: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if not isinstance(self.content, str | bytes):
            raise ArgumentTypeError(
                f"an artifact's content is str or bytes, not {type(self.content).__name__}"
            )
        if not isinstance(self.media_type, str) or "/" not in self.media_type:
            raise InvalidArgumentError(
                f"an artifact needs a media type such as text/plain, got {self.media_type!r}"
            )
        if not isinstance(self.name, str) or not isinstance(self.preview, str):
            raise ArgumentTypeError("an artifact's name and preview are str")
        try:
            raw = self.content.encode("utf-8") if isinstance(self.content, str) else self.content
        except UnicodeEncodeError as error:
            raise InvalidArgumentError(
                f"an artifact's text must be valid Unicode (no lone surrogates): {error}"
            ) from None
        digest = hashlib.sha256(self.media_type.encode("utf-8") + b"\n" + raw).hexdigest()
        preview = self.preview
        if not preview and isinstance(self.content, str):
            preview = self.content
        object.__setattr__(self, "preview", preview[:PREVIEW_CHARS])
        object.__setattr__(self, "id", f"art-{digest[:32]}")
        object.__setattr__(self, "size", len(raw))

    @property
    def is_text(self) -> bool:
        """True when `content` is text (paged by characters), False for bytes."""
        return isinstance(self.content, str)

    @property
    def length(self) -> int:
        """How long `content` is in the unit it is paged by: characters or bytes."""
        return len(self.content)


def preview_block(artifact: Artifact) -> TextBlock:
    """The block the model sees for `artifact`: a header line naming its id, media
    type, size and name, the preview, and, when the preview is not the whole content,
    a line saying where reading on starts (`read_artifact`, offset). Its `extra`
    carries the same facts under `automata` (providers ignore it), so `artifact_of`
    reads them back from a transcript."""
    unit = "characters" if artifact.is_text else "bytes"
    named = f', "{artifact.name}"' if artifact.name else ""
    header = f"[artifact {artifact.id}: {artifact.media_type}, {artifact.size} bytes{named}]"
    lines = [header]
    if artifact.preview:
        lines.append(artifact.preview)
    shown = len(artifact.preview) if artifact.is_text else 0
    if shown < artifact.length:
        lines.append(
            f"[preview: {shown} of {artifact.length} {unit}; read on with "
            f'read_artifact(id="{artifact.id}", offset={shown})]'
        )
    facts: dict[str, Any] = {
        "id": artifact.id,
        "media_type": artifact.media_type,
        "size": artifact.size,
        "name": artifact.name,
    }
    return TextBlock(text="\n".join(lines), extra={_EXTRA_KEY: {"artifact": facts}})


def artifact_of(block: object) -> str | None:
    """The id of the artifact `block` previews, or None for any other block."""
    if not isinstance(block, TextBlock) or not block.extra:
        return None
    mine = block.extra.get(_EXTRA_KEY)
    if not isinstance(mine, dict):
        return None
    facts = mine.get("artifact")
    if not isinstance(facts, dict):
        return None
    found = facts.get("id")
    return found if isinstance(found, str) else None
