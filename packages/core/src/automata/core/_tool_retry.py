"""`with_tool_retry`: opt a tool into retrying its own transient failures."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from automata.core._retry import RetryPolicy, is_retryable, retry
from automata.core._tools import Tool, ToolContext, ToolResult

__all__ = ["RetryingTool", "with_tool_retry"]


@dataclass(frozen=True, slots=True)
class RetryingTool:
    """A tool that repeats `inner.execute` on retryable failures (see `with_tool_retry`)."""

    inner: Tool
    policy: RetryPolicy
    retry_if: Callable[[BaseException], bool] = field(default=is_retryable, repr=False)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def description(self) -> str:
        return self.inner.description

    @property
    def retries(self) -> int | None:
        """The wrapped tool's `ModelRetry` budget, if it declares one."""
        declared = getattr(self.inner, "retries", None)
        return declared if isinstance(declared, int) else None

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return self.inner.input_schema

    async def execute(self, arguments: Mapping[str, Any], context: ToolContext) -> ToolResult | str:
        return await retry(
            lambda: self.inner.execute(arguments, context), self.policy, retry_if=self.retry_if
        )


def with_tool_retry(
    tool: Tool,
    policy: RetryPolicy,
    *,
    retry_if: Callable[[BaseException], bool] = is_retryable,
) -> RetryingTool:
    """Wrap `tool` so failures `retry_if` accepts (by default `RetryableError` and
    retryable `ProviderError`s) are retried with `policy`'s backoff, honouring a
    `retry_after` hint. Other failures, invalid arguments and error results are not
    retried. A policy timeout covers all attempts together. The loop itself never
    retries a tool; this is the opt-in."""
    return RetryingTool(inner=tool, policy=policy, retry_if=retry_if)
