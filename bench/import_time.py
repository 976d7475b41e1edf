"""How long `import automata.core` takes in a fresh interpreter.

Run: uv run python bench/import_time.py [--runs N]

Prints the median wall time of `import automata.core` over N fresh processes, beside
the same measurement for `import pydantic` (the heaviest dependency) as a baseline in
the same run, and their ratio. Target: under 0.3 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

PROBE = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def measure(module: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", PROBE.format(module=module)],
            check=True,
            capture_output=True,
            text=True,
        )
        times.append(float(out.stdout.strip()))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    baseline = measure("pydantic", args.runs)
    core = measure("automata.core", args.runs)
    print(f"import pydantic       median {baseline * 1000:7.1f} ms  (baseline)")
    print(f"import automata.core  median {core * 1000:7.1f} ms  ({core / baseline:.2f}x baseline)")
    print(f"target < 300 ms: {'met' if core < 0.3 else 'NOT met'}")


if __name__ == "__main__":
    main()
