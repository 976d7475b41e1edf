"""How long `import automata.core` takes in a fresh interpreter.

Run: uv run python bench/import_time.py [--runs N]

Prints the median wall time of `import automata.core` over N fresh processes, beside
the same measurement for defining one pydantic model (the floor any pydantic-based
library pays) as a baseline in the same run, and their ratio. Target: under 0.3 s.

Installed packages import from compiled bytecode, so the probes run with bytecode
writing allowed (whatever PYTHONDONTWRITEBYTECODE says) after one warm-up run each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PYDANTIC_FLOOR = "from pydantic import BaseModel\nclass Probe(BaseModel):\n    x: int\nProbe(x=1)"
PROBE = "import time\nt = time.perf_counter()\n{code}\nprint(time.perf_counter() - t)"


def measure(code: str, runs: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for _ in range(runs + 1):  # the first run compiles and caches bytecode
        out = subprocess.run(
            [sys.executable, "-c", PROBE.format(code=code)],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        times.append(float(out.stdout.strip()))
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    baseline = measure(PYDANTIC_FLOOR, args.runs)
    core = measure("import automata.core", args.runs)
    print(f"one pydantic model    median {baseline * 1000:7.1f} ms  (baseline)")
    print(f"import automata.core  median {core * 1000:7.1f} ms  ({core / baseline:.2f}x baseline)")
    print(f"target < 300 ms: {'met' if core < 0.3 else 'NOT met'}")


if __name__ == "__main__":
    main()
