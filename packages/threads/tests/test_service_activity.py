"""Tool activity as thread facts (docs/threads.md, AC rules): what a tool call showed
a person is journaled with its results and is the same in the view of every host and
after a reload; a call that failed its schema keeps its safe label; a question's call
carries its answer summary (a secret one only as redacted); a sub-agent call names
its `start` operation and child. A send's run labels are journaled with it; its host
map reaches the run and no record (RL rules)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from automata.core import (
    Activity,
    ActivityRow,
    Agent,
    AnswerSummary,
    Approval,
    InvalidArgumentError,
    SubAgentOperation,
    Tool,
    ToolContext,
    tool,
)
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import (
    AgentRequest,
    RequestConflictError,
    ThreadService,
    ThreadView,
    ViewItem,
    ask_user_tool,
    child_thread_tool,
)
from automata.threads.store import ThreadStore

ServiceFor = Callable[..., Awaitable[ThreadService]]
Settle = Callable[..., Awaitable[ThreadView]]


async def fetch(url: str, context: ToolContext) -> str:
    context.activity.label(f"Fetching {url}")
    context.activity.row("\x1b[1mconnected\x1b[0m")
    context.activity.row("```\nbody\n```", kind="markdown")
    context.activity.status("200")
    return "page"


ran: list[str] = []


def read_lines(path: str, count: int) -> str:
    ran.append(path)
    return "lines"


def tools() -> list[Tool]:
    return [
        tool(fetch, name="fetch"),
        tool(read_lines, name="read_lines", invalid_label=lambda a: f"Reading {a.get('path')}"),
    ]


def calls(view: ThreadView) -> list[ViewItem]:
    return [item for item in view.items if item.kind == "tool_call"]


FETCHED = Activity(
    label="Fetching a.test",
    rows=(ActivityRow("connected"), ActivityRow("```\nbody\n```", "markdown")),
    status="200",
)


async def test_a_calls_activity_is_in_the_view_of_every_host_and_after_a_reload(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """AC1, AC3, AC4: journaled once, with the results, and shown from the journal."""
    provider = ScriptedProvider(
        [
            tool_calls(
                tool_call("c1", "fetch", url="a.test"),
                tool_call("c2", "read_lines", path="b.txt", count="many"),
            ),
            "done",
        ]
    )
    service = await service_for(lambda r: Agent(provider, tools=tools()))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "read", request_key="s")
    done = await settle(service, thread.thread_id)
    fetched, invalid = calls(done)
    assert fetched.activity == FETCHED
    assert invalid.activity == Activity(label="Reading b.txt")
    assert invalid.status == "error"
    assert ran == []
    records = await store.read(thread.thread_id)
    kinds = [record.kind for record in records]
    assert kinds.count("activity") == 2
    assert kinds.index("activity") == kinds.index("results") - 2
    other = await service_for(lambda r: Agent(provider, tools=tools()))
    reloaded = await other.view(thread.thread_id)
    assert reloaded == done
    assert reloaded.to_dict()["items"][1]["activity"]["label"] == "Fetching a.test"


async def test_a_question_carries_its_answer_summary_and_a_secret_one_only_redacted(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """AC5: display data from the `answer` record, never the secret itself."""
    provider = ScriptedProvider(
        [
            tool_calls(
                tool_call("q1", "ask_user", question="City?"),
                tool_call("q2", "ask_user", question="PIN?", secret=True),
            ),
            "thanks",
        ]
    )
    service = await service_for(lambda r: Agent(provider, tools=[ask_user_tool()]))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "sign up", request_key="s")
    waiting = await settle(service, thread.thread_id)
    asked = [item for item in waiting.items if item.kind == "interaction"]
    assert [item.activity for item in calls(waiting)] == [None, None]
    await service.respond(thread.thread_id, asked[0].interaction_id or "", "Paris", request_key="a")
    await service.respond(thread.thread_id, asked[1].interaction_id or "", "4321", request_key="b")
    done = await settle(service, thread.thread_id)
    city, pin = calls(done)
    assert city.activity == Activity(answer=AnswerSummary("Paris"))
    assert pin.activity == Activity(answer=AnswerSummary(redacted=True))
    questions = [item for item in done.items if item.kind == "interaction"]
    assert [item.activity for item in questions] == [city.activity, pin.activity]
    assert "4321" not in str(done.to_dict())
    assert all("4321" not in record.data for record in await store.read(thread.thread_id))


async def test_a_sub_agent_call_names_its_start_operation_and_child(
    service_for: ServiceFor, settle: Settle
) -> None:
    """AC6: the action and the ordered targets, kept with the child's status."""
    found: list[Tool] = []
    parent = ScriptedProvider([tool_calls(tool_call("c1", "research", task="Paris?")), "ok"])

    def factory(request: AgentRequest) -> Agent[None]:
        if request.agent == "research":
            return Agent(ScriptedProvider(["2.1M"]))
        return Agent(parent, tools=found)

    service = await service_for(factory)
    found.append(child_thread_tool(service, "research", "Research a question."))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "how many?", request_key="s")
    done = await settle(service, thread.thread_id)
    (child,) = (await service.list(parent_id=thread.thread_id)).threads
    (call,) = calls(done)
    assert call.activity == Activity(
        label="research: Paris?",
        status="done",
        operation=SubAgentOperation("start", (child.thread_id,)),
    )


async def test_a_thread_whose_tools_show_nothing_has_no_activity_records(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """AC2: a journal without activity reads as before: no activity on any item."""
    provider = ScriptedProvider(
        [tool_calls(tool_call("c1", "read_lines", path="a", count=1)), "ok"]
    )
    service = await service_for(lambda r: Agent(provider, tools=tools()))
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "read", request_key="s")
    done = await settle(service, thread.thread_id)
    assert [item.activity for item in calls(done)] == [None]
    assert "activity" not in [record.kind for record in await store.read(thread.thread_id)]


async def test_a_sends_labels_are_journaled_and_its_host_map_reaches_the_run_only(
    service_for: ServiceFor, settle: Settle, store: ThreadStore
) -> None:
    """RL4, RL5: labels in the view (and the run) after a reload; the host map reaches
    the tool, the approver and the run's labels merge the agent's, and no record holds it."""
    token = object()
    seen: list[tuple[dict[str, str], object]] = []
    approved: list[object] = []

    def look(context: ToolContext) -> str:
        seen.append((context.labels.as_dict(), context.host.get("token")))
        return "ok"

    def approve(call: Any, context: ToolContext) -> Approval:
        approved.append(context.host.get("token"))
        return Approval.allow()

    provider = ScriptedProvider([tool_calls(tool_call("c1", "look")), "done"])

    def agent(request: AgentRequest) -> Agent[None]:
        return Agent(
            provider, tools=[tool(look, name="look")], approver=approve, labels={"app": "chat"}
        )

    service = await service_for(agent)
    thread = await service.create(request_key="c")
    await service.send(
        thread.thread_id,
        "go",
        request_key="s",
        labels={"tenant": "acme"},
        host={"token": token, "marker": "host-map-marker"},
    )
    done = await settle(service, thread.thread_id)
    assert seen == [({"app": "chat", "tenant": "acme"}, token)]
    assert approved == [token]
    assert done.items[0].labels == {"tenant": "acme"}
    other = await service_for(agent)
    assert (await other.view(thread.thread_id)).items[0].labels == {"tenant": "acme"}
    assert all(
        "host-map-marker" not in record.data for record in await store.read(thread.thread_id)
    )
    with pytest.raises(RequestConflictError):
        await service.send(thread.thread_id, "go", request_key="s", labels={"tenant": "other"})
    with pytest.raises(InvalidArgumentError, match="label key"):
        await service.send(thread.thread_id, "go", request_key="t", labels={"a b": "x"})
