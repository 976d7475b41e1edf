"""The provider protocols: how the agent loop talks to a model.

A `Provider` turns a `ModelRequest` into a `ModelResponse`. A `StreamProvider` can also
stream: it yields `TextDelta`, `ThinkingDelta` and (when the vendor streams tool-call
arguments) `ToolCallDelta` items as they arrive and ends with
exactly one `ModelResponse` carrying the complete message. Providers never mutate the
request they are given, and never retry once any delta has been yielded.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from automata.core._blocks import Message
from automata.core._options import CallOptions
from automata.core._stop import StopReason
from automata.core._usage import Usage

__all__ = [
    "ModelRequest",
    "ModelResponse",
    "OutputSchema",
    "Provider",
    "ProviderStreamItem",
    "StreamProvider",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolSpec",
]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """What the model is told about a tool: its name, purpose and JSON schema."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class OutputSchema:
    """A JSON schema the reply must follow, for providers with a native schema mode.

    `strict_compatible` says whether the schema fits strict modes (every object closed,
    every property required)."""

    name: str
    schema: Mapping[str, Any]
    strict_compatible: bool = False


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One provider call. `messages` starts with the system message when there is one."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    options: CallOptions = field(default_factory=CallOptions)
    output_schema: OutputSchema | None = None

    @property
    def system_prompt(self) -> str | None:
        """The text of the leading system message, if any."""
        if self.messages and self.messages[0].role == "system":
            return self.messages[0].text
        return None


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """A complete model turn.

    `stop_reason` is the mapped reason; `raw_stop_reason` is the provider's own value,
    kept for diagnostics. `usage` is None when the provider reported none. `model` is
    the model that answered, when the reply names it; `provider` is the `provider_name`
    of the provider that answered when that is not the one called (a
    `FallbackProvider` sets it), so the call is priced and read as that provider's.
    `retries` is how many failed attempts the provider repeated before this reply (its
    own retry policy's retries: rate limits, overload, dropped connections); 0 when it
    answered at the first try or does not retry.
    """

    message: Message
    stop_reason: StopReason
    usage: Usage | None = None
    raw_stop_reason: str = ""
    model: str = ""
    provider: str = ""
    retries: int = 0


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A fragment of answer text, in stream order."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A fragment of reasoning text, in stream order."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of one tool call's JSON arguments, in stream order.

    `id` and `name` are the call's, the same the final `ToolUseBlock` carries; the
    fragments of one call joined are its argument text. A provider whose vendor does
    not stream arguments yields none."""

    id: str
    name: str
    arguments: str


ProviderStreamItem = TextDelta | ThinkingDelta | ToolCallDelta | ModelResponse


@runtime_checkable
class Provider(Protocol):
    """Anything that can complete a `ModelRequest`, and says what it is.

    Besides `complete`, a provider advertises four read-only facts; the loop and the
    tracing read them and nothing else about the provider:

    - `provider_name`: the vendor or system, lower case (`"anthropic"`, `"openai"`);
      recorded as `gen_ai.provider.name` on model-call spans.
    - `model`: the model requested by default, or None when the provider has no single
      model; recorded as `gen_ai.request.model`.
    - `supports_streaming`: True only when the provider is a `StreamProvider` whose
      `stream` may be used. A streamed run streams through `stream` when this is True
      and otherwise delivers each `complete` reply as whole events.
    - `supports_native_output`: True when the provider honours
      `ModelRequest.output_schema` (a vendor schema mode); a typed run asked for native
      output uses it only then, and otherwise uses the hidden output tool.

    A plain class attribute or instance attribute satisfies each of them.
    """

    @property
    def provider_name(self) -> str:
        """The vendor or system name, e.g. `"anthropic"`."""
        ...

    @property
    def model(self) -> str | None:
        """The model requested by default, or None."""
        ...

    @property
    def supports_streaming(self) -> bool:
        """Whether `stream` (of a `StreamProvider`) may be used."""
        ...

    @property
    def supports_native_output(self) -> bool:
        """Whether `ModelRequest.output_schema` is honoured."""
        ...

    async def complete(self, request: ModelRequest) -> ModelResponse: ...


@runtime_checkable
class StreamProvider(Provider, Protocol):
    """A provider that can also stream a reply as it is produced. It yields deltas in
    order and ends with exactly one `ModelResponse`; it declares
    `supports_streaming = True` when its stream may be used."""

    def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]: ...
