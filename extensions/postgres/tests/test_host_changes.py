"""Subscriptions across hosts: a view update committed through host A reaches a
subscriber on host B through the store's change feed (LISTEN/NOTIFY), long before B
would poll."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

from automata.core import Agent
from automata.core.testing import ScriptedProvider
from automata.postgres import PostgresStore
from automata.threads import AgentRequest, Host

NEVER = 3600.0  # a poll interval no test waits for


def factory(request: AgentRequest) -> Agent[None]:
    return Agent(ScriptedProvider(["hello from A"]), system_prompt="greeter")


async def test_a_view_update_committed_on_one_host_reaches_a_subscriber_on_another(
    pg_server: str, schema: str
) -> None:
    a = await Host.open(PostgresStore(pg_server, schema=schema), poll_interval=NEVER)
    b = await Host.open(PostgresStore(pg_server, schema=schema), poll_interval=NEVER)
    try:
        on_a, on_b = a.thread_service(factory), b.thread_service(factory)
        async with aclosing(on_b.subscribe_threads()) as pages:
            await anext(pages)
            # B's feed listens from its start: commit on A until B's list hears of it.
            nth = 0
            heard = asyncio.ensure_future(anext(pages))
            while not heard.done():
                nth += 1
                await on_a.create(request_key=f"warm-{nth}")
                await asyncio.wait({heard}, timeout=0.1)
        thread = await on_a.create(request_key="create")
        async with aclosing(on_b.subscribe(thread.thread_id)) as views:
            assert (await anext(views)).items == ()
            await on_a.send(thread.thread_id, "hi", request_key="send")
            async with asyncio.timeout(10):
                async for view in views:
                    texts = [item.text for item in view.items]
                    if view.status == "done" and "hello from A" in texts:
                        break
            assert texts == ["hi", "hello from A"]
    finally:
        await a.shutdown()
        await b.shutdown()
