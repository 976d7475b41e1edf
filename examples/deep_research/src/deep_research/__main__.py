"""Research a topic with a team of agents and print the report.

    uv run python -m deep_research "the impact of heat pumps on household energy bills"
    uv run python -m deep_research --provider demo "anything"   # no key, no network

Ctrl+C at any point after Python itself has started, while the modules load or while
the team works, ends the program quietly with exit status 130. While the modules load,
the signal raises `_Interrupted` rather than `KeyboardInterrupt`: under `python -m`,
CPython records a `KeyboardInterrupt` raised inside code that `exec` runs from a
string (dataclasses and namedtuple build their methods that way as modules load) as
unhandled even once it is caught, and then ends the process with SIGINT instead of
the exit status given. Once loaded, the usual handler is back, so `asyncio.run` turns
Ctrl+C into a cancelled run and then a `KeyboardInterrupt`.
"""

import signal
import sys
from types import FrameType


class _Interrupted(BaseException):
    """Ctrl+C while the command line loads."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise _Interrupted


def _main() -> int:
    try:
        signal.signal(signal.SIGINT, _interrupt)
        try:
            from deep_research.cli import main
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        return main()
    except (_Interrupted, KeyboardInterrupt):
        print("deep_research: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(_main())
