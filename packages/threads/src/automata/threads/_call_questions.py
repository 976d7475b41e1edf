"""Questions a tool call asks a person while it runs, journaled in its thread.

An `ask_user` question or a gated call parks its turn before the call runs: nothing
waits in memory. A call that is already running cannot park (an MCP tool whose server
asks the user for input in the middle of the call holds that call open on a live
connection), so it waits, in this process, while `CallQuestions.ask` journals its
question as an `interaction` of the call marked `in_call`. The thread's view shows
it pending like any question; `respond` answers it (from this process or any other)
and commits the answer, and the waiting call is handed it here.

It fails closed. The answer can reach only the process holding the call: if that host
stops while the call waits, the call's outcome is unknown, and when the turn is
resumed the runner journals the question as unanswerable (`UNANSWERABLE`) and settles
the call by the rules for calls in flight, except that it is never run again, not
even an idempotent one: the turn ends `effect_outcome_unknown`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from automata.core import ToolContext
from automata.threads._agents import thread_of
from automata.threads._errors import ThreadsError
from automata.threads._fold import CallState, InteractionState, ThreadFold
from automata.threads._records import encode
from automata.threads.store import NewRecord

if TYPE_CHECKING:
    from automata.threads._host import Host

__all__ = [
    "CALL_STOPPED",
    "UNANSWERABLE",
    "CallAnswer",
    "CallQuestions",
    "QuestionUnanswerableError",
    "asked_items",
    "stranded_questions",
    "unanswerable_records",
]

log = logging.getLogger("automata.threads")

UNANSWERABLE = (
    "unanswerable: the host stopped while the call waited for this answer; "
    "the call was not run again"
)
"""What a question asked by a call becomes when the host stopped while it waited."""

CALL_STOPPED = "unanswerable: the call stopped waiting for this answer"
"""What a question becomes when its call stopped waiting (cancelled, or failed)."""


class QuestionUnanswerableError(ThreadsError):
    """A question from inside a tool call could not be asked or answered: the call does
    not run in a thread service's turn (or not in this host's), its turn is no longer
    running, or the host shut down while the call waited."""


@dataclass(frozen=True, slots=True)
class CallAnswer:
    """A person's answer to a call's question: `approved` for an approval, `text` for
    a question (for a secret one, the answer itself, handed over once in the process
    that took it; `[redacted]`, what the journal holds, anywhere else)."""

    interaction_id: str
    approved: bool | None
    text: str | None


class CallQuestions:
    """Asks a person from inside a running tool call of a thread's turn: the question
    is journaled (the view shows it pending), the call waits, and the answer given to
    `respond` is journaled and returned. `ask` raises `QuestionUnanswerableError`
    when the call is not a thread's, when its turn ended before the answer came, and
    when the host shuts down; a call that stops waiting leaves its question closed
    as `CALL_STOPPED`. Make one per host: `CallQuestions(host)`."""

    def __init__(self, host: Host) -> None:
        self._host = host

    def answers(self, context: ToolContext[Any]) -> bool:
        """Whether `context` is a call of a thread's turn, whose questions this asks."""
        return thread_of(context) is not None

    async def ask(
        self,
        context: ToolContext[Any],
        question: str,
        *,
        kind: Literal["approval", "question"] = "question",
        secret: bool = False,
    ) -> CallAnswer:
        """Journal `question` as an interaction of the call `context` runs (an
        `approval`, answered True or False, or a `question`, answered with text;
        `secret` keeps the answer out of the journal, as for `ask_user`), wait for
        its answer and return it."""
        thread_id = thread_of(context)
        if thread_id is None:
            raise QuestionUnanswerableError(
                f"the call {context.call.name} ({context.call.id}) does not run in a "
                "thread service's turn; there is no one to ask"
            )
        host = self._host
        host.admit()
        turn_id = context.invocation_id.partition("/")[2]
        fold = await host.load(thread_id)
        turn = fold.turns.get(turn_id)
        state = fold.calls.get(context.call.id)
        if turn is None or turn.phase != "running" or state is None or state.result is not None:
            raise QuestionUnanswerableError(
                f"the call {context.call.id} of thread {thread_id!r} is not running in "
                "a turn of this thread; its question cannot be asked"
            )
        record = encode(
            "interaction",
            turn=turn_id,
            kind=kind,
            call=context.call.id,
            question=question,
            secret=secret,
            in_call=True,
        )
        commit = await host.store.append(thread_id, [record])
        host.notify(thread_id)
        interaction_id = f"interaction-{commit.first_seq}"
        try:
            return await self._answer(thread_id, interaction_id)
        except BaseException:
            await self._close(thread_id, interaction_id)
            raise

    async def _answer(self, thread_id: str, interaction_id: str) -> CallAnswer:
        host = self._host
        while True:
            seen = host.change_count(thread_id)
            fold = await host.load(thread_id)
            asked = fold.interactions[interaction_id]
            if asked.answered and asked.unanswerable is None:
                text = asked.answer
                if asked.secret:
                    text = host.take_secret(thread_id, interaction_id) or text
                return CallAnswer(interaction_id, asked.approved, text)
            if asked.answered or fold.turns[asked.turn_id].finished:
                raise QuestionUnanswerableError(
                    f"{interaction_id} of thread {thread_id!r} will not be answered: "
                    + (asked.unanswerable or "its turn ended")
                )
            if host.closed:
                raise QuestionUnanswerableError(
                    f"the host shut down while the call waited for {interaction_id}"
                )
            await host.wait_change(thread_id, seen)

    async def _close(self, thread_id: str, interaction_id: str) -> None:
        """Journal a question its call stopped waiting for as unanswerable, when it is
        still open (best effort: a store going away leaves it to recovery)."""
        host = self._host
        try:
            fold = await host.load(thread_id)
            asked = fold.interactions[interaction_id]
            if asked.answered or fold.turns[asked.turn_id].finished:
                return
            await host.store.append(thread_id, [_unanswerable(asked, CALL_STOPPED)])
            host.notify(thread_id)
        except Exception:  # recovery closes it from the journal
            log.debug("could not close %s of thread %s", interaction_id, thread_id)


def _unanswerable(asked: InteractionState, why: str) -> NewRecord:
    return encode("answer", id=asked.interaction_id, approved=None, answer=None, unanswerable=why)


def stranded_questions(fold: ThreadFold, call: CallState) -> list[InteractionState]:
    """The questions `call` asked while it ran that were never answered (still open,
    or closed as unanswerable): a call left with one is never run again."""
    return [
        asked
        for asked in fold.asked_by(call)
        if not asked.answered or asked.unanswerable is not None
    ]


def unanswerable_records(fold: ThreadFold, calls: Sequence[CallState]) -> list[NewRecord]:
    """`answer` records closing, as `UNANSWERABLE`, the open questions `calls` asked
    while they ran (a resumed turn writes them with the calls' results)."""
    return [
        _unanswerable(asked, UNANSWERABLE)
        for call in calls
        for asked in fold.asked_by(call)
        if not asked.answered
    ]


def asked_items(
    fold: ThreadFold, call: CallState, tool_name: str
) -> list[tuple[str, dict[str, Any]]]:
    """The view's `interaction` items of the questions `call` asked while it ran."""
    items: list[tuple[str, dict[str, Any]]] = []
    for asked in fold.asked_by(call):
        status = "answered" if asked.answered else "pending"
        if asked.unanswerable is not None or (
            not asked.answered and fold.turns[asked.turn_id].finished
        ):
            status = "closed"
        items.append(
            (
                asked.interaction_id,
                {
                    "kind": "interaction",
                    "text": asked.question,
                    "tool_name": tool_name,
                    "call_id": call.call.id,
                    "status": status,
                    "result": asked.unanswerable or asked.answer,
                    "interaction_id": asked.interaction_id,
                    "interaction_kind": asked.kind,
                },
            )
        )
    return items
