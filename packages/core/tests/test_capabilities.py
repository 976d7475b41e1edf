"""The optional provider capabilities: how a caller finds them, and their values."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from automata.core import (
    Embedder,
    Embeddings,
    ModelCatalog,
    ModelInfo,
    StreamProvider,
    Usage,
    capability,
)
from automata.core.testing import FunctionProvider, ScriptedProvider


class VectorsOnly:
    """A provider-side object that embeds and lists nothing."""

    async def embed(
        self, texts: Sequence[str], *, model: str | None = None, dimensions: int | None = None
    ) -> Embeddings:
        return Embeddings(vectors=tuple((float(len(t)),) for t in texts), model=model or "len")


def test_a_scripted_provider_has_neither_capability() -> None:
    provider = ScriptedProvider(["hi"])
    assert not isinstance(provider, ModelCatalog)
    assert not isinstance(provider, Embedder)
    assert capability(provider, ModelCatalog) is None
    assert capability(provider, Embedder) is None


def test_a_function_provider_has_neither_capability() -> None:
    provider = FunctionProvider(lambda request: "hi")
    assert capability(provider, ModelCatalog) is None
    assert capability(provider, Embedder) is None


def test_each_capability_is_detected_on_its_own() -> None:
    vectors = VectorsOnly()
    assert capability(vectors, Embedder) is vectors
    assert capability(vectors, ModelCatalog) is None


def test_capability_checks_any_runtime_checkable_protocol() -> None:
    provider = ScriptedProvider(["hi"])
    assert capability(provider, StreamProvider) is provider


async def test_a_detected_capability_is_called_through_it() -> None:
    embedder = capability(VectorsOnly(), Embedder)
    assert embedder is not None
    assert (await embedder.embed(["ab", "c"])).vectors == ((2.0,), (1.0,))


def test_what_a_catalog_does_not_report_is_none() -> None:
    model = ModelInfo(id="m")
    fields = [f.name for f in dataclasses.fields(model) if f.name not in ("id", "provider", "raw")]
    assert [getattr(model, name) for name in fields] == [None] * len(fields)


def test_model_info_is_frozen_and_its_raw_read_only() -> None:
    source = {"id": "m", "limits": [1]}
    model = ModelInfo(id="m", raw=source)
    source["id"] = "changed"
    assert model.raw["id"] == "m"
    with pytest.raises(TypeError):
        model.raw["id"] = "x"  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.id = "x"  # type: ignore[misc]


def test_model_infos_compare_and_hash_without_raw() -> None:
    created = datetime(2025, 9, 29, tzinfo=UTC)
    one = ModelInfo(id="m", created=created, vision=True, raw={"a": 1})
    other = ModelInfo(id="m", created=created, vision=True, raw={"b": [2]})
    assert one == other
    assert {one, other} == {one}


def test_embeddings_are_frozen_and_say_their_dimensions() -> None:
    result = Embeddings(vectors=((1.0, 2.0), (3.0, 4.0)), model="e", usage=Usage(input_tokens=2))
    assert (len(result), result.dimensions) == (2, 2)
    assert Embeddings(vectors=(), model="e").dimensions is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.model = "x"  # type: ignore[misc]
