"""Optional provider capabilities: a model catalog and embeddings.

`Provider` and `StreamProvider` are all the agent loop needs. A provider may also
implement the protocols here, each on its own, when its vendor's API offers the
service: `ModelCatalog` (the models an account can use, with their limits and
features) and `Embedder` (vectors for texts). A provider whose API has no such service
does not pretend to: it leaves the methods out, and a caller finds out with
`isinstance(provider, ModelCatalog)` or `capability(provider, Embedder)` instead of
guessing from the vendor's name.

The values are frozen. What the vendor does not report is None, never inferred from a
model's name; everything the vendor sent about a model is kept in `ModelInfo.raw`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from automata.core._usage import Usage

__all__ = ["Embedder", "Embeddings", "ModelCatalog", "ModelInfo", "capability"]


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One model as the vendor's model catalog describes it.

    `id` is what a provider's `model` takes. Every other field is None when the
    vendor's API did not say (a feature is True or False only when the API reports
    it): `display_name` a human-readable name; `created` when the model was released
    or added (timezone-aware UTC); `context_window` the most input tokens a call may
    send; `max_output_tokens` the most a call may ask to generate; `vision` whether
    it reads images, `documents` PDFs; `tools` whether it calls tools; `thinking`
    whether it can reason before answering; `structured_output` whether it has a
    JSON-schema mode; `embeddings` whether it is an embedding model.

    `raw` is the vendor's description of the model, as received (JSON values; a
    read-only view), and takes no part in `==` or hashing. `provider` names the vendor,
    as `Provider.provider_name` does.
    """

    id: str
    provider: str = ""
    display_name: str | None = None
    created: datetime | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None
    vision: bool | None = None
    documents: bool | None = None
    tools: bool | None = None
    thinking: bool | None = None
    structured_output: bool | None = None
    embeddings: bool | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.raw, MappingProxyType):
            object.__setattr__(self, "raw", MappingProxyType(dict(self.raw)))


@dataclass(frozen=True, slots=True)
class Embeddings:
    """The vectors for a list of texts, one per text, in the order of the texts.

    `model` is the model that made them, as the vendor names it; `usage` the tokens
    billed (`input_tokens`), or None when the vendor reported none.
    """

    vectors: tuple[tuple[float, ...], ...]
    model: str
    usage: Usage | None = None

    def __len__(self) -> int:
        return len(self.vectors)

    @property
    def dimensions(self) -> int | None:
        """The length of the vectors (None when there are none)."""
        return len(self.vectors[0]) if self.vectors else None


@runtime_checkable
class ModelCatalog(Protocol):
    """A provider that can list the models its vendor offers.

    Both calls go through the provider's own error mapping and retry policy: failures
    raise `ProviderError` (a model that does not exist is one with `status=404`).
    """

    async def list_models(self) -> tuple[ModelInfo, ...]:
        """Every model the account can use, in the vendor's order, all pages read."""
        ...

    async def get_model(self, model_id: str) -> ModelInfo:
        """One model by its id."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """A provider that can turn texts into embedding vectors.

    `embed` returns one vector per text, in the order of `texts`, however many
    requests that takes. `model` picks the embedding model (the provider's default
    when None); `dimensions` asks for shorter vectors from models that can make them.
    Failures raise `ProviderError`, retried per the provider's retry policy.
    """

    async def embed(
        self, texts: Sequence[str], *, model: str | None = None, dimensions: int | None = None
    ) -> Embeddings: ...


C = TypeVar("C")


def capability(provider: object, kind: Callable[..., C]) -> C | None:
    """`provider` as a `kind` (`ModelCatalog`, `Embedder`, or any runtime-checkable
    protocol or class) when it implements it, else None:

        catalog = capability(provider, ModelCatalog)
        if catalog is not None:
            models = await catalog.list_models()

    (`kind` is typed as a callable so that type checkers accept a protocol class.)
    """
    if isinstance(provider, cast("type[object]", kind)):
        return cast(C, provider)
    return None
