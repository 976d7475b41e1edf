"""`ThreadService`: the one way a host reads and changes threads.

Every mutation takes a caller-chosen `request_key`. The key and a fingerprint of the
call's input are committed in the same transaction as the mutation's records (store
rule S3): the same key with the same input again commits nothing, calls no model and
no tool, and answers from what is committed; the same key with other input raises
`RequestConflictError`. Keys are global to the store: use a new key for each new
request (a UUID the client sends with its HTTP request, say).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from automata.core import Artifact, InvalidArgumentError, Message
from automata.threads._artifacts import ARTIFACT_PAGE, ArtifactPage, artifact_page
from automata.threads._context import ThreadContext
from automata.threads._errors import (
    ItemNotFoundError,
    PageBoundError,
    StoreClosedError,
    ThreadNotFoundError,
    ThreadStateError,
)
from automata.threads._fold import ThreadFold, TurnState
from automata.threads._fork import ThreadCopy, forked, import_inputs, imported
from automata.threads._interactions import REDACTED
from automata.threads._labels import labels_field
from automata.threads._records import decode, encode, message_data
from automata.threads._recovery import CANCELLED, error_results
from automata.threads._retention import ArchiveSink, PurgeReport, cutoff
from automata.threads._service_inputs import (
    checked_title,
    new_thread_id,
    request_claim,
    summary_json,
    title_of,
    user_message,
)
from automata.threads._text import check_texts
from automata.threads._view import (
    HistoryEntry,
    HistoryPage,
    ThreadPage,
    ThreadSummary,
    ThreadView,
)
from automata.threads.store import NewRecord

if TYPE_CHECKING:
    from automata.threads._host import Host

__all__ = ["ThreadService"]


class ThreadService:
    """Threads on a host: create, list, view, history, title, fork, import, delete;
    send, cancel, cancel a queued input, retry; subscribe. Get it from
    `host.thread_service(factory)`. Every method raises `HostClosedError` once the
    host shuts down, and `ThreadNotFoundError` for an unknown thread."""

    def __init__(self, host: Host) -> None:
        self._host = host

    @property
    def _store(self) -> Any:
        return self._host.store

    async def _view(self, thread_id: str, *, known: int | None = None) -> ThreadView:
        fold, draft = await self._host.load_live(thread_id, known=known)
        return self._host.view(fold, draft)

    # -- threads -------------------------------------------------------------------

    async def create(
        self,
        *,
        request_key: str,
        title: str = "",
        parent_id: str | None = None,
        agent: str | None = None,
    ) -> ThreadView:
        """A new, empty thread (a child of `parent_id` when given). `agent` is a name
        the agent factory is told for every turn of the thread (`AgentRequest.agent`),
        so it can run a particular agent there."""
        self._host.admit()
        return await self._create(
            "create",
            request_key,
            ThreadCopy(()),
            title=checked_title(title),
            parent_id=parent_id,
            agent=agent,
        )

    async def _create(
        self,
        op: str,
        request_key: str,
        copy: ThreadCopy,
        *,
        title: str,
        parent_id: str | None,
        agent: str | None = None,
        **inputs: Any,
    ) -> ThreadView:
        thread_id = new_thread_id()
        claim = request_claim(
            op,
            request_key,
            json.dumps({"thread_id": thread_id}),
            title=title,
            parent_id=parent_id,
            agent=agent,
            **inputs,
        )
        records = [encode("created", title=title, parent_id=parent_id, agent=agent)]
        records += copy.records()
        commit = await self._store.create_thread(
            thread_id, records, parent_id=parent_id, summary=summary_json(title), request=claim
        )
        if commit.duplicate:
            thread_id = json.loads(commit.outcome)["thread_id"]
            return await self._view(thread_id)
        self._host.committed(thread_id, records, commit)
        self._host.notify(None)
        return await self._view(thread_id, known=commit.last_seq)

    async def import_transcript(
        self,
        messages: Sequence[Message],
        *,
        request_key: str,
        title: str = "",
        parent_id: str | None = None,
        artifacts: Sequence[Artifact] = (),
    ) -> ThreadView:
        """A new thread holding an existing conversation (core `Message`s, no system
        message, every tool call with its result), ready for the next `send`, with the
        `artifacts` its tool results preview (AR8)."""
        self._host.admit()
        copy = imported(messages, artifacts)
        return await self._create(
            "import",
            request_key,
            copy,
            title=checked_title(title),
            parent_id=parent_id,
            **import_inputs(copy, artifacts),
        )

    async def fork(
        self, thread_id: str, item_id: str, *, request_key: str, title: str | None = None
    ) -> ThreadView:
        """A new thread holding `thread_id`'s transcript up to the item `item_id` (with
        the results of the calls that message made) and the artifacts journaled by
        then (AR7). Raises `ItemNotFoundError`, and
        `ThreadStateError` for a message whose calls have no results yet."""
        self._host.admit()
        fold = await self._host.load(thread_id)
        copy = await forked(self._store, fold, item_id)
        name = checked_title(fold.title if title is None else title)
        return await self._create(
            "fork",
            request_key,
            copy,
            title=name,
            parent_id=None,
            source=thread_id,
            item=item_id,
        )

    async def delete(self, thread_id: str, *, request_key: str) -> None:
        """Delete a thread with its journal and its child threads; a running turn is
        stopped."""
        self._host.admit()
        claim = request_claim("delete", request_key, thread_id=thread_id)
        commit = await self._store.delete_thread(thread_id, request=claim)
        if not commit.duplicate:
            self._host.stop_runner(thread_id)
            self._host.forget(thread_id)
            self._host.notify(thread_id)

    async def purge(
        self,
        *,
        ended_before: datetime | float | None = None,
        keep_last: int | None = None,
        archive_to: ArchiveSink | None = None,
        limit: int = 100,
    ) -> PurgeReport:
        """Maintenance: delete ended threads (with their children) last written before
        `ended_before` (an aware datetime, or the store's clock in seconds) and beyond
        the `keep_last` newest, archiving each journal to `archive_to` first; see
        `ThreadStore.purge`. Raises `PurgeRefusedError`, deleting nothing, while a
        host holds the lease of a thread it would delete."""
        self._host.admit()
        before = cutoff(ended_before)
        report: PurgeReport = await self._store.purge(
            ended_before=before, keep_last=keep_last, archive_to=archive_to, limit=limit
        )
        for thread_id in report.thread_ids:
            self._host.forget(thread_id)
            self._host.notify(thread_id)
        return report

    async def set_title(self, thread_id: str, title: str, *, request_key: str) -> ThreadView:
        """Rename a thread."""
        self._host.admit()
        title = checked_title(title)
        claim = request_claim("set_title", request_key, thread_id=thread_id, title=title)
        commit = await self._store.append(
            thread_id, [encode("title", title=title)], request=claim, summary=summary_json(title)
        )
        if not commit.duplicate:
            self._host.notify(thread_id)
        return await self._view(thread_id)

    async def list(
        self, *, parent_id: str | None = None, before: int | None = None, limit: int = 50
    ) -> ThreadPage:
        """Threads newest first: top-level ones, or the children of `parent_id`.
        `limit` is from 1 to the store's `max_page` (else `PageBoundError`)."""
        self._host.admit()
        bound = self._store.max_page
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= bound:
            raise PageBoundError(f"limit must be an int from 1 to {bound}, got {limit!r}")
        ask = limit + 1 if limit < bound else limit
        rows = await self._store.list_threads(parent_id=parent_id, before=before, limit=ask)
        more = len(rows) > limit or (ask == limit and len(rows) == limit)
        rows = rows[:limit]
        threads = tuple(
            ThreadSummary(
                thread_id=row.thread_id,
                parent_id=row.parent_id,
                title=title_of(row),
                created_at=row.created_at,
                updated_at=row.updated_at,
                active=row.active,
                ordinal=row.ordinal,
            )
            for row in rows
        )
        return ThreadPage(threads, rows[-1].ordinal if more and rows else None)

    async def view(self, thread_id: str) -> ThreadView:
        """The thread's current view, derived from its journal."""
        self._host.admit()
        return await self._view(thread_id)

    async def context(self, thread_id: str) -> ThreadContext:
        """The thread's context record (CX1): its policy, usage totals and compactions."""
        self._host.admit()
        return (await self._host.load(thread_id)).context()

    async def history(self, thread_id: str, *, after: int = 0, limit: int = 100) -> HistoryPage:
        """Transcript messages from index `after` on, at most `limit` (1 to the
        store's `max_page`); `after` past the transcript's end raises
        `PageBoundError`, as does a bad `limit`."""
        self._host.admit()
        bound = self._store.max_page
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= bound:
            raise PageBoundError(f"limit must be an int from 1 to {bound}, got {limit!r}")
        fold = await self._host.load(thread_id)
        total = len(fold.entries)
        if isinstance(after, bool) or not isinstance(after, int) or not 0 <= after <= total:
            raise PageBoundError(f"after must be an int from 0 to {total}, got {after!r}")
        chosen = fold.entries[after : after + limit]
        entries = tuple(
            HistoryEntry(after + offset, entry.turn_id, entry.message)
            for offset, entry in enumerate(chosen)
        )
        end = after + len(entries)
        return HistoryPage(entries, end if end < total else None)

    async def artifact(
        self, thread_id: str, artifact_id: str, *, offset: int = 0, limit: int = ARTIFACT_PAGE
    ) -> ArtifactPage:
        """A page of the artifact `artifact_id` of the thread (AR5): `limit` characters
        of a text artifact, or bytes of a binary one, from `offset`. Raises
        `ItemNotFoundError` for an id the thread's journal does not hold and
        `PageBoundError` for an offset past the end or a bad limit."""
        self._host.admit()
        fold = await self._host.load(thread_id)
        info = fold.artifacts.get(artifact_id)
        if info is None:
            raise ItemNotFoundError(f"thread {thread_id!r} has no artifact {artifact_id!r}")
        records = await self._store.read(thread_id, after=info.seq - 1, limit=1)
        if not records:  # purged since it was loaded
            raise ThreadNotFoundError(f"thread {thread_id!r} was purged")
        return artifact_page(info, decode(records[0]).data, offset, limit)

    # -- turns ---------------------------------------------------------------------

    async def send(
        self,
        thread_id: str,
        message: str | Message,
        *,
        request_key: str,
        supplemental: str | None = None,
        labels: Mapping[str, str] | None = None,
        host: Mapping[str, Any] | None = None,
    ) -> ThreadView:
        """Accept a user message: it is committed before any model call, and the view
        is returned at once while the turn runs in the background (queued behind the
        running turn, if one runs). `supplemental` is shown to the model with this
        turn's message in every request of the turn, in this process, and never
        stored. `labels` are the turn's run labels, journaled with the message (RL4);
        `host` is the turn's opaque host map, kept in this process only and never
        stored (RL5)."""
        self._host.admit()
        user = user_message(message)
        check_texts(supplemental, "send's supplemental")
        extra = None if supplemental is None else hashlib.sha256(supplemental.encode()).hexdigest()
        labelled = labels_field(labels)
        claim = request_claim(
            "send",
            request_key,
            thread_id=thread_id,
            message=message_data(user),
            extra=extra,
            **labelled,
        )
        if supplemental is not None:
            self._host.remember_supplemental(thread_id, request_key, supplemental)
        if host is not None:
            self._host.host_maps.remember(thread_id, request_key, host)
        record = encode(
            "input",
            message=message_data(user),
            request_key=request_key,
            supplemental=supplemental is not None,
            **labelled,
        )
        commit = await self._store.append(thread_id, [record], request=claim, active=True)
        if not commit.duplicate:
            self._host.committed(thread_id, [record], commit)
            self._host.notify(thread_id)
        self._host.kick(thread_id)
        return await self._view(thread_id, known=None if commit.duplicate else commit.last_seq)

    async def cancel(
        self, thread_id: str, *, request_key: str, keep_draft: bool = True
    ) -> ThreadView:
        """Cancel the running turn. Before it returns, the turn is committed as
        cancelled (every call without an outcome gets the error result `cancelled`)
        and the runner's lease is revoked, so nothing the cancelled run does later
        reaches the journal. With `keep_draft` (the default), what the model had
        streamed of the reply being written, when this host runs the turn, is
        committed in the same transaction as the turn's last reply, marked stopped
        (text and thinking; a call being written is left out: T26). Cancelling an
        idle thread commits nothing else; queued inputs stay queued and run next."""
        self._host.admit()
        fold = await self._host.load(thread_id)
        turn = fold.current
        records: list[NewRecord] = []
        if turn is not None and turn.started:
            open_calls = [state.call for state in fold.open_calls()]
            if open_calls:
                results = error_results(open_calls, CANCELLED)
                records.append(encode("results", turn=turn.turn_id, message=message_data(results)))
            stopped = self._stopped_reply(fold, turn) if keep_draft else None
            if stopped is not None:
                records.append(
                    encode(
                        "stopped",
                        turn=turn.turn_id,
                        reply=turn.replies + 1,
                        message=message_data(stopped),
                    )
                )
            records.append(
                encode("turn_ended", turn=turn.turn_id, status="cancelled", error="cancelled")
            )
        elif turn is not None:  # ends it even if a runner starts it meanwhile
            records.append(
                encode("turn_ended", turn=turn.turn_id, status="cancelled", error="cancelled")
            )
        queued = list(fold.queue)
        # the default keeps the fingerprint cancels had before `keep_draft` existed
        dropping: dict[str, Any] = {} if keep_draft else {"keep_draft": False}
        claim = request_claim("cancel", request_key, thread_id=thread_id, **dropping)
        commit = await self._store.append(
            thread_id,
            records,
            request=claim,
            revoke_lease=turn is not None,
            active=bool(queued),
        )
        if not commit.duplicate and turn is not None:
            self._host.stop_runner(thread_id)
            self._host.notify(thread_id)
            if queued:
                self._host.kick(thread_id)
        return await self._view(thread_id)

    def _stopped_reply(self, fold: ThreadFold, turn: TurnState) -> Message | None:
        """The draft this host holds of `turn`'s next reply, as its stopped message
        (None when it holds none, or one of another reply)."""
        draft = self._host.drafts.get(fold.thread_id)
        if (
            draft is None
            or turn.phase != "running"
            or draft.turn_id != turn.turn_id
            or draft.key != fold.next_reply_key(turn.turn_id)
        ):
            return None
        return draft.stopped_reply()

    async def cancel_queued(self, thread_id: str, turn_id: str, *, request_key: str) -> ThreadView:
        """Take a queued input (a `QueuedInput.turn_id` of the view) off the queue.
        Raises `ItemNotFoundError` for an unknown one and `ThreadStateError` for one
        that has started (cancel it with `cancel`)."""
        self._host.admit()
        claim = request_claim("cancel_queued", request_key, thread_id=thread_id, turn=turn_id)
        fold = await self._host.load(thread_id)
        turn = fold.turns.get(turn_id)
        if turn is None:
            raise ItemNotFoundError(f"thread {thread_id!r} has no input {turn_id!r}")
        records: list[NewRecord] = []
        if turn.started and not turn.finished:
            raise ThreadStateError(f"input {turn_id!r} has started; use cancel() to stop it")
        if turn.phase == "queued":
            records.append(encode("input_cancelled", turn=turn_id))
        commit = await self._store.append(thread_id, records, request=claim)
        if not commit.duplicate:
            self._host.notify(thread_id)
        return await self._view(thread_id)

    async def respond(
        self,
        thread_id: str,
        interaction_id: str,
        answer: bool | str,
        *,
        request_key: str,
        reason: str = "",
    ) -> ThreadView:
        """Answer a pending interaction (an `interaction` item's `interaction_id`): an
        approval takes True or False (with an optional `reason` the model sees), a
        question takes the answer's text. The answer is committed, then a runner
        resumes the turn, in this process or any other. Answering an interaction that
        is answered already (or whose turn ended) changes nothing. Raises
        `ItemNotFoundError` for an unknown interaction, `InvalidArgumentError` for an
        answer of the wrong kind."""
        self._host.admit()
        fold = await self._host.load(thread_id)
        asked = fold.interactions.get(interaction_id)
        if asked is None:
            raise ItemNotFoundError(f"thread {thread_id!r} has no interaction {interaction_id!r}")
        approval = asked.kind == "approval"
        if approval and not isinstance(answer, bool):
            raise InvalidArgumentError("an approval is answered with True or False")
        if not approval and not isinstance(answer, str):
            raise InvalidArgumentError("a question is answered with text")
        check_texts((answer, reason), "respond's answer")  # a secret one is not fingerprinted
        if approval:
            stored = "approved" if answer else f"denied: {reason or 'denied'}"
            given: object = stored
        else:
            stored = REDACTED if asked.secret else str(answer)
            given = "<secret>" if asked.secret else stored
        claim = request_claim(
            "respond", request_key, thread_id=thread_id, interaction=interaction_id, answer=given
        )
        records: list[NewRecord] = []
        open_turn = not fold.turns[asked.turn_id].finished
        if not asked.answered and open_turn:
            records.append(
                encode(
                    "answer",
                    id=interaction_id,
                    approved=answer if approval else None,
                    answer=stored,
                )
            )
            if asked.secret and isinstance(answer, str):
                self._host.remember_secret(thread_id, interaction_id, answer)
        commit = await self._store.append(
            thread_id, records, request=claim, active=True if records else None
        )
        if not commit.duplicate and records:
            self._host.notify(thread_id)
            self._host.kick(thread_id)
        return await self._view(thread_id)

    async def retry(self, thread_id: str, *, request_key: str) -> ThreadView:
        """Run the last turn again when it failed (`failed` or
        `effect_outcome_unknown`): from where its transcript stands, with the agent
        surface it started with. Raises `ThreadStateError` otherwise."""
        self._host.admit()
        claim = request_claim("retry", request_key, thread_id=thread_id)
        fold = await self._host.load(thread_id)
        last = fold.last_turn
        failed = ("failed", "effect_outcome_unknown")
        if fold.current is None and last is not None and last.phase in failed:
            record = encode("retry", turn=last.turn_id, request_key=request_key)
            commit = await self._store.append(thread_id, [record], request=claim, active=True)
            if not commit.duplicate:
                self._host.notify(thread_id)
            self._host.kick(thread_id)
        elif request_key not in fold.retry_keys:
            raise ThreadStateError(f"thread {thread_id!r} has no failed turn to retry")
        return await self._view(thread_id)

    # -- live updates --------------------------------------------------------------

    async def subscribe(self, thread_id: str) -> AsyncGenerator[ThreadView, None]:
        """The thread's view now, then each time it changes (changes made here are
        seen at once, those of other processes within the host's `poll_interval`; a
        reply streaming here at most once per `live_interval`, the latest delta
        always shown, T23).
        Ends when the thread is deleted or the host shuts down; `aclose()` it (or use
        `contextlib.aclosing`) to stop early."""
        self._host.admit()
        seen = self._host.change_count(thread_id)
        view = await self._view(thread_id)
        yield view
        shown = (view.version, view.live)
        while True:
            await self._host.wait_change(thread_id, seen)
            if self._host.closed:
                return
            seen = self._host.change_count(thread_id)
            try:
                # woken by this process's own commits, the view needs no store call
                known = self._host.unfolded_to(thread_id)
                if known is None:
                    row = await self._store.thread(thread_id)
                    if row is None:
                        return
                    # a draft's growth is shown when the host publishes it (coalesced),
                    # not at every poll; its going is shown at once
                    draft = self._host.drafts.get(thread_id)
                    unchanged = shown[1] == 0 if draft is None else draft.published <= shown[1]
                    if row.last_seq == shown[0] and unchanged:
                        continue
                    known = row.last_seq
                view = await self._view(thread_id, known=known)
            except (StoreClosedError, ThreadNotFoundError):
                return
            if (view.version, view.live) == shown:
                continue
            shown = (view.version, view.live)
            yield view

    async def subscribe_threads(
        self, *, parent_id: str | None = None, limit: int = 50
    ) -> AsyncGenerator[ThreadPage, None]:
        """The first page of the thread list now, then each time it changes. Ends when
        the host shuts down."""
        self._host.admit()
        seen = self._host.change_count(None)
        page = await self.list(parent_id=parent_id, limit=limit)
        yield page
        while True:
            await self._host.wait_change(None, seen)
            if self._host.closed:
                return
            seen = self._host.change_count(None)
            try:
                latest = await self.list(parent_id=parent_id, limit=limit)
            except StoreClosedError:
                return
            if latest != page:
                page = latest
                yield page
