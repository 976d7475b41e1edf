"""Build the example front ends: for each folder (ai-sdk/, ag-ui/), `npm ci` from its
package-lock.json (only when the lock differs from what is installed; install scripts
off), then `npm run build` (type-check, then esbuild into dist/), skipped when dist/
was built from the same sources and lock.

    uv run python -m ui_frontends.build            # both
    uv run python -m ui_frontends.build ag-ui      # one

Only the npm registry is reached, and only by `npm ci`; nothing is fetched when the
pages run.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ui_frontends.app import EXAMPLE, FRONT_ENDS

__all__ = ["BuildResult", "NodeUnavailable", "build", "main", "sources_digest"]

_INSTALLED_STAMP = Path("node_modules") / ".installed-lock"
_BUILT_STAMP = Path("dist") / ".built-from"
_SOURCES = ("package.json", "package-lock.json", "tsconfig.json", "build.mjs", "index.html")


class NodeUnavailable(RuntimeError):
    """npm is not installed, so the front ends cannot be built; the message says how
    to get it."""


@dataclass(frozen=True)
class BuildResult:
    """What building one front end did, and how long each step took (seconds; None
    for a step that was not needed)."""

    name: str
    dist: Path
    install_seconds: float | None
    build_seconds: float | None


def _digest(paths: Sequence[Path], base: Path) -> str:
    hasher = hashlib.sha256()
    for path in sorted(paths):
        hasher.update(path.relative_to(base).as_posix().encode())
        hasher.update(path.read_bytes())
    return hasher.hexdigest()


def sources_digest(folder: Path) -> str:
    """A digest of everything a front end's dist/ is built from: its sources, its
    lock and the shared style sheet."""
    files = [folder / name for name in _SOURCES]
    files += [p for p in (folder / "src").rglob("*") if p.is_file()]
    files += [p for p in (folder.parent / "shared").rglob("*") if p.is_file()]
    return _digest([p for p in files if p.is_file()], folder.parent)


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        raise NodeUnavailable(
            "npm is not installed: install node 20 or later with npm "
            "(apt-get install nodejs npm) to build the example front ends"
        )
    return npm


def _timed(command: list[str], folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=folder, check=True)
    return time.perf_counter() - started


def build(name: str, *, example: Path = EXAMPLE) -> BuildResult:
    """Install (if its lock changed) and build (if its sources changed) the front end
    `name`; `NodeUnavailable` without npm, `subprocess.CalledProcessError` when npm
    fails (its output is on stderr)."""
    if name not in FRONT_ENDS:
        raise ValueError(f"no front end {name!r}: the front ends are {', '.join(FRONT_ENDS)}")
    folder = example / name
    npm = _npm()
    lock = hashlib.sha256((folder / "package-lock.json").read_bytes()).hexdigest()
    installed = folder / _INSTALLED_STAMP
    install_seconds = None
    if not installed.is_file() or installed.read_text().strip() != lock:
        install_seconds = _timed(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], folder
        )
        installed.write_text(lock + "\n")
    digest = sources_digest(folder)
    built = folder / _BUILT_STAMP
    build_seconds = None
    if not built.is_file() or built.read_text().strip() != digest:
        build_seconds = _timed([npm, "run", "--silent", "build"], folder)
        built.write_text(digest + "\n")
    return BuildResult(name, folder / "dist", install_seconds, build_seconds)


def _seconds(value: float | None) -> str:
    return "up to date" if value is None else f"{value:.1f} s"


def main(argv: Sequence[str] | None = None) -> int:
    """Build the front ends named in `argv` (default: both); prints what each step
    took. Exit status 1 without npm."""
    names = list(argv if argv is not None else sys.argv[1:]) or list(FRONT_ENDS)
    try:
        for name in names:
            result = build(name)
            print(
                f"{name}: npm ci {_seconds(result.install_seconds)}, "
                f"build {_seconds(result.build_seconds)} -> {result.dist}",
                flush=True,
            )
    except NodeUnavailable as missing:
        print(missing, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
