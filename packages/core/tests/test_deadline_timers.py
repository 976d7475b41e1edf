"""The limits of concurrent provider attempts are kept by one loop timer, not one each."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextvars import Context
from typing import Any, TypeVarTuple, Unpack

import pytest

from automata.core.providers._deadline import Deadlines, Expired, Watch

Ts = TypeVarTuple("Ts")


class _CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts the timers it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.timers = 0

    def call_at(
        self,
        when: float,
        callback: Callable[[Unpack[Ts]], object],
        *args: *Ts,
        context: Context | None = None,
    ) -> asyncio.TimerHandle:
        self.timers += 1
        return super().call_at(when, callback, *args, context=context)


def _run(main: Any) -> _CountingLoop:
    loop = _CountingLoop()
    try:
        loop.run_until_complete(main(loop))
    finally:
        loop.close()
    return loop


def test_a_hundred_waiting_reads_arm_one_loop_timer_between_them() -> None:
    async def main(loop: _CountingLoop) -> None:
        deadlines = Deadlines(loop)
        release = asyncio.Event()
        watches = [Watch(60.0, 30.0, deadlines) for _ in range(100)]
        reads = [asyncio.ensure_future(watch.read(release.wait)) for watch in watches]
        await asyncio.sleep(0)
        assert loop.timers == 1  # every read began; their limits share one timer
        release.set()
        await asyncio.gather(*reads)
        for watch in watches:
            watch.close()

    loop = _run(main)
    assert loop.timers == 1


def test_a_stalled_read_among_many_still_expires_with_its_reason() -> None:
    outcomes: list[str] = []

    async def main(loop: _CountingLoop) -> None:
        deadlines = Deadlines(loop)
        quick = [Watch(None, 5.0, deadlines) for _ in range(20)]
        stalled = Watch(None, 0.05, deadlines)

        async def never() -> None:
            await asyncio.Event().wait()

        reads = [asyncio.ensure_future(w.read(lambda: asyncio.sleep(0.01))) for w in quick]
        with pytest.raises(Expired) as expired:
            await stalled.read(never)
        outcomes.append(str(expired.value))
        await asyncio.gather(*reads)
        for watch in [*quick, stalled]:
            watch.close()

    _run(main)
    assert outcomes == ["no event for 0.05 s"]
