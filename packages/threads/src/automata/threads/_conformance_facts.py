"""Conformance checks for the thread facts the service journals beside its messages:
a store keeps their records exactly, so every process folds the same facts."""

from __future__ import annotations

from automata.core import Agent, Message, ToolResultBlock
from automata.core.testing import ScriptedProvider, tool_call
from automata.threads._conformance_support import StoreFactory, expect, opened
from automata.threads._fold import ThreadFold
from automata.threads._records import decode, encode
from automata.threads._todos import carried_records, todo_records, todo_tool

__all__ = ["check_s2_todo_records_read_back_exactly"]


async def check_s2_todo_records_read_back_exactly(factory: StoreFactory) -> None:
    """S2 (TD2): the `todos` records a turn and a fork write (non-ASCII text, quotes,
    every status) read back with the same kind and bytes, in commit order, and fold to
    the list that was written."""
    rule = "S2"
    agent = Agent(ScriptedProvider([]), tools=[todo_tool()])
    items = [
        {"content": 'lire « le code » "vite"', "status": "completed", "priority": "high"},
        {"content": "修正する\nthe bug", "status": "in_progress", "priority": "low"},
        {"content": "ship", "status": "pending", "priority": "medium"},
    ]
    call = tool_call("c1", "todo", items=items)
    results = Message(role="tool", content=(ToolResultBlock(tool_use_id="c1"),))
    written = [
        encode("created", title="", parent_id=None, agent=None),
        *todo_records(agent, "turn-2", [call], results),
    ]
    expect(len(written) == 2, rule, "the todo call made no todos record")
    async with opened(factory) as store:
        await store.create_thread("t", written[:1])
        await store.append("t", written[1:])
        fold = ThreadFold("t")
        for record in await store.read("t"):
            fold.apply(decode(record))
        expect(fold.todos is not None, rule, "the todos record did not fold to a list")
        assert fold.todos is not None
        carried = [record for _, record in carried_records(fold.todo_marks, 0)]
        await store.append("t", carried)
        records = await store.read("t")
        expect(
            [(r.kind, r.data) for r in records] == [(w.kind, w.data) for w in [*written, *carried]],
            rule,
            "todos records did not read back byte for byte",
        )
        again = ThreadFold("t")
        for record in records:
            again.apply(decode(record))
        expect(
            again.todos is not None
            and [(i.content, i.status, i.priority) for i in again.todos.items]
            == [(i["content"], i["status"], i["priority"]) for i in items],
            rule,
            f"the journal folds to another list: {again.todos}",
        )
