"""Post-run hooks: run after every committed transcript of a run (L40-L42, L94)."""

from __future__ import annotations

import asyncio
from typing import Any

from automata.core._errors import HookError
from automata.core._hooks import Hook
from automata.core._result import RunResult

__all__ = ["after_run"]


async def after_run(
    hooks: tuple[Hook, ...], result: RunResult[Any], error: BaseException | None
) -> None:
    """Run post-run hooks in order, shielded from the run's cancellation, and raise
    their errors together with the run's without losing the result."""
    if not hooks:
        return
    task = asyncio.ensure_future(_call_hooks(hooks, result, error))
    cancelled = False
    while True:
        try:
            failures = await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            if task.done():
                failures = task.result()
                break
            cancelled = True
    if cancelled and error is None:
        raise asyncio.CancelledError
    if not failures:
        return
    if error is None:
        raise HookError(
            f"{len(failures)} post-run hook(s) failed: "
            + "; ".join(f"{type(f).__name__}: {f}" for f in failures),
            result,
            failures,
        ) from failures[0]
    if isinstance(error, Exception):
        raise ExceptionGroup("run failed and post-run hooks failed", [error, *failures])
    for failure in failures:
        error.add_note(f"post-run hook failed: {type(failure).__name__}: {failure}")


async def _call_hooks(
    hooks: tuple[Hook, ...], result: RunResult[Any], error: BaseException | None
) -> list[Exception]:
    failures: list[Exception] = []
    for hook in hooks:
        try:
            await hook.after_run(result, error)
        except Exception as exc:
            failures.append(exc)
    return failures
