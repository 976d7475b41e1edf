"""How long importing each published automata package takes in a fresh interpreter,
and how much of that is its own.

Run: uv run python bench/import_time.py [--runs N] [--package NAME ...]

First `import automata.core` beside defining one pydantic model (the floor any
pydantic-based library pays), as a baseline in the same run, and their ratio. Target:
under 0.3 s.

Then every other published distribution (threads, workflow, eval, tools, ui, web and
each extension): `from automata.<name> import *` (its whole public surface, names a
module `__getattr__` loads lazily included) beside a baseline that imports, in a fresh
interpreter of its own, exactly what that import loads from elsewhere: every
`automata.*` module outside the package (the core's, and those of the other automata
packages it builds on, measured on their own lines) and every third-party module (its
SDK and what the SDK loads). The difference, the package's excess, is its own modules
and the standard-library modules only it loads. Target: at most 0.15 s for threads,
workflow, eval and the extensions.

Every figure is the CPU time of the import (`time.process_time()` in the child), which
moves less than wall time when other work shares the machine. Installed packages
import from compiled bytecode, so the probes run with bytecode writing allowed
(whatever PYTHONDONTWRITEBYTECODE says) after one warm-up run each, and the two sides
of a line alternate run by run; the median of the runs and the range of the excess
(the smallest and the largest per-round difference) are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass

PYDANTIC_FLOOR = "from pydantic import BaseModel\nclass Probe(BaseModel):\n    x: int\nProbe(x=1)"
PROBE = "import time\nt = time.process_time()\n{code}\nprint(time.process_time() - t)"
SURFACE = "from {module} import *"
"""A package's whole public surface: every name of its `__all__`, so a package that
loads its names lazily (a module `__getattr__`) pays for them here too."""
LOADED = (
    "import sys\nbefore = set(sys.modules)\n" + SURFACE + "\n"
    "print(json.dumps([m for m in sys.modules if m not in before]))"
)
PACKAGES = (
    "threads",
    "workflow",
    "eval",
    "tools",
    "ui",
    "web",
    "a2a",
    "acp",
    "anthropic",
    "google",
    "mcp",
    "openai",
    "postgres",
    "prices",
    "tavily",
    "temporal",
)
"""The published packages besides the core, by their module under `automata`."""
BOUND = 0.15
"""Seconds a package's own import may add over what it loads from elsewhere."""


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def once(code: str) -> float:
    out = subprocess.run(
        [sys.executable, "-"],
        input=PROBE.format(code=code),
        check=True,
        capture_output=True,
        text=True,
        env=environment(),
    )
    return float(out.stdout.strip())


@dataclass(frozen=True)
class Line:
    """One measured line: the medians of both sides and the excess per round."""

    measured: float
    baseline: float
    excess: tuple[float, ...]


def alternate(code: str, baseline: str, runs: int) -> Line:
    """Both sides `runs` times, alternating, after one warm-up run of each."""
    once(code), once(baseline)  # the first runs compile and cache bytecode
    measured: list[float] = []
    base: list[float] = []
    for round_ in range(runs):
        sides = [(code, measured), (baseline, base)]
        for source, times in sides if round_ % 2 == 0 else reversed(sides):
            times.append(once(source))
    excess = tuple(m - b for m, b in zip(measured, base, strict=True))
    return Line(statistics.median(measured), statistics.median(base), excess)


def loaded_elsewhere(package: str) -> list[str]:
    """The modules `import automata.<package>` loads that are not the package's own
    or the standard library's, in the order they were loaded."""
    module = f"automata.{package}"
    out = subprocess.run(
        [sys.executable, "-"],
        input="import json\n" + LOADED.format(module=module),
        check=True,
        capture_output=True,
        text=True,
        env=environment(),
    )
    names: list[str] = json.loads(out.stdout)
    own = (module, f"{module}.")
    stdlib = sys.stdlib_module_names
    return [
        name
        for name in names
        if not name.startswith(own) and name != "automata" and name.partition(".")[0] not in stdlib
    ]


def importing(modules: list[str]) -> str:
    """Source that imports `modules` in order, skipping any that cannot be imported
    on their own (a module a package loads under another name or conditionally)."""
    return (
        "import importlib\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        pass"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--package",
        action="append",
        choices=PACKAGES,
        help="measure only these packages beside the core (repeatable)",
    )
    args = parser.parse_args()
    core = alternate("import automata.core", PYDANTIC_FLOOR, args.runs)
    print(f"one pydantic model    median {core.baseline * 1000:7.1f} ms  (baseline; CPU time)")
    print(
        f"import automata.core  median {core.measured * 1000:7.1f} ms  "
        f"({core.measured / core.baseline:.2f}x baseline)"
    )
    print(f"target < 300 ms: {'met' if core.measured < 0.3 else 'NOT met'}")
    print()
    print(
        f"{'package':<20} {'import':>9} {'what it loads from elsewhere':>29} "
        f"{'excess (range)':>24}  within {BOUND:.2f} s"
    )
    for package in args.package or PACKAGES:
        elsewhere = loaded_elsewhere(package)
        surface = SURFACE.format(module=f"automata.{package}")
        line = alternate(surface, importing(elsewhere), args.runs)
        excess = statistics.median(line.excess)
        spread = f"({min(line.excess) * 1000:.0f} to {max(line.excess) * 1000:.0f})"
        print(
            f"automata.{package:<11} {line.measured * 1000:7.1f} ms "
            f"{line.baseline * 1000:18.1f} ms ({len(elsewhere):4} modules) "
            f"{excess * 1000:7.1f} ms {spread:>14}  {'yes' if excess <= BOUND else 'NO'}"
        )


if __name__ == "__main__":
    main()
