"""`SDKProvider.vendor_call` and `vendor_pages`: a vendor's other services (a model list,
embeddings) keep the rules of `complete` (error mapping, retries, deadlines)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from automata.core.providers import (
    ModelRequest,
    ModelResponse,
    ProviderError,
    ProviderTimeoutError,
    RetryPolicy,
    SDKProvider,
    StreamAssembler,
)


class ListError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Client:
    def __init__(self, **options: Any) -> None:
        self.calls = 0

    async def close(self) -> None:
        return None


@dataclass
class Page:
    """A page as the Stainless-built SDKs have it."""

    data: list[str]
    rest: list[list[str] | Exception] = field(default_factory=list)

    def has_next_page(self) -> bool:
        return bool(self.rest)

    async def get_next_page(self) -> Page:
        following = self.rest[0]
        if isinstance(following, Exception):
            self.rest.pop(0)
            raise following
        return Page(following, self.rest[1:])


class Vendor(SDKProvider[Client]):
    provider_name = "acme"
    client_class = Client
    api_key_env = "ACME_API_KEY"
    stream_end = "the end"

    def request_params(self, request: ModelRequest) -> dict[str, Any]:
        raise NotImplementedError

    async def send(self, params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def parse_response(self, raw: Any, /) -> ModelResponse:
        raise NotImplementedError

    def new_assembler(self) -> StreamAssembler:
        raise NotImplementedError

    def vendor_error(self, error: Exception) -> ProviderError | None:
        if isinstance(error, ListError):
            return self.status_error(error.status, "acme_error", str(error))
        return None


def vendor(sleeps: list[float], **options: Any) -> Vendor:
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    policy = RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0)
    return Vendor("acme-1", api_key="k", retry_policy=policy, sleep=sleep, **options)


def outcomes(*results: object) -> Any:
    """A call answering with each result in turn (an exception is raised)."""
    queue = list(results)

    async def call() -> object:
        result = queue.pop(0)
        if isinstance(result, Exception):
            raise result
        return result

    return call


async def test_a_vendor_call_returns_what_the_call_returns() -> None:
    assert await vendor([]).vendor_call(outcomes("models")) == "models"


async def test_a_retryable_failure_is_retried_per_the_policy() -> None:
    sleeps: list[float] = []
    call = outcomes(ListError(429, "slow down"), "models")
    assert await vendor(sleeps).vendor_call(call) == "models"
    assert sleeps == [0.5]


async def test_a_vendor_failure_is_mapped_and_not_retried() -> None:
    sleeps: list[float] = []
    with pytest.raises(ProviderError) as caught:
        await vendor(sleeps).vendor_call(outcomes(ListError(401, "bad key")))
    assert str(caught.value) == "acme: 401 acme_error: bad key"
    assert (caught.value.status, sleeps) == (401, [])


async def test_any_other_failure_names_its_type() -> None:
    with pytest.raises(ProviderError) as caught:
        await vendor([]).vendor_call(outcomes(KeyError("data")))
    assert str(caught.value) == "acme: KeyError: 'data'"
    assert isinstance(caught.value.__cause__, KeyError)


@pytest.mark.looptime
async def test_each_attempt_ends_within_the_call_timeout() -> None:
    sleeps: list[float] = []

    async def never() -> None:
        await asyncio.sleep(60)

    with pytest.raises(ProviderTimeoutError) as caught:
        await vendor(sleeps, call_timeout=0.05).vendor_call(never)
    assert str(caught.value) == "acme: timed out: the call took longer than 0.05 s"
    assert sleeps == [0.5, 1.0]


async def test_every_page_is_read_in_order() -> None:
    first = Page(["a", "b"], [["c"], ["d", "e"]])
    items = await vendor([]).vendor_pages(outcomes(first))
    assert items == ["a", "b", "c", "d", "e"]


async def test_a_failed_page_is_retried_alone() -> None:
    sleeps: list[float] = []
    first = Page(["a"], [ListError(503, "busy"), ["b"]])
    items = await vendor(sleeps).vendor_pages(outcomes(first))
    assert (items, sleeps) == (["a", "b"], [0.5])
