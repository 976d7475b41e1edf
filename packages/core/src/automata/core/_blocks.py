"""Block-based messages: the one conversation model every provider maps onto.

A `Message` is a role plus an ordered tuple of blocks. The block set is a superset of
what any single provider exposes, so nothing is flattened on the way through: thinking
keeps its signature, tool results keep their error flag and rich content, and any block
the core does not know travels as a `RawBlock` exactly as the provider produced it.

Guarantee: `load_messages(dump_messages(messages)) == messages` for every transcript
that `dump_messages` writes. It refuses, with `TranscriptError` naming where, what JSON
cannot hold exactly (NaN and infinities, lone surrogates, integers too long for Python
to read back), and `load_messages` refuses the same, so a loaded transcript always
dumps again.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import sys
from collections.abc import Iterable, Sequence
from typing import Annotated, Literal, TypeAlias

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from automata.core._errors import TranscriptError, TranscriptVersionError

__all__ = [
    "TRANSCRIPT_FORMAT",
    "TRANSCRIPT_VERSION",
    "Block",
    "Citation",
    "DocumentBlock",
    "ImageBlock",
    "Message",
    "RawBlock",
    "Role",
    "TextBlock",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolUseBlock",
    "dump_messages",
    "load_messages",
    "messages_json",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def _decode_base64(value: object) -> object:
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"data is not valid base64: {exc}") from None
    return value


def _absent(value: object) -> bool:
    """Optional fields are left out of a dump while unset, so transcripts stay lean."""
    return value is None


Base64Data = Annotated[
    bytes,
    BeforeValidator(_decode_base64),
    PlainSerializer(lambda b: base64.b64encode(b).decode("ascii"), return_type=str),
]
"""Raw bytes in Python; standard base64 text in JSON (and when given a `str`)."""


def _empty(value: object) -> bool:
    return value == ()


class Citation(BaseModel):
    """Where a piece of the model's text comes from, as the provider reported it.

    `kind` is the vendor's own type name (Anthropic: `char_location`, `page_location`,
    `content_block_location`, `web_search_result_location`, `search_result_location`;
    OpenAI: `url_citation`, `file_citation`, ...). The typed fields are what the
    vendors share, each None when the citation does not say: `cited_text` (the
    source's words), the cited document (`document_index`, `document_title`), the
    span (`start` and `end`: characters, pages or content blocks of the document for
    Anthropic, characters of the answer for OpenAI, as `kind` says) and a web
    source (`url`, `title`). `raw` is the citation exactly as `provider` sent it,
    every field included, and is what goes back to that provider.
    """

    model_config = _FROZEN
    kind: str
    provider: str = ""
    cited_text: str | None = Field(default=None, exclude_if=_absent)
    document_index: int | None = Field(default=None, exclude_if=_absent)
    document_title: str | None = Field(default=None, exclude_if=_absent)
    start: int | None = Field(default=None, exclude_if=_absent)
    end: int | None = Field(default=None, exclude_if=_absent)
    url: str | None = Field(default=None, exclude_if=_absent)
    title: str | None = Field(default=None, exclude_if=_absent)
    raw: dict[str, JsonValue] | None = Field(default=None, exclude_if=_absent)


class TextBlock(BaseModel):
    """Plain text written by a user, the model, or a tool.

    `citations` are the sources a provider reported for this text, in its order (empty,
    and left out of a dump, when there are none)."""

    model_config = _FROZEN
    type: Literal["text"] = "text"
    text: str
    citations: tuple[Citation, ...] = Field(default=(), exclude_if=_empty)
    extra: dict[str, JsonValue] | None = Field(default=None, exclude_if=_absent)
    """Fields the wire carried on this block that the core does not model, kept
    verbatim under the name of the provider that read them (for example
    `{"anthropic": {"citations": [...]}}`), so that provider can send them back.
    A provider ignores the keys of others."""


class ThinkingBlock(BaseModel):
    """The model's reasoning. `signature` is the provider's proof of origin; it is kept
    verbatim so the block can be replayed to the provider that signed it."""

    model_config = _FROZEN
    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""
    extra: dict[str, JsonValue] | None = Field(default=None, exclude_if=_absent)
    """Fields the wire carried on this block that the core does not model, kept
    verbatim under the name of the provider that read them (for example
    `{"anthropic": {"citations": [...]}}`), so that provider can send them back.
    A provider ignores the keys of others."""


class ToolUseBlock(BaseModel):
    """A call the model asks for: `id` pairs it with its `ToolResultBlock`.

    `input_error` is set by a provider when the model's arguments could not be read as
    a JSON object (cut off, malformed, or not an object); `input` is then empty. The
    loop answers such a call with `invalid args: <input_error>` and never runs the
    tool, so a tool never runs on defaults the model did not choose.

    `wire_id` is set by the loop when the server gave this call an id an earlier call
    of the transcript already has (a server that names every call `call_0`): `id` is
    then made unique and `wire_id` keeps the server's, which the loop sends back in
    its place, on the call and on its result (docs/loop.md L93).
    """

    model_config = _FROZEN
    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, JsonValue]
    input_error: str | None = Field(default=None, exclude_if=_absent)
    wire_id: str | None = Field(default=None, exclude_if=_absent)
    extra: dict[str, JsonValue] | None = Field(default=None, exclude_if=_absent)
    """Fields the wire carried on this block that the core does not model, kept
    verbatim under the name of the provider that read them (for example
    `{"anthropic": {"citations": [...]}}`), so that provider can send them back.
    A provider ignores the keys of others."""


class ImageBlock(BaseModel):
    """An image, inline (`data` with `media_type`) or by reference (`url`).

    Exactly one of `data` and `url` is set.
    """

    model_config = _FROZEN
    type: Literal["image"] = "image"
    media_type: str = ""
    data: Base64Data | None = None
    url: str | None = None

    @model_validator(mode="after")
    def _exactly_one_source(self) -> ImageBlock:
        if (self.data is None) == (self.url is None):
            raise ValueError("an image needs exactly one of data or url")
        if self.data is not None and not self.media_type:
            raise ValueError("inline image data needs a media_type")
        return self


class DocumentBlock(BaseModel):
    """A document for the model to read: a PDF inline (`data`, with `media_type`
    `application/pdf`) or by reference (`url`), or a plain-text document (`text`,
    `media_type` `text/plain`).

    Exactly one of `data`, `url` and `text` is set. `title` and `context` (what the
    document is, for the model; never cited) are optional. `citations=True` asks the
    model to cite the document in its answer; the citations come back on the reply's
    `TextBlock`s. Providers refuse, with a `ProviderError` naming the limitation, a
    document their wire cannot carry.
    """

    model_config = _FROZEN
    type: Literal["document"] = "document"
    media_type: str = ""
    data: Base64Data | None = Field(default=None, exclude_if=_absent)
    url: str | None = Field(default=None, exclude_if=_absent)
    text: str | None = Field(default=None, exclude_if=_absent)
    title: str | None = Field(default=None, exclude_if=_absent)
    context: str | None = Field(default=None, exclude_if=_absent)
    citations: bool = False

    @model_validator(mode="after")
    def _exactly_one_source(self) -> DocumentBlock:
        sources = (self.data, self.url, self.text)
        if sum(source is not None for source in sources) != 1:
            raise ValueError("a document needs exactly one of data, url or text")
        if self.data is not None and not self.media_type:
            raise ValueError("inline document data needs a media_type")
        return self

    @classmethod
    def pdf(cls, source: bytes | str, **fields: object) -> DocumentBlock:
        """A PDF from its bytes, or from a URL given as a string."""
        if isinstance(source, bytes):
            return cls.model_validate({"media_type": "application/pdf", "data": source, **fields})
        return cls.model_validate({"media_type": "application/pdf", "url": source, **fields})

    @classmethod
    def plain_text(cls, text: str, **fields: object) -> DocumentBlock:
        """A plain-text document."""
        return cls.model_validate({"media_type": "text/plain", "text": text, **fields})


class RawBlock(BaseModel):
    """A block the core does not model, kept as the provider produced it.

    `provider` names who made it (e.g. "anthropic"); providers send a raw block back
    only to themselves, so a conversation can move between vendors safely.
    """

    model_config = _FROZEN
    type: Literal["raw"] = "raw"
    provider: str
    data: dict[str, JsonValue]

    @property
    def kind(self) -> str:
        """The provider's own type name for this block, or "" if it has none."""
        kind = self.data.get("type")
        return kind if isinstance(kind, str) else ""


class ToolResultBlock(BaseModel):
    """The outcome of one tool call, paired with it by `tool_use_id`.

    `content` holds text, image and document blocks; `is_error` marks a failed call the model
    should see as such.
    """

    model_config = _FROZEN
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: tuple[Block, ...] = ()
    is_error: bool = False

    @property
    def text(self) -> str:
        """The text blocks of the result joined by newlines."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


Block: TypeAlias = Annotated[
    TextBlock
    | ThinkingBlock
    | ToolUseBlock
    | ToolResultBlock
    | ImageBlock
    | DocumentBlock
    | RawBlock,
    Field(discriminator="type"),
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]


class Message(BaseModel):
    """One turn of a conversation: who spoke and what, in order."""

    model_config = _FROZEN
    role: Role
    content: tuple[Block, ...] = ()
    extra: dict[str, JsonValue] | None = Field(default=None, exclude_if=_absent)
    """Fields of the whole turn (not of one block) that the core does not model, kept
    verbatim under the name of the provider that read them (for example Anthropic's
    code execution `{"anthropic": {"container": {...}}}`), so that provider can send
    them back on later calls. A provider ignores the keys of others."""

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", content=(TextBlock(text=text),))

    @classmethod
    def user(cls, content: str | Iterable[Block]) -> Message:
        """A user message from text or from blocks."""
        blocks = (TextBlock(text=content),) if isinstance(content, str) else tuple(content)
        return cls(role="user", content=blocks)

    @classmethod
    def assistant(cls, content: str | Iterable[Block]) -> Message:
        """An assistant message from text or from blocks."""
        blocks = (TextBlock(text=content),) if isinstance(content, str) else tuple(content)
        return cls(role="assistant", content=blocks)

    @property
    def text(self) -> str:
        """All text blocks joined with no separator (how models stream them)."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> tuple[ToolUseBlock, ...]:
        """The tool_use blocks of the message, in the model's order."""
        return tuple(b for b in self.content if isinstance(b, ToolUseBlock))


@functools.cache
def _transcript_adapter() -> TypeAdapter[list[Message]]:
    # Built on first use: schema building is the costly part of importing the core.
    return TypeAdapter(list[Message])


TRANSCRIPT_FORMAT = "automata.transcript"
TRANSCRIPT_VERSION = 1
"""The transcript format version `dump_messages` writes and the newest `load_messages`
reads. Version 1: `{"format": "automata.transcript", "version": 1, "messages": [...]}`,
each message as pydantic serializes a `Message` (image data as base64)."""


def messages_json(messages: Sequence[Message]) -> str:
    """Messages as a bare JSON list (the `messages` of a transcript), for tracing."""
    return _transcript_adapter().dump_json(list(messages)).decode("utf-8")


def dump_messages(messages: Sequence[Message]) -> str:
    """Serialize a transcript to JSON text that `load_messages` restores exactly: an
    envelope naming the format and its version (see `TRANSCRIPT_VERSION`) around the
    messages.

    Raises `TranscriptError` naming where for a value JSON cannot hold exactly: a NaN
    or infinite float (JSON has none; writing `null` would change the transcript), a
    string with a lone surrogate (not UTF-8), or an integer longer than Python reads
    back (`sys.get_int_max_str_digits()`). Nothing is written then."""
    problem = _unwritable(_json_fields(messages))  # pydantic would write these as null
    if problem is not None:
        raise TranscriptError(f"invalid transcript at {problem}")
    try:
        written = messages_json(messages)
    except ValueError as exc:  # pydantic refused a string: find which, for the message
        problem = _unwritable((str(i), m.model_dump()) for i, m in enumerate(messages))
        where = problem or f"<root>: cannot be written as JSON ({exc})"
        raise TranscriptError(f"invalid transcript at {where}") from None
    return f'{{"format":"{TRANSCRIPT_FORMAT}","version":{TRANSCRIPT_VERSION},"messages":{written}}}'


def load_messages(data: str | bytes) -> list[Message]:
    """Restore a transcript written by `dump_messages`, of this format version or an
    older one (a bare JSON list of messages, as written before transcripts carried a
    version, is read too).

    Raises `TranscriptVersionError` for a transcript written in a newer format version
    and `TranscriptError` (naming where it failed) for anything that is not a valid
    transcript; nothing is partially loaded. That includes what `dump_messages` never
    writes: `NaN`, `Infinity` and numbers too large for a float (`1e999999`), lone
    surrogates, and JSON nested too deeply to read.
    """
    try:
        decoded = json.loads(data)
    except RecursionError:
        raise TranscriptError(
            "invalid transcript at <root>: not JSON (nested too deeply)"
        ) from None
    except ValueError as exc:
        raise TranscriptError(f"invalid transcript at <root>: not JSON ({exc})") from None
    messages = _envelope_messages(decoded) if isinstance(decoded, dict) else decoded
    if isinstance(messages, list):
        problem = _unwritable((str(i), m) for i, m in enumerate(messages))
        if problem is not None:
            raise TranscriptError(f"invalid transcript at {problem}")
    try:
        return _transcript_adapter().validate_python(messages)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise TranscriptError(
            f"invalid transcript at {where or '<root>'}: {first.get('msg', 'invalid')}"
            f" ({exc.error_count()} error(s))"
        ) from exc


def _envelope_messages(envelope: dict[str, object]) -> object:
    """The messages of a versioned transcript, once its format and version are known."""
    if envelope.get("format") != TRANSCRIPT_FORMAT:
        raise TranscriptError(
            f'invalid transcript at <root>: expected {{"format": "{TRANSCRIPT_FORMAT}", '
            '"version": ..., "messages": [...]}, as dump_messages writes'
        )
    version = envelope.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise TranscriptError(
            f"invalid transcript at version: expected a whole number of at least 1, got {version!r}"
        )
    if version > TRANSCRIPT_VERSION:
        raise TranscriptVersionError(
            f"transcript format version {version} is newer than this automata-ai-core "
            f"reads (up to version {TRANSCRIPT_VERSION}); upgrade automata-ai-core to load it",
            found=version,
            supported=TRANSCRIPT_VERSION,
        )
    if "messages" not in envelope:
        raise TranscriptError("invalid transcript at messages: Field required")
    return envelope["messages"]


def _json_fields(messages: Sequence[Message]) -> Iterable[tuple[str, object]]:
    """Where a transcript holds free-form JSON values (tool inputs, raw block data),
    the only places a float or an integer can be."""
    pending: list[tuple[str, tuple[Block, ...]]] = [
        (f"{i}.content", m.content) for i, m in enumerate(messages)
    ]
    for where, blocks in pending:  # grows with tool results' own blocks
        for j, block in enumerate(blocks):
            if isinstance(block, TextBlock) and block.citations:
                for k, citation in enumerate(block.citations):
                    if citation.raw is not None:
                        yield f"{where}.{j}.citations.{k}.raw", citation.raw
            elif isinstance(block, ToolUseBlock):
                yield f"{where}.{j}.input", block.input
            elif isinstance(block, RawBlock):
                yield f"{where}.{j}.data", block.data
            elif isinstance(block, ToolResultBlock):
                pending.append((f"{where}.{j}.content", block.content))


def _unwritable(roots: Iterable[tuple[str, object]]) -> str | None:
    """The first value JSON cannot hold exactly, as "<where>: <why>", or None. Walks
    plain data (as `model_dump` or `json.loads` give it) without recursion; scalars are
    checked in place and only containers are queued, paths built only for those."""
    digits = sys.get_int_max_str_digits()
    stack: list[tuple[str, object]] = []
    for where, value in roots:
        problem = _scalar_problem(value, digits)
        if problem is not None:
            return f"{where}: {problem}"
        stack.append((where, value))
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            items: Iterable[tuple[object, object]] = value.items()
        elif isinstance(value, list | tuple):
            items = enumerate(value)
        else:
            continue
        for key, item in items:
            if isinstance(key, str) and not key.isascii():
                problem = _surrogate(key)
                if problem is not None:
                    return f"{where}: {problem} in a key"
            if isinstance(item, dict | list | tuple):
                stack.append((f"{where}.{key}", item))
                continue
            problem = _scalar_problem(item, digits)
            if problem is not None:
                return f"{where}.{key}: {problem}"
    return None


def _scalar_problem(value: object, digits: int) -> str | None:
    if isinstance(value, str):
        return None if value.isascii() else _surrogate(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return (
            f"{value!r} is not a finite number; JSON has no NaN or infinities, "
            "so transcripts never hold them"
        )
    if isinstance(value, int) and digits and value.bit_length() > 3 * digits and _too_long(value):
        return f"an integer of more than {digits} digits, which load_messages cannot read back"
    return None


def _surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"a lone surrogate ({text[exc.start]!r}) cannot be written as UTF-8 JSON"
    return None


def _too_long(value: int) -> bool:
    try:
        str(value)
    except ValueError:
        return True
    return False
