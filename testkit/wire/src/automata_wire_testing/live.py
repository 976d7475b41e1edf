"""Checks against a vendor's real API, written once for every SDK provider.

Subclass `LiveSuite` as `TestLive<Vendor>` in a module marked `pytest.mark.live` and
skipped without the vendor's key; give it `new_provider(api_key)` (None: the key from
the environment) and an `invalid_key`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import pytest

from automata.core.providers import (
    Embedder,
    Message,
    ModelCatalog,
    ModelRequest,
    ModelResponse,
    ProviderError,
    SDKProvider,
    StopReason,
    TextDelta,
)
from automata_wire_testing._calls import stream_items

__all__ = ["ASK", "LiveSuite"]

ASK = ModelRequest(
    messages=(Message.system("Answer in one word."), Message.user("What colour is the sky?")),
)
"""A question with a one-word answer, cheap to ask."""


class LiveSuite(ABC):
    """Live answers, streamed and not, with usage; a bad key is refused as a 401; the
    model list and embeddings, for a provider that has them."""

    invalid_key: ClassVar[str]
    ask: ClassVar[ModelRequest] = ASK
    """What the suite asks (a subclass may bound its `max_tokens`)."""

    @abstractmethod
    def new_provider(self, api_key: str | None = None) -> SDKProvider[Any]:
        """The provider under test, on the vendor's real API."""

    async def test_live_complete_answers_with_usage(self) -> None:
        async with self.new_provider() as provider:
            response = await provider.complete(self.ask)
        assert response.message.text.strip()
        assert response.stop_reason is StopReason.END_TURN
        assert response.usage is not None
        assert response.usage.input_tokens > 0

    async def test_live_stream_deltas_add_up_to_the_answer_and_report_usage(self) -> None:
        async with self.new_provider() as provider:
            items = await stream_items(provider, self.ask)
        final = items[-1]
        assert isinstance(final, ModelResponse)
        assert "".join(i.text for i in items if isinstance(i, TextDelta)) == final.message.text
        assert final.usage is not None

    async def test_live_bad_key_is_an_authentication_error(self) -> None:
        async with self.new_provider(self.invalid_key) as provider:
            with pytest.raises(ProviderError) as caught:
                await provider.complete(self.ask)
        assert caught.value.status == 401
        assert not caught.value.retryable

    async def test_live_model_list_reads_back_by_id(self) -> None:
        async with self.new_provider() as provider:
            if not isinstance(provider, ModelCatalog):
                pytest.skip(f"{type(provider).__name__} has no model catalog")
            models = await provider.list_models()
            first = await provider.get_model(models[0].id)
        assert first.id == models[0].id
        assert len({model.id for model in models}) == len(models)

    async def test_live_embeddings_give_one_vector_a_text(self) -> None:
        async with self.new_provider() as provider:
            if not isinstance(provider, Embedder):
                pytest.skip(f"{type(provider).__name__} has no embeddings")
            result = await provider.embed(["snow", "rain"], dimensions=64)
        assert [len(vector) for vector in result.vectors] == [64, 64]
        assert result.vectors[0] != result.vectors[1]
