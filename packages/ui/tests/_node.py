"""The protocols' own client code, run in node: the AI SDK's chat client and AG-UI's
HttpAgent, installed from packages/ui/tests/node (`npm ci`, done by .ci/run)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

NODE_DIR = Path(__file__).parent / "node"


def node_clients() -> str:
    """The node binary, once the clients are installed. Outside CI a missing node or
    a missing `npm ci` skips the test with the reason; in CI (CI=true) it fails."""
    node = shutil.which("node")
    missing = None
    if node is None:
        missing = "node is not installed"
    elif not (NODE_DIR / "node_modules" / "ai").is_dir():
        missing = f"the node clients are not installed: run `npm ci` in {NODE_DIR}"
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing} (CI runs `npm ci` in .ci/run)")
        pytest.skip(missing)
    assert node is not None
    return node


async def run_client(script: str, *arguments: str) -> dict[str, Any]:
    """Run `script` (in tests/node) with `arguments`; its stdout, read as JSON."""
    node = node_clients()
    process = await asyncio.create_subprocess_exec(
        node,
        str(NODE_DIR / script),
        *arguments,
        cwd=NODE_DIR,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(30):
        out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    result: dict[str, Any] = json.loads(out)
    return result
