"""How often the Temporal README sample dies at interpreter exit, with and without the
collection `automata.temporal` registers at exit (docs/temporal.md, TP16).

Run: uv run python bench/temporal_exit.py [--runs 40] [--at-once 2]

The sample (the first python block of extensions/temporal/README.md) runs `--runs`
times as it is, and `--runs` times with the exit callback unregistered right after
`automata.temporal` is imported (the state before the fix), `--at-once` processes at a
time, against one throwaway dev server. Printed: the exit codes of each side (134 or
-6 is SIGABRT from `PyGILState_Release`, -11 SIGSEGV). Benchmarks measure; they never
assert.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from automata.temporal.testing import dev_server

README = Path(__file__).resolve().parents[1] / "extensions" / "temporal" / "README.md"
WITHOUT_THE_CALLBACK = (
    "import atexit\n"
    "import automata.temporal._exit as _exit\n"
    "atexit.unregister(_exit._free_sdk_objects)\n"
)


def exit_codes(code: str, address: str, runs: int, at_once: int) -> tuple[dict[int, int], float]:
    def once(_: int) -> int:
        env = {**os.environ, "TEMPORAL_ADDRESS": address}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, timeout=120, check=False
        )
        return done.returncode

    started = time.monotonic()
    with ThreadPoolExecutor(at_once) as pool:
        codes = collections.Counter(pool.map(once, range(runs)))
    return dict(sorted(codes.items())), (time.monotonic() - started) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--at-once", type=int, default=2)
    args = parser.parse_args()
    sample = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[0]
    with dev_server() as address:
        sides = {
            "without the exit callback": WITHOUT_THE_CALLBACK + sample,
            "as shipped": sample,
        }
        for name, code in sides.items():
            codes, seconds = exit_codes(code, address, args.runs, args.at_once)
            failed = sum(n for rc, n in codes.items() if rc != 0)
            print(
                f"{name:<26} exit codes {codes}: {failed}/{args.runs} failed "
                f"({seconds:.2f} s per run)"
            )


if __name__ == "__main__":
    main()
