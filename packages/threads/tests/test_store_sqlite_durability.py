"""A commit made `durable` is on the disk when it returns (its write-ahead log has no
page left in memory only), and the runner makes the commit that dispatches tool calls
durable before any tool runs; other commits stay at `synchronous = NORMAL`."""

from __future__ import annotations

import ctypes
import errno
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from automata.core import Agent, tool
from automata.core.testing import ScriptedProvider, tool_call, tool_calls
from automata.threads import Host, SQLiteStore, ThreadView
from automata.threads.store import NewRecord

# How many of a file's pages sit in the page cache unwritten (`cachestat`, Linux 6.5+):
# what a power loss would take. Zero right after a commit means the commit was synced.
_CACHESTAT = 451  # the syscall's number, the same on every Linux architecture


class _Range(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint64), ("length", ctypes.c_uint64)]


class _Stat(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in ("cache", "dirty", "writeback", "evicted", "recently_evicted")
    ]


def dirty_pages(path: Path) -> int:
    """Pages of `path` changed in memory and not yet written to the disk (0 for a
    file that does not exist). Skips the test on a kernel without `cachestat`."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        whole, found = _Range(0, 0), _Stat()
        if libc.syscall(_CACHESTAT, fd, ctypes.byref(whole), ctypes.byref(found), 0) != 0:
            code = ctypes.get_errno()
            if code == errno.ENOSYS:
                pytest.skip("the kernel has no cachestat (Linux 6.5+), so dirty pages are unseen")
            raise OSError(code, os.strerror(code))
        return int(found.dirty)
    finally:
        os.close(fd)


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


async def test_a_durable_append_leaves_nothing_for_a_power_loss_to_take(tmp_path: Path) -> None:
    path = tmp_path / "threads.db"
    store = SQLiteStore(path)
    await store.open()
    try:
        await store.create_thread("t", [NewRecord("note", "first")])
        await store.append("t", [NewRecord("note", "x" * 20_000)])
        assert dirty_pages(_wal(path)) > 0  # an ordinary commit: synced at checkpoints
        await store.append("t", [NewRecord("note", "y" * 20_000)], durable=True)
        assert dirty_pages(_wal(path)) == 0  # this commit, and every earlier one
        await store.append("t", [NewRecord("note", "z" * 20_000)])
        assert dirty_pages(_wal(path)) > 0  # back to NORMAL for the next commit
    finally:
        await store.close()


async def test_a_tool_runs_only_after_its_dispatched_record_is_on_disk(
    tmp_path: Path, settle: Callable[..., Awaitable[ThreadView]]
) -> None:
    path = tmp_path / "threads.db"
    seen: list[int] = []

    def charge(amount: int) -> str:
        """Not idempotent: it must never run twice."""
        seen.append(dirty_pages(_wal(path)))
        return f"charged {amount}"

    provider = ScriptedProvider([tool_calls(tool_call("c1", "charge", amount=5)), "charged"])
    agent = Agent(provider, system_prompt="pay", tools=[tool(charge)])
    host = await Host.open(SQLiteStore(path), poll_interval=0.05)
    try:
        service = host.thread_service(lambda request: agent)
        thread = await service.create(request_key="create", title="t" * 400)
        await service.send(thread.thread_id, "pay " + "x" * 5000, request_key="send")
        view = await settle(service, thread.thread_id)
    finally:
        await host.shutdown()
    assert view.status == "done"
    assert seen == [0]
