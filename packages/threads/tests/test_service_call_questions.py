"""Questions a running tool call asks (`CallQuestions`): journaled as an interaction of
the call, shown pending while the call waits, answered through `respond` and handed
to the call in this host; a call left waiting when its host stopped is never run
again, and its question is closed as unanswerable (docs/protocols.md P27-P28, which
the MCP elicitation bridge builds on)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import aclosing
from typing import Any

import pytest

from automata.core import Agent, ToolContext, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results
from automata.threads import (
    CallQuestions,
    Host,
    QuestionUnanswerableError,
    ThreadService,
    ThreadView,
    ViewItem,
)
from automata.threads._call_questions import CALL_STOPPED
from automata.threads.store import ThreadStore

OpenHost = Callable[..., Awaitable[Host]]


def asked(view: ThreadView) -> ViewItem:
    return next(item for item in view.items if item.kind == "interaction")


async def until(
    service: ThreadService, thread_id: str, done: Callable[[ThreadView], bool]
) -> ThreadView:
    async with asyncio.timeout(10), aclosing(service.subscribe(thread_id)) as views:
        async for view in views:
            if done(view):
                return view
    raise AssertionError("the host shut down")


def pending(view: ThreadView) -> bool:
    return any(item.kind == "interaction" and item.status == "pending" for item in view.items)


class Login:
    """A tool that asks for a password while it runs, counting its runs."""

    def __init__(self, questions: CallQuestions | None, *, idempotent: bool = False) -> None:
        self.questions = questions
        self.runs = 0
        self.idempotent = idempotent

    def agent(self) -> Agent[None]:
        async def login(context: ToolContext[Any]) -> str:
            """Log in."""
            self.runs += 1
            assert self.questions is not None
            answer = await self.questions.ask(context, "Password?", secret=True)
            return f"logged in with {len(answer.text or '')} characters"

        provider = ScriptedProvider([tool_calls(tool_call("c1", "login")), "in"])
        return Agent(provider, tools=[tool(login, idempotent=self.idempotent)])


async def test_a_secret_answer_reaches_the_waiting_call_and_the_journal_only_redacted(
    open_host: OpenHost, store: ThreadStore
) -> None:
    """P27"""
    host = await open_host()
    login = Login(CallQuestions(host))
    service = host.thread_service(lambda request: login.agent())
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "log in", request_key="s")
    waiting = await until(service, thread.thread_id, pending)
    assert waiting.status == "running"
    question = asked(waiting)
    assert (question.text, question.interaction_kind, question.call_id) == (
        "Password?",
        "question",
        "c1",
    )
    assert question.interaction_id is not None
    await service.respond(thread.thread_id, question.interaction_id, "hunter2", request_key="a")
    done = await until(service, thread.thread_id, lambda view: view.status == "done")
    (call,) = [item for item in done.items if item.kind == "tool_call"]
    assert call.result == "logged in with 7 characters"
    assert (asked(done).status, asked(done).result) == ("answered", "[redacted]")
    journal = await store.read(thread.thread_id)
    assert not any("hunter2" in record.data for record in journal)
    assert login.runs == 1


async def test_a_call_outside_a_thread_service_cannot_ask(open_host: OpenHost) -> None:
    """P27"""
    login = Login(CallQuestions(await open_host()))
    result = await login.agent().run("log in")
    ((_, text, is_error),) = tool_results(result.messages)
    assert is_error
    assert "does not run in a thread service's turn" in text


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_an_idempotent_call_left_waiting_by_a_stopped_host_is_never_run_again(
    open_host: OpenHost,
) -> None:
    """P28"""
    first = await open_host(lease_ttl=1.0)
    login = Login(CallQuestions(first), idempotent=True)
    service = first.thread_service(lambda request: login.agent())
    thread = await service.create(request_key="c")
    await service.send(thread.thread_id, "log in", request_key="s")
    await until(service, thread.thread_id, pending)
    await first.shutdown()  # the waiting call is cancelled: its question closes

    second = await open_host(lease_ttl=1.0)
    login.questions = CallQuestions(second)
    resumed = second.thread_service(lambda request: login.agent())
    view = await until(resumed, thread.thread_id, lambda view: view.status != "running")
    assert view.status == "effect_outcome_unknown"
    assert (asked(view).status, asked(view).result) == ("closed", CALL_STOPPED)
    assert login.runs == 1


async def test_asking_for_a_call_no_turn_runs_is_refused(open_host: OpenHost) -> None:
    """P27"""
    host = await open_host()
    service = host.thread_service(lambda request: Login(None).agent())
    thread = await service.create(request_key="c")
    stray: ToolContext[None] = ToolContext(
        call=tool_call("c9", "login"), agent="a", invocation_id=f"{thread.thread_id}/turn-9"
    )
    with pytest.raises(QuestionUnanswerableError, match="is not running in a turn"):
        await CallQuestions(host).ask(stray, "Password?")
