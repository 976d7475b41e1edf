"""The outcome of a run, filled in as far as the run got."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from automata.core._blocks import Message
from automata.core._cost import Cost
from automata.core._stop import StopReason
from automata.core._usage import Usage

__all__ = ["RunResult"]

OutputT = TypeVar("OutputT")


@dataclass(frozen=True, slots=True)
class RunResult(Generic[OutputT]):
    """What a run produced.

    `output` is the final answer text (or the validated typed value for a typed run);
    `final_message` the last assistant message; `messages` the whole transcript,
    system message first; `usage` the sum over this run's provider calls (sub-agents
    excluded); `cost` what those calls cost as the run's price table priced them
    (None without a table, or when a call could not be priced: L95-L96); `steps` the
    number of provider calls; `retries` how many failed attempts the providers repeated
    within those calls (`ModelResponse.retries`, and `ProviderError.retries` of a call
    that failed: docs/loop.md L99). Also attached to every run error.
    """

    output: OutputT
    messages: tuple[Message, ...]
    final_message: Message | None = None
    usage: Usage = field(default_factory=Usage)
    steps: int = 0
    stop_reason: StopReason = StopReason.END_TURN
    raw_stop_reason: str = ""
    agent: str = ""
    invocation_id: str = ""
    cost: Cost | None = None
    retries: int = 0
