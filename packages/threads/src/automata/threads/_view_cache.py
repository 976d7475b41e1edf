"""`ViewCache`: a thread's view built once per change and kept, folded from the last.

A host keeps one cache per thread, so the subscribers of a thread share the view of
each journal position (and draft revision) instead of building one each, and a new
view rebuilds only the items whose inputs moved: each entry's items are kept with
what they were made from (the entry, and for a reply's tool calls their call state,
interaction and whether its turn finished) and made again only when one of those
changed or the items before them grew or shrank. The result is always equal to
`build_view` of the same fold and draft (a property test pins that over recorded
journals), which stays the definition of a view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from automata.core import Activity, ToolUseBlock
from automata.threads._draft import Draft
from automata.threads._fold import Entry, ThreadFold
from automata.threads._view import (
    ThreadView,
    ViewItem,
    assemble_view,
    entry_items,
    running_activity,
    view_entries,
)

__all__ = ["ViewCache"]


class _Kept:
    """One entry's items as last made, with the inputs they were made from."""

    __slots__ = ("entry", "items", "tools", "used")

    def __init__(self, entry: Entry, tools: tuple[int, ...], used: Any, items: list[ViewItem]):
        self.entry = entry
        self.tools = tools
        self.used = used
        self.items = items


def _tool_blocks(entry: Entry) -> tuple[int, ...]:
    if entry.message.role != "assistant":
        return ()
    return tuple(
        index
        for index, block in enumerate(entry.message.content)
        if isinstance(block, ToolUseBlock)
    )


def _used(
    entry: Entry,
    tools: tuple[int, ...],
    fold: ThreadFold,
    running: Mapping[str, Activity] | None,
) -> Any:
    """What of `fold` besides `entry` the items of a reply calling tools are made
    from, with the live activity of its running calls (compared by value, the fold's
    objects by identity first)."""
    if not tools:
        return None
    used: list[Any] = []
    for index in tools:
        call = fold.positions.get((entry.seq, index))
        if call is None:
            used.append(None)
            continue
        asked = fold.interaction_for(call)
        block = entry.message.content[index]
        live = running.get(block.id) if running and isinstance(block, ToolUseBlock) else None
        in_call = tuple(  # the questions the call asked while it ran (P27)
            (
                found,
                found.answered,
                found.answer,
                found.unanswerable,
                fold.turns[found.turn_id].finished,
            )
            for found in fold.asked_by(call)
        )
        shown = (call, call.dispatched, call.result, call.activity, live, in_call)
        if asked is None:
            used.append(shown)
        else:
            finished = fold.turns[asked.turn_id].finished
            used.append((*shown, asked, asked.answered, asked.answer, finished))
    return used


class ViewCache:
    """The views of one thread as its fold moves on. `view(fold, draft)` equals
    `build_view(fold, draft)`; asked again at the same journal position and draft
    revision it returns the same object."""

    def __init__(self) -> None:
        self._kept: list[_Kept] = []
        self._fold: ThreadFold | None = None
        self._key: tuple[int, Draft | None, int] | None = None
        self._view: ThreadView | None = None

    def view(self, fold: ThreadFold, draft: Draft | None = None) -> ThreadView:
        """The view of `fold` with `draft` merged (see `build_view`)."""
        key = (fold.last_seq, draft, 0 if draft is None else draft.revision)
        if self._view is not None and self._fold is fold and self._key == key:
            return self._view
        if self._fold is not fold:
            self._kept = []
            self._fold = fold
        items = self._items(fold, running_activity(fold, draft))
        view = assemble_view(fold, items, draft)
        self._key, self._view = key, view
        return view

    def _items(self, fold: ThreadFold, running: Mapping[str, Activity] | None) -> list[ViewItem]:
        kept = self._kept
        items: list[ViewItem] = []
        entries = view_entries(fold)
        for position, entry in enumerate(entries):
            start = len(items)
            old = kept[position] if position < len(kept) else None
            if old is not None and old.entry is entry:
                # an entry without tool calls shows only itself (and a user entry its
                # turn's labels, fixed by its input): nothing of the fold to compare
                used = _used(entry, old.tools, fold, running) if old.tools else old.used
                if used is old.used or used == old.used:
                    if old.items and old.items[0].ordinal != start:
                        old.items = [
                            dataclasses.replace(item, ordinal=start + n)
                            for n, item in enumerate(old.items)
                        ]
                    items += old.items
                    continue
                tools = old.tools
            else:
                tools = _tool_blocks(entry)
                used = _used(entry, tools, fold, running)
            made = entry_items(entry, fold, start, running)
            fresh = _Kept(entry, tools, used, made)
            if position < len(kept):
                kept[position] = fresh
            else:
                kept.append(fresh)
            items += made
        del kept[len(entries) :]
        return items
