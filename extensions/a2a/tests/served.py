"""The servers the tests run as real processes: `python served.py <kind> <port> [db]`.

Kinds: `agents` (the automata agents `echo`, `approval`, `slow` and `failing`, each
an `a2a_app` mounted under `/<name>/`; one process keeps the suite fast),
`threads` (a durable thread service on the SQLite file `db`, its task store beside it)
and `plain` (an agent written on the bare a2a-sdk, no automata on its side)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from starlette.applications import Starlette
from starlette.routing import Mount

from automata.a2a import AgentTaskExecutor, a2a_app, agent_card
from automata.core import Agent, Message, TextBlock, tool
from automata.core.providers import ModelRequest
from automata.core.testing import FunctionProvider, Reply, tool_call, tool_calls


def _last_text(request: ModelRequest) -> str:
    return request.messages[-1].text if request.messages else ""


def _echo(request: ModelRequest) -> Reply:
    said = _last_text(request)
    return Message.assistant([TextBlock(text="You said: "), TextBlock(text=said)])


@tool
async def charge(amount: int) -> str:
    """Charge the card."""
    return f"charged {amount}"


@tool
async def wait_long() -> str:
    """Wait a long time."""
    await asyncio.sleep(60)
    return "waited"


def _calls_then_reports(name: str, **arguments: Any) -> FunctionProvider:
    def reply(request: ModelRequest) -> Reply:
        last = request.messages[-1]
        results = [b for b in last.content if b.type == "tool_result"]
        if results:
            return f"The tool said: {results[0].text}"
        return tool_calls(tool_call("call-1", name, **arguments), text="Working on it. ")

    return FunctionProvider(reply)


def _failing(request: ModelRequest) -> Reply:
    return RuntimeError("the model is down")


def automata_app(kind: str, url: str) -> Starlette:
    if kind == "echo":
        agent = Agent(FunctionProvider(_echo), name="echo", system_prompt="Echoes what you say.")
        return a2a_app(agent, card=agent_card(agent, url=url))
    if kind == "approval":
        agent = Agent(_calls_then_reports("charge", amount=5), name="biller", tools=[charge])
        executor = AgentTaskExecutor(agent, ask_approval=["charge"])
        return a2a_app(executor, card=agent_card(agent, url=url))
    if kind == "slow":
        agent = Agent(_calls_then_reports("wait_long"), name="slow", tools=[wait_long])
        return a2a_app(agent, card=agent_card(agent, url=url))
    if kind == "failing":
        agent = Agent(FunctionProvider(_failing), name="failing")
        return a2a_app(agent, card=agent_card(agent, url=url))
    raise SystemExit(f"unknown kind {kind!r}")


class PlainExecutor(AgentExecutor):
    """An A2A agent on the bare SDK: streams `Hello, ` and the input back as an
    artifact; `ask ...` asks for input and answers `got <answer>` on the next message;
    `fail` fails the task."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        text = context.get_user_input()
        if context.current_task is None and context.message is not None:
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        await updater.start_work()
        waiting = context.current_task is not None and context.current_task.status.state == (
            6  # TASK_STATE_INPUT_REQUIRED
        )
        if waiting:
            await updater.add_artifact([Part(text=f"got {text}")], artifact_id="a", name="answer")
            await updater.complete()
        elif text.startswith("ask"):
            question = updater.new_agent_message([Part(text="Which colour?")])
            await updater.requires_input(question)
        elif text == "fail":
            await updater.failed(updater.new_agent_message([Part(text="plain agent failed")]))
        else:
            await updater.add_artifact([Part(text="Hello, ")], artifact_id="a", name="answer")
            await updater.add_artifact([Part(text=text)], artifact_id="a", append=True)
            await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def plain_app(url: str) -> Starlette:
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore

    card = AgentCard(
        name="plain",
        description="A plain a2a-sdk agent.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="hello", name="hello", description="Says hello.", tags=["x"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=PlainExecutor(), task_store=InMemoryTaskStore(), agent_card=card
    )

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        await handler.aclose()

    return Starlette(
        routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, rpc_url="/")],
        lifespan=lifespan,
    )


AGENTS = ("echo", "approval", "slow", "failing")
"""The automata agents the `agents` server mounts, each under `/<name>/`."""


def agents_app(base: str) -> Starlette:
    mounts = [Mount(f"/{kind}", app=automata_app(kind, f"{base}{kind}/")) for kind in AGENTS]
    return Starlette(routes=mounts)


def main() -> None:
    kind, port = sys.argv[1], int(sys.argv[2])
    url = f"http://127.0.0.1:{port}/"
    if kind == "agents":
        app = agents_app(url)
    elif kind == "plain":
        app = plain_app(url)
    elif kind == "threads":
        from served_threads import threads_app  # type: ignore[import-not-found]

        app = threads_app(url, sys.argv[3])
    else:
        app = automata_app(kind, url)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
