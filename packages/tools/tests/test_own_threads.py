"""File work and DNS lookups in the tools do not wait for the event loop's default
executor: real threads are blocked there (and in hung sync tools) until each test
releases them, and the tools still finish."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from automata.core import tool
from automata.tools import http_fetch, read_file, system_resolver, write_file

from .conftest import Invoke, LocalServer, shown_lines


@pytest.fixture
async def full_default_executor() -> AsyncIterator[None]:
    """A default executor of four threads, every one blocked on an event."""
    loop = asyncio.get_running_loop()
    release = threading.Event()
    executor = ThreadPoolExecutor(max_workers=4)
    loop.set_default_executor(executor)
    blocked = [loop.run_in_executor(None, release.wait) for _ in range(4)]
    try:
        yield
    finally:
        release.set()
        await asyncio.gather(*blocked)
        executor.shutdown()


@pytest.mark.usefixtures("full_default_executor")
async def test_read_file_finishes_while_the_default_executor_is_full(
    tmp_path: Path, invoke: Invoke
) -> None:
    (tmp_path / "notes.txt").write_text("still readable")
    async with asyncio.timeout(5):
        result = await invoke(read_file(tmp_path), path="notes.txt")
    assert shown_lines(result) == "still readable"


@pytest.mark.usefixtures("full_default_executor")
async def test_write_file_finishes_while_the_default_executor_is_full(
    tmp_path: Path, invoke: Invoke
) -> None:
    async with asyncio.timeout(5):
        result = await invoke(write_file(tmp_path), path="out.txt", content="written")
    assert result.as_text() == "wrote 7 bytes to out.txt"
    assert (tmp_path / "out.txt").read_text() == "written"


@pytest.mark.usefixtures("full_default_executor")
async def test_the_system_resolver_answers_while_the_default_executor_is_full() -> None:
    async with asyncio.timeout(5):
        answers = await system_resolver("localhost", 80)
    assert answers
    assert set(answers) <= {"127.0.0.1", "::1"}


@pytest.mark.usefixtures("full_default_executor")
async def test_http_fetch_resolves_and_converts_while_the_default_executor_is_full(
    server: LocalServer, invoke: Invoke
) -> None:
    server.respond("/page", "<h1>Up</h1>", content_type="text/html")
    async with asyncio.timeout(5):
        result = await invoke(http_fetch(allow_private=True), url=server.url("/page", "localhost"))
    assert "# Up" in result.as_text()


async def test_read_file_finishes_while_forty_sync_tools_hang(
    tmp_path: Path, invoke: Invoke
) -> None:
    release = threading.Event()

    def hang() -> str:
        release.wait()
        return "released"

    hung = tool(hang)
    (tmp_path / "notes.txt").write_text("still readable")
    calls = [asyncio.create_task(invoke(hung)) for _ in range(40)]
    try:
        await asyncio.sleep(0.1)
        async with asyncio.timeout(5):
            result = await invoke(read_file(tmp_path), path="notes.txt")
        assert shown_lines(result) == "still readable"
    finally:
        release.set()
        await asyncio.gather(*calls)
