"""Tool activity as thread facts (docs/threads.md, AC rules): the `activity` records a
runner journals and what a view shows of them.

While a batch of tool calls runs, the run's own `ActivityEvent`s (depth 0) are kept by
`PendingActivity`, the latest per call; they are journaled as `activity` records
(`turn`, `call`, `activity`: the core's `Activity.to_data()`) in the same append as
the batch's results (or, when the run fails first, before the turn ends), so an
activity is committed with the outcome it describes or not at all, once per call
however often it changed. Until then the host's draft (`_draft.Draft.activity`) keeps
it, and the view shows it live on the running call (AC7). The fold keeps the
latest record per call; the view adds a question's answer summary, derived from its
`answer` record (a secret answer only as redacted).
"""

from __future__ import annotations

from dataclasses import replace

from automata.core import Activity, ActivityEvent, AnswerSummary, TranscriptError
from automata.threads._records import Decoded, encode
from automata.threads.store import NewRecord

__all__ = ["PendingActivity", "activity_from", "with_answer"]


class PendingActivity:
    """The latest activity of each of a turn's calls not journaled yet."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self._latest: dict[str, Activity] = {}

    def take(self, event: ActivityEvent) -> None:
        """Keep `event`'s activity if it is the run's own (sub-agents' are left out)."""
        if event.depth == 0:
            self._latest[event.call_id] = event.activity

    def records(self) -> list[NewRecord]:
        """The `activity` records of what was taken since the last call, in the order
        the calls first reported (then forgotten)."""
        taken = [
            encode("activity", turn=self.turn_id, call=call, activity=activity.to_data())
            for call, activity in self._latest.items()
        ]
        self._latest.clear()
        return taken


def activity_from(record: Decoded) -> Activity:
    """The activity an `activity` record holds; `TranscriptError` for a damaged one."""
    try:
        return Activity.from_data(record.data.get("activity"))
    except (ValueError, TypeError) as exc:
        raise TranscriptError(f"journal record {record.seq} holds a bad activity: {exc}") from None


def with_answer(activity: Activity | None, answer: str | None, *, secret: bool) -> Activity:
    """`activity` with a question's answer summary (only `redacted` for a secret one)."""
    summary = (
        AnswerSummary(redacted=True) if secret else AnswerSummary.of(answer or "", redacted=False)
    )
    return replace(activity or Activity(), answer=summary)
