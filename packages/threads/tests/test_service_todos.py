"""The to-do list as a thread fact (TD rules): a `todo_tool()` call's list is journaled
with its result, shown by the view, kept by reloads and other processes, carried over
by forks; a failed or invalid call changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from automata.core import Agent, ModelRequest
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls
from automata.threads import Host, ThreadService, ThreadView, TodoItem, TodoList, todo_tool
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
OpenHost = Callable[..., Awaitable[Host]]
Settle = Callable[..., Awaitable[ThreadView]]

FIRST = [
    {"content": "read the code", "status": "in_progress", "priority": "high"},
    {"content": "fix the bug"},
]
SECOND = [
    {"content": "read the code", "status": "completed", "priority": "high"},
    {"content": "fix the bug", "status": "in_progress"},
]


def planner(name: str = "todo") -> Agent[None]:
    """Each user message names the list to send (`first`, `second`, `bad`), then the
    model answers `ok` once the call has its result."""
    lists: dict[str, object] = {"first": FIRST, "second": SECOND, "bad": [{"content": ""}]}

    async def model(request: ModelRequest) -> Reply:
        last = request.messages[-1]
        if last.role == "tool":
            return "ok"
        word = last.text
        return tool_calls(tool_call(f"c-{word}", name, items=lists[word]))

    return Agent(FunctionProvider(model), tools=[todo_tool(name)])


def items(todos: TodoList | None) -> list[tuple[str, str, str]]:
    assert todos is not None
    return [(item.content, item.status, item.priority) for item in todos.items]


async def test_a_todo_call_sets_the_list_the_view_shows_with_the_turn_that_set_it(
    service_for: ServiceFor, settle: Settle
) -> None:
    """TD1 TD2"""
    service = await service_for(lambda request: planner())
    thread = await service.create(request_key="t")
    assert thread.todos is None
    await service.send(thread.thread_id, "first", request_key="s1")
    view = await settle(service, thread.thread_id)
    assert view.status == "done"
    assert items(view.todos) == [
        ("read the code", "in_progress", "high"),
        ("fix the bug", "pending", "medium"),
    ]
    assert view.todos is not None
    first_turn = view.todos.turn_id
    assert (view.todos.call_id, first_turn) == ("c-first", view.items[0].turn_id)
    await service.send(thread.thread_id, "second", request_key="s2")
    view = await settle(service, thread.thread_id)
    assert items(view.todos)[0] == ("read the code", "completed", "high")
    assert view.todos is not None
    assert view.todos.turn_id != first_turn
    assert view.to_dict()["todos"]["items"][1] == {
        "content": "fix the bug",
        "status": "in_progress",
        "priority": "medium",
    }


async def test_an_invalid_todo_call_changes_nothing_and_the_model_sees_the_error(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """TD3"""
    service = await service_for(lambda request: planner())
    thread = await service.create(request_key="t")
    await service.send(thread.thread_id, "first", request_key="s1")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "bad", request_key="s2")
    view = await settle(service, thread.thread_id)
    [bad] = [item for item in view.items if item.call_id == "c-bad"]
    assert bad.status == "error"
    assert items(view.todos)[0] == ("read the code", "in_progress", "high")
    kinds = [record.kind for record in await store.read(thread.thread_id)]
    assert kinds.count("todos") == 1


async def test_the_list_is_journaled_with_the_calls_result_whatever_the_tool_is_named(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """TD2"""
    service = await service_for(lambda request: planner("plan"))
    thread = await service.create(request_key="t")
    await service.send(thread.thread_id, "first", request_key="s1")
    view = await settle(service, thread.thread_id)
    assert items(view.todos)[1] == ("fix the bug", "pending", "medium")
    records = await store.read(thread.thread_id)
    kinds = [record.kind for record in records]
    at = kinds.index("todos")
    assert kinds[at - 1] == "results"
    assert records[at].at == records[at - 1].at  # committed together


async def test_another_host_on_the_store_shows_the_same_list(
    service_for: ServiceFor, settle: Settle
) -> None:
    """TD4"""
    service = await service_for(lambda request: planner())
    thread = await service.create(request_key="t")
    await service.send(thread.thread_id, "first", request_key="s1")
    view = await settle(service, thread.thread_id)
    other = await service_for(lambda request: planner())
    again = await other.view(thread.thread_id)
    assert again.todos == view.todos
    assert again == view


async def test_a_fork_carries_the_list_as_it_stood_at_the_cut(
    service_for: ServiceFor, settle: Settle
) -> None:
    """TD5"""
    service = await service_for(lambda request: planner())
    thread = await service.create(request_key="t")
    await service.send(thread.thread_id, "first", request_key="s1")
    await settle(service, thread.thread_id)
    await service.send(thread.thread_id, "second", request_key="s2")
    view = await settle(service, thread.thread_id)
    [first_call] = [item for item in view.items if item.call_id == "c-first"]
    early = await service.fork(thread.thread_id, first_call.id, request_key="f1")
    assert items(early.todos) == [
        (i["content"], i.get("status", "pending"), i.get("priority", "medium")) for i in FIRST
    ]
    assert early.todos is not None
    assert (early.todos.turn_id, early.todos.call_id) == (None, None)
    before = await service.fork(thread.thread_id, view.items[0].id, request_key="f0")
    assert before.todos is None
    late = await service.fork(thread.thread_id, view.items[-1].id, request_key="f2")
    assert items(late.todos)[0] == ("read the code", "completed", "high")
    # a fork of the fork, cut before its end, keeps the list of that point
    [forked_second] = [item for item in late.items if item.call_id == "c-second"]
    [forked_first] = [item for item in late.items if item.call_id == "c-first"]
    again = await service.fork(late.thread_id, forked_first.id, request_key="f3")
    assert items(again.todos)[0] == ("read the code", "in_progress", "high")
    assert forked_second.id != forked_first.id
    assert isinstance(late.todos.items[0] if late.todos else None, TodoItem)
