"""The README's app runs as written, and each protocol's own client talks to it."""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

from automata_wire_testing import serving

from ._node import run_client

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_app(tmp_path: Path) -> Any:
    (code,) = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    script = tmp_path / "app.py"
    script.write_text(code, encoding="utf-8")
    return runpy.run_path(str(script))["app"]


async def test_the_readme_app_serves_the_ai_sdk_client_an_approval_it_continues(
    tmp_path: Path,
) -> None:
    """U1, U5: the one-line handler, approved through the AI SDK's own client."""
    async with serving(readme_app(tmp_path)) as client:
        read = await run_client("ai_sdk_chat.mjs", f"{client.base_url}/api/chat", "hi", "approve")
    assert read["errors"] == []
    _, answered = read["rounds"]
    call, text = answered[1]["parts"][1], answered[1]["parts"][-1]
    assert (call["state"], call["output"]) == ("output-available", "sent to bob")
    assert text == {"type": "text", "text": "Sent.", "state": "done"}


async def test_the_readme_app_serves_the_ag_ui_client_an_interrupt_it_resumes(
    tmp_path: Path,
) -> None:
    """U1, U10: the one-line handler, resumed through AG-UI's own client."""
    async with serving(readme_app(tmp_path)) as client:
        read = await run_client("ag_ui_run.mjs", f"{client.base_url}/agent", "hi", "", "approve")
    assert read["error"] is None
    first, second = read["runs"]
    assert first["events"][-1]["outcome"]["type"] == "interrupt"
    assert [m["role"] for m in second["messages"]][-2:] == ["tool", "assistant"]
    assert second["messages"][-1]["content"] == "Sent."
