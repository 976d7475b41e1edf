"""The repository a test file lives in."""

from __future__ import annotations

from pathlib import Path

_ROOT_MARKER = "uv.lock"


def repository_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding the workspace's `uv.lock`."""
    for folder in (start, *start.parents):
        if (folder / _ROOT_MARKER).exists():
            return folder
    raise FileNotFoundError(f"no repository root (a folder with {_ROOT_MARKER}) above {start}")
