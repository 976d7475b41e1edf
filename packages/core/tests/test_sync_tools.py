"""Sync tools run on their agent's own bounded threads, never on the event loop's
default executor, and a hung one holds up neither other thread work nor `run_sync`.
Threads here are really blocked (on a `threading.Event`) and released when each test
ends, so nothing outlives it. Each test cites its rule in docs/loop.md."""

from __future__ import annotations

import asyncio
import contextvars
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from automata.core import Agent, Message, ToolPolicy
from automata.core._threads import ThreadSlots
from automata.core.testing import ScriptedProvider, tool_call, tool_calls, tool_results


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event hung tools wait on; set when the test ends so their threads finish."""
    event = threading.Event()
    yield event
    event.set()


def calling(name: str, times: int) -> Message:
    return tool_calls(*(tool_call(str(n), name) for n in range(1, times + 1)))


def hung_agent(release: threading.Event, times: int, policy: ToolPolicy) -> Agent:
    """An agent whose model calls the sync tool `stuck` `times` times; `stuck` blocks
    its thread until `release` is set."""
    agent = Agent(ScriptedProvider([calling("stuck", times), "done"]), tool_policy=policy)

    @agent.tool
    def stuck() -> str:
        release.wait()
        return "released"

    return agent


async def test_forty_hung_sync_tools_do_not_stall_other_thread_work(
    release: threading.Event,
) -> None:
    """L48: forty calls hang past their timeout; `asyncio.to_thread` work (file reads,
    DNS lookups) still runs at once, because sync tools never use the default
    executor."""
    agent = hung_agent(release, 40, ToolPolicy(timeout=0.5))
    result = await agent.run("go")
    assert {text for _, text, _ in tool_results(result.messages)} == {
        'tool "stuck" timed out after 0.5s'
    }
    assert await asyncio.wait_for(asyncio.to_thread(lambda: "free"), 5) == "free"


def test_run_sync_returns_at_the_policy_timeout_while_a_tool_is_still_hung() -> None:
    """L49: the tool stays stuck for 10 s; `run_sync` returns at the 0.5 s timeout and
    does not wait for the abandoned thread when its event loop shuts down."""
    release = threading.Event()
    unstick = threading.Timer(10, release.set)
    unstick.start()
    try:
        agent = hung_agent(release, 1, ToolPolicy(timeout=0.5))
        started = time.monotonic()
        result = agent.run_sync("go")
        elapsed = time.monotonic() - started
    finally:
        release.set()
        unstick.cancel()
    assert tool_results(result.messages) == [("1", 'tool "stuck" timed out after 0.5s', True)]
    assert elapsed < 4


async def test_a_sync_call_finding_every_thread_busy_waits_within_its_timeout(
    release: threading.Event,
) -> None:
    """L48: with two threads allowed, the third call never starts; its wait for a
    thread counts against its timeout."""
    entered: list[str] = []
    agent = Agent(
        ScriptedProvider([calling("stuck", 3), "done"]),
        tool_policy=ToolPolicy(timeout=0.5, max_sync_threads=2),
    )

    @agent.tool
    def stuck() -> str:
        entered.append(threading.current_thread().name)
        release.wait()
        return "released"

    result = await agent.run("go")
    assert [text for _, text, _ in tool_results(result.messages)] == [
        'tool "stuck" timed out after 0.5s'
    ] * 3
    assert len(entered) == 2


async def test_a_sync_call_waiting_for_a_thread_runs_once_one_is_free() -> None:
    """L48: one thread allowed, three calls: they run one after another and all
    succeed."""
    running = 0
    most = 0
    lock = threading.Lock()
    agent = Agent(
        ScriptedProvider([calling("work", 3), "done"]),
        tool_policy=ToolPolicy(max_sync_threads=1),
    )

    @agent.tool
    def work() -> str:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return "worked"

    result = await agent.run("go")
    assert tool_results(result.messages) == [
        ("1", "worked", False),
        ("2", "worked", False),
        ("3", "worked", False),
    ]
    assert most == 1


async def test_a_hung_threads_place_is_given_back_when_it_returns(
    release: threading.Event,
) -> None:
    """L48: the hung call holds its thread past its timeout; once it returns, the next
    run's call gets the thread."""
    agent = hung_agent(release, 1, ToolPolicy(timeout=0.2, max_sync_threads=1))
    session = agent.session()
    first = await session.run("go")
    assert tool_results(first.messages) == [("1", 'tool "stuck" timed out after 0.2s', True)]
    release.set()
    agent.provider = ScriptedProvider([calling("stuck", 1), "done again"])
    second = await agent.run("again", tool_policy=ToolPolicy(timeout=5, max_sync_threads=1))
    assert tool_results(second.messages) == [("1", "released", False)]


async def test_each_agent_has_its_own_sync_tool_threads(release: threading.Event) -> None:
    """L48: an agent whose only thread is hung does not hold up another agent's sync
    tools."""
    hung = hung_agent(release, 1, ToolPolicy(timeout=0.2, max_sync_threads=1))
    await hung.run("go")
    other = Agent(
        ScriptedProvider([calling("quick", 1), "done"]),
        tool_policy=ToolPolicy(timeout=5, max_sync_threads=1),
    )
    other.tool(lambda: "quick answer", name="quick")
    result = await other.run("go")
    assert tool_results(result.messages) == [("1", "quick answer", False)]


async def test_a_sync_tool_sees_the_context_variables_of_the_run() -> None:
    """L48: a sync tool's thread runs in a copy of the run's context, as
    `asyncio.to_thread` would."""
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")
    agent = Agent(ScriptedProvider([calling("whoami", 1), "done"]))

    @agent.tool
    def whoami() -> str:
        return request_id.get("unset")

    request_id.set("req-7")
    result = await agent.run("go")
    assert tool_results(result.messages) == [("1", "req-7", False)]


def test_max_sync_threads_below_one_is_refused() -> None:
    """L31."""
    with pytest.raises(ValueError, match=r"^max_sync_threads must be > 0, got 0$"):
        ToolPolicy(max_sync_threads=0)


HUNG_SCRIPT = """
import threading
from automata.core import Agent, ToolPolicy
from automata.core.testing import ScriptedProvider, tool_call, tool_calls

agent = Agent(
    ScriptedProvider([tool_calls(tool_call("1", "stuck")), "done"]),
    tool_policy=ToolPolicy(timeout=0.3),
)
never = threading.Event()
agent.tool(lambda: never.wait() and "released", name="stuck", description="Hangs.")
print(agent.run_sync("go").output, flush=True)
"""


def test_a_process_with_a_hung_sync_tool_still_exits() -> None:
    """L49: the tool never returns; the process prints the run's answer and exits."""
    finished = subprocess.run(
        [sys.executable, "-c", HUNG_SCRIPT], capture_output=True, text=True, timeout=30
    )
    assert (finished.returncode, finished.stdout, finished.stderr) == (0, "done\n", "")


async def test_a_waiter_cancelled_as_a_place_is_handed_to_it_gives_the_place_back() -> None:
    """L48: the place freed for a waiting call whose timeout fires at that moment is
    not lost: the next call can take it."""
    slots = ThreadSlots()
    await slots.acquire(1)
    waiting = asyncio.create_task(slots.acquire(1))
    await asyncio.sleep(0)  # the task now waits for a place
    slots.release()  # hands the place to the waiting task...
    waiting.cancel()  # ...which is cancelled before it could wake up
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await asyncio.sleep(0)
    assert slots.busy == 0
    await asyncio.wait_for(slots.acquire(1), 1)
    assert slots.busy == 1
