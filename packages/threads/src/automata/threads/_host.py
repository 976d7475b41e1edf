"""`Host`: a store opened for durable threads, the runners it owns, and recovery.

A host is opened once per process (or per store, in tests), hands out its thread
service, runs each thread's turns in background tasks it owns, and resumes the turns
other processes left behind: at open and then every `recovery_interval` seconds, it
asks the store which active threads have no live lease and claims them.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING

from automata.threads._agents import AgentFactory
from automata.threads._changes import ChangeSignals
from automata.threads._draft import Draft, LiveDrafts
from automata.threads._errors import HostClosedError, ThreadNotFoundError, ThreadsError
from automata.threads._fold import ThreadFold
from automata.threads._labels import HostMaps
from automata.threads._records import decode, decode_new
from automata.threads._runner import ThreadRunner
from automata.threads._text import check_text
from automata.threads._view import ThreadView
from automata.threads._view_cache import ViewCache
from automata.threads.store import Commit, NewRecord, ProgressCallback, ThreadStore

if TYPE_CHECKING:
    from automata.threads._service import ThreadService

__all__ = ["Host"]

log = logging.getLogger("automata.threads")


class Host:
    """Durable threads on one store. Open with `await Host.open(store)`; get the
    thread service with `host.thread_service(factory)`; end with `await
    host.shutdown()`, after which every call raises `HostClosedError`.

    `lease_ttl` is how long a runner's claim on a thread lasts without renewal (it
    renews every third of it); `owner` names this host in leases (a random id per
    host by default); `poll_interval` is how often subscriptions look for changes made
    by other processes (a store with a change feed, `ThreadStore.changes`, wakes them
    at once as well); `recovery_interval` how often the host looks for turns left
    behind (default: half the lease ttl); `live_interval` the least time between two
    views a subscriber is given while a reply streams (T23)."""

    def __init__(
        self,
        store: ThreadStore,
        *,
        lease_ttl: float,
        owner: str,
        poll_interval: float,
        recovery_interval: float,
        live_interval: float = 0.05,
    ) -> None:
        self.store = store
        self.lease_ttl = lease_ttl
        self.owner = owner
        self.poll_interval = poll_interval
        self.recovery_interval = recovery_interval
        self._closing = False
        self._closed = asyncio.Event()
        self._shutdown: asyncio.Task[None] | None = None
        self._folds: dict[str, ThreadFold] = {}
        self._views: dict[str, ViewCache] = {}
        self._unfolded: dict[str, list[tuple[Commit, Sequence[NewRecord]]]] = {}
        self._runners: dict[str, asyncio.Task[None]] = {}
        self._wakes: dict[str, int] = {}
        self._supplemental: dict[tuple[str, str], str] = {}
        self.host_maps = HostMaps()
        """The host maps of sends to this host, in memory only (RL5)."""
        self._secrets: dict[tuple[str, str], str] = {}
        self._changes = ChangeSignals()
        self._told: dict[str, int] = {}  # threads notified here since their last echo
        self._service: ThreadService | None = None
        self._factory: AgentFactory | None = None
        self._recovery: asyncio.Task[None] | None = None
        self._feed: asyncio.Task[None] | None = None
        self._polls: asyncio.Task[None] | None = None
        self.drafts = LiveDrafts(live_interval, self._wake)

    @classmethod
    async def open(
        cls,
        store: ThreadStore,
        *,
        progress: ProgressCallback | None = None,
        lease_ttl: float = 30.0,
        owner: str | None = None,
        poll_interval: float = 1.0,
        recovery_interval: float | None = None,
        live_interval: float = 0.05,
    ) -> Host:
        """Open `store` (migrating it when needed, telling `progress` each phase) and
        return a host on it. Raises the store's `SchemaError` for a store it cannot
        use; nothing is changed then."""
        if lease_ttl <= 0:
            raise ValueError(f"lease_ttl must be positive, got {lease_ttl}")
        if live_interval < 0:
            raise ValueError(f"live_interval must not be negative, got {live_interval}")
        await store.open(progress)
        return cls(
            store,
            lease_ttl=lease_ttl,
            owner=owner or f"host-{uuid.uuid4().hex[:12]}",
            poll_interval=poll_interval,
            recovery_interval=recovery_interval or lease_ttl / 2,
            live_interval=live_interval,
        )

    # -- lifecycle -----------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True from the moment `shutdown` starts."""
        return self._closing

    def admit(self) -> None:
        """Raise `HostClosedError` once shutdown has started."""
        if self._closing:
            raise HostClosedError("the host is shut down; open a new one to go on")

    def thread_service(self, agent_factory: AgentFactory) -> ThreadService:
        """The host's thread service, whose turns run agents `agent_factory` gives.
        Recovery of turns left behind starts now. A host has one factory: asking
        again with another raises `ThreadsError`."""
        from automata.threads._service import ThreadService

        self.admit()
        if self._service is not None:
            if agent_factory is not self._factory:
                raise ThreadsError("this host already has a thread service with another factory")
            return self._service
        self._factory = agent_factory
        self._service = ThreadService(self)
        self._recovery = asyncio.create_task(self._recover_forever())
        feed = self.store.changes()
        if feed is not None:
            self._feed = asyncio.create_task(self._follow(feed))
        return self._service

    async def shutdown(self) -> None:
        """Stop admitting calls, cancel the running turns (their leases are released,
        so another process may resume them at once), wait for them, close the store.

        To bound the wait, wrap the call (`async with asyncio.timeout(10): await
        host.shutdown()`): cancelling a call stops only its waiting, not the shutdown,
        so when the work has not stopped in time (a tool that ignores cancellation)
        the host stays closing, admitting nothing, and a later call goes on waiting.
        Calling it again waits for the first to finish."""
        if self._shutdown is None:
            self._closing = True
            self._shutdown = asyncio.create_task(self._shut_down(), name="automata-host-shutdown")
        await asyncio.shield(self._shutdown)

    async def _shut_down(self) -> None:
        try:
            tasks = list(self._runners.values())
            if self._recovery is not None:
                tasks.append(self._recovery)
            if self._feed is not None:
                tasks.append(self._feed)
            if self._polls is not None:
                tasks.append(self._polls)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.drafts.close()
            await self.store.close()
        finally:
            self._closed.set()
            self._changes.close()

    # -- runners -------------------------------------------------------------------

    def kick(self, thread_id: str) -> None:
        """Make sure a runner looks at `thread_id` soon (started here when none is)."""
        if self._closing or self._factory is None:
            return
        self._wakes[thread_id] = self._wakes.get(thread_id, 0) + 1
        task = self._runners.get(thread_id)
        if task is not None and not task.done() and not task.cancelling():
            return
        runner = ThreadRunner(
            store=self.store,
            thread_id=thread_id,
            owner=self.owner,
            ttl=self.lease_ttl,
            factory=self._factory,
            load=self.load,
            notify=self.notify,
            drafts=self.drafts,
            supplemental=lambda key: self._supplemental.pop((thread_id, key), None),
            secret=lambda key: self._secrets.pop((thread_id, key), None),
            woken=lambda: self._wakes.get(thread_id, 0),
            host_maps=self.host_maps,
            committed=self.committed,
        )
        task = asyncio.create_task(runner.run(), name=f"automata-thread-{thread_id}")
        self._runners[thread_id] = task

        def forget(done: asyncio.Task[None]) -> None:
            if self._runners.get(thread_id) is done:
                del self._runners[thread_id]
            if not done.cancelled() and done.exception() is not None:
                log.error("runner of thread %s failed", thread_id, exc_info=done.exception())

        task.add_done_callback(forget)

    def stop_runner(self, thread_id: str) -> None:
        """Cancel this host's runner of `thread_id`, if it has one (without waiting)."""
        task = self._runners.get(thread_id)
        if task is not None:
            task.cancel()

    def remember_supplemental(self, thread_id: str, request_key: str, text: str) -> None:
        """Keep a send's supplemental context in memory (never in the store) for the
        runner of its turn, here."""
        self._supplemental[(thread_id, request_key)] = text

    def remember_secret(self, thread_id: str, interaction_id: str, answer: str) -> None:
        """Keep a secret answer in memory (never in the store) until the runner of its
        turn, here, hands it to the model once."""
        self._secrets[(thread_id, interaction_id)] = answer

    def take_secret(self, thread_id: str, interaction_id: str) -> str | None:
        """The secret answer `respond` took here for `interaction_id`, handed over
        once (None when it was taken elsewhere, or already)."""
        return self._secrets.pop((thread_id, interaction_id), None)

    async def _recover_forever(self) -> None:
        while True:
            try:
                for thread_id in await self.store.claimable(limit=100):
                    self.kick(thread_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("looking for threads to recover failed")
            await asyncio.sleep(self.recovery_interval)

    async def _follow(self, feed: AsyncIterator[str]) -> None:
        """Wake this host's subscribers when the store's change feed names a thread
        another process committed to; polling goes on beside it. An id the feed marks
        as committed through this host's own store (`committed_here`) is passed over
        when this host has told its subscribers of a change of that thread since the
        last such echo (its writers notify as they commit)."""
        try:
            async for thread_id in feed:
                if getattr(thread_id, "committed_here", False) and self._told.pop(thread_id, 0):
                    continue
                self._changes.bump(thread_id)
                self._changes.bump(None)
        except Exception:
            log.exception("the store's change feed failed; subscriptions poll")
        finally:
            close = getattr(feed, "aclose", None)
            if close is not None:
                await close()

    # -- state ---------------------------------------------------------------------

    async def load(self, thread_id: str, *, known: int | None = None) -> ThreadFold:
        """The thread's folded state, brought up to the journal's end (to `known`, a
        `last_seq` the caller just read from the store, without reading the journal
        when the fold is there already). Raises `ThreadNotFoundError`, and
        `InvalidArgumentError` for an id that is not text."""
        check_text(thread_id, "a thread id")
        fold = self._folds.get(thread_id)
        unfolded = self._unfolded.pop(thread_id, ())
        if fold is None:
            fold = ThreadFold(thread_id)
        else:
            for commit, written in sorted(unfolded, key=lambda kept: kept[0].first_seq):
                if fold.last_seq == commit.first_seq - 1:
                    for seq, new in enumerate(written, start=commit.first_seq):
                        fold.apply(decode_new(thread_id, seq, new))
                elif commit.last_seq > fold.last_seq:
                    break  # a gap: the read below brings these back
            if known is not None and fold.last_seq >= known:
                return fold
        page = self.store.max_page
        while True:
            records = await self.store.read(thread_id, after=fold.last_seq, limit=page)
            for record in records:
                fold.apply(decode(record))
            if len(records) < page:
                break
        self._folds[thread_id] = fold
        return fold

    def committed(self, thread_id: str, records: Sequence[NewRecord], commit: Commit) -> None:
        """Keep `records`, which this process just committed as `commit`, for the
        next `load` of the thread to fold in without reading them back (folds change
        only in `load`, as before). A fold never gets ahead of the journal: only
        committed records are folded, in journal order, each once; any gap is read."""
        if commit.duplicate or commit.last_seq - commit.first_seq + 1 != len(records):
            return
        if thread_id not in self._folds:
            if commit.first_seq != 1:
                return  # the next load reads the journal from its start
            self._folds[thread_id] = ThreadFold(thread_id)
        self._unfolded.setdefault(thread_id, []).append((commit, records))

    def unfolded_to(self, thread_id: str) -> int | None:
        """The journal position this process's own commits to `thread_id` not yet
        folded reach (None when there are none): a subscriber woken by them folds them
        in without asking the store (what another process wrote is seen at its next
        look, within `poll_interval`)."""
        unfolded = self._unfolded.get(thread_id)
        return max(commit.last_seq for commit, _ in unfolded) if unfolded else None

    async def load_live(
        self, thread_id: str, *, known: int | None = None
    ) -> tuple[ThreadFold, Draft | None]:
        """The thread's folded state (see `load`) and its draft here, if any. A draft
        ahead of the fold (its step committed while the journal was being read) has
        the journal read again, so a view never misses the reply both stand for."""
        fold = await self.load(thread_id, known=known)
        draft = self.drafts.get(thread_id)
        known_turn = draft is not None and draft.turn_id in fold.turns
        if draft is not None and known_turn and fold.next_reply_key(draft.turn_id) != draft.key:
            fold = await self.load(thread_id)
            draft = self.drafts.get(thread_id)
        return fold, draft

    def view(self, fold: ThreadFold, draft: Draft | None) -> ThreadView:
        """The view of `fold` with `draft` merged (`build_view`'s), built once per
        journal position and draft revision for all of the thread's subscribers here
        and folded from the last one (`ViewCache`)."""
        cache = self._views.get(fold.thread_id)
        if cache is None:
            cache = self._views[fold.thread_id] = ViewCache()
        return cache.view(fold, draft)

    def forget(self, thread_id: str) -> None:
        self._folds.pop(thread_id, None)
        self._views.pop(thread_id, None)
        self._unfolded.pop(thread_id, None)

    def notify(self, thread_id: str | None) -> None:
        """Tell subscribers a thread (or, with None, the thread list) changed."""
        if thread_id is not None:
            self._changes.bump(thread_id)
            if self._feed is not None:
                self._told[thread_id] = 1
        self._changes.bump(None)

    def _wake(self, thread_id: str) -> None:
        """Wake the subscribers of one thread (not those of the list)."""
        self._changes.bump(thread_id)

    def change_count(self, thread_id: str | None) -> int:
        return self._changes.count(thread_id)

    async def wait_change(self, thread_id: str | None, seen: int) -> None:
        """Wait until `thread_id` (None: any thread) changed in this process since
        `seen`, the host closes, or its next poll round starts (within
        `poll_interval`)."""
        if self._closing:
            return
        if self._polls is None:
            self._polls = asyncio.create_task(self._poll_forever(), name="automata-host-polls")
        await self._changes.wait(thread_id, seen)

    async def _poll_forever(self) -> None:
        """Start a poll round every `poll_interval` (on the loop's clock, without
        drift): one timer for all of the host's subscribers, not one per wait."""
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            due += self.poll_interval
            await asyncio.sleep(max(0.0, due - loop.time()))
            due = max(due, loop.time() - self.poll_interval)  # after a stall: no burst
            self._changes.poll()

    async def check_thread(self, thread_id: str) -> None:
        if await self.store.thread(thread_id) is None:
            raise ThreadNotFoundError(thread_id)
