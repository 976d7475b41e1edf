"""A clean interpreter exit for processes that used the Temporal SDK.

temporalio's `Client` and `Worker` sit in reference cycles (measured with temporalio
1.35: both are still alive after `asyncio.run(main())` has returned, even once the
worker has shut down), and in some runs (7 of 40 measured) the SDK's runtime threads have
also dropped a reference to them without holding the GIL, a drop the SDK's native
extension (PyO3) defers until Python next calls into it. Left so, they are freed by the
interpreter's own finalization, where their Rust side takes the GIL of an interpreter
being torn down: the process dies at exit with `Fatal Python error: PyGILState_Release:
thread state ... must be current when releasing` (SIGABRT, exit code 134, sometimes
SIGSEGV) in about one run in five.

`collect_before_finalization()` registers `_free_sdk_objects` with `atexit`, whose
callbacks run before finalization starts: it calls into the extension once (a pure
call: a client profile read from empty TOML, nothing from files or the environment),
which applies the deferred drops, then runs a full garbage collection. A runtime thread
may still be finishing with one of them (1 exit in 50 under load): then it waits a
little and tries again, up to `_ATTEMPTS` times, so the SDK's objects are freed while
the interpreter is whole. Only a client or worker still reachable (a module global)
outlives it, at the cost of that bounded wait.
"""

from __future__ import annotations

import atexit
import gc
import time

from temporalio.client import Client
from temporalio.envconfig import ClientConfigProfile
from temporalio.worker import Replayer, Worker

__all__ = ["collect_before_finalization"]


_ATTEMPTS = 20
_PAUSE_SECONDS = 0.02
_SDK_TYPES = (Client, Worker, Replayer)


def _sdk_objects_alive() -> bool:
    return any(isinstance(value, _SDK_TYPES) for value in gc.get_objects())


def _free_sdk_objects() -> None:
    for attempt in range(_ATTEMPTS):
        if attempt:
            time.sleep(_PAUSE_SECONDS)
        ClientConfigProfile.load(config_source=b"", disable_env=True)
        gc.collect()
        if not _sdk_objects_alive():
            return


def collect_before_finalization() -> None:
    """Make the interpreter free the Temporal SDK's unreachable clients and workers at
    exit, before it starts finalizing. Idempotent: calling it again keeps a single
    registration."""
    atexit.unregister(_free_sdk_objects)
    atexit.register(_free_sdk_objects)
