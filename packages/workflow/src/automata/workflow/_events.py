"""Lifecycle events for sinks, outside the durable contract.

Every journal record of a run is an event: `(run_id, seq)` names it, the same in every
process and after every resume. A runner hands each record's event to the sinks after
the record is committed, in journal order, awaiting each sink. Delivery is
at-least-once: a runner that resumes a run hands its sinks the run's whole history
again first (a crash may have come between a commit and its delivery), so sinks
deduplicate by `(run_id, seq)`. A sink that raises is given the event again, up to
`SINK_ATTEMPTS` times, then the event is logged and skipped for that sink; a sink never
fails, slows down past its own time, or changes a run's journal.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["SINK_ATTEMPTS", "EventSink", "RunEvent", "deliver"]

SINK_ATTEMPTS = 3
"""How many times a sink is given one event before it is skipped for that sink."""

logger = logging.getLogger("automata.workflow")


@dataclass(frozen=True, slots=True)
class RunEvent:
    """One record of a run's history: `kind` and its fields (`data`, see
    docs/workflows.md), `seq` its place in the run's journal, `at` the store's clock
    when it was committed (or this process's, for events given to sinks live)."""

    run_id: str
    seq: int
    kind: str
    data: Mapping[str, Any]
    at: float

    @property
    def node(self) -> str | None:
        """The node the event is about, if any."""
        node = self.data.get("node")
        return node if isinstance(node, str) else None

    @property
    def activation_id(self) -> str | None:
        """The activation the event is about, if any."""
        found = self.data.get("id", self.data.get("activation"))
        return found if isinstance(found, str) else None


class EventSink(Protocol):
    """Receives run events (at-least-once; deduplicate by `(run_id, seq)`)."""

    async def __call__(self, event: RunEvent, /) -> None: ...


async def deliver(sinks: Sequence[EventSink], events: Iterable[RunEvent]) -> None:
    """Give each event to each sink, in order (module docstring)."""
    for event in events:
        for sink in sinks:
            for attempt in range(1, SINK_ATTEMPTS + 1):
                try:
                    await sink(event)
                    break
                except Exception:
                    if attempt == SINK_ATTEMPTS:
                        logger.exception(
                            "an event sink failed %d times; event (%s, %d) skipped for it",
                            SINK_ATTEMPTS,
                            event.run_id,
                            event.seq,
                        )
