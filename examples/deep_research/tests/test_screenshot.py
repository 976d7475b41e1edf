"""The README's screenshot of the live view: the helper that draws it, and the
committed SVG, which shows what the helper draws today (up to the random run ids,
the timing and the token counts)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from deep_research.screenshot import TITLE, TOPIC, final_frame_svg

EXAMPLE = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"
REGENERATE = "uv run python -m deep_research.screenshot examples/deep_research/screenshot.svg"


def screen_lines(svg: str) -> list[str]:
    """The text of a rich SVG export, one string per terminal line."""
    lines: dict[str, str] = {}
    for text in ET.fromstring(svg).iter(f"{SVG}text"):
        y = text.get("y", "")
        lines[y] = lines.get(y, "") + (text.text or "").replace("\xa0", " ")
    return [line.rstrip("\n") for line in lines.values()]


def shape(lines: list[str]) -> list[str]:
    """`lines` without what changes from run to run: ids, numbers, spacing."""
    return [
        " ".join(re.sub(r"\d[\d,.]*", "N", re.sub(r"run_[0-9a-f]{16}", "run_ID", line)).split())
        for line in lines
    ]


async def test_the_helper_draws_the_demo_runs_final_frame() -> None:
    lines = screen_lines(await final_frame_svg(pace=0))
    assert lines[0] == TITLE
    assert lines[1].startswith(f"Deep research: {TOPIC}  ")
    assert lines[1].endswith("  finished")
    assert sum("✓ researcher" in line for line in lines) == 6  # three lanes, three calls
    assert all(f"call_research_{n}" in "\n".join(lines) for n in (1, 2, 3))
    assert re.fullmatch(r"6 lanes · [\d,]+ tokens in · [\d,]+ tokens out", lines[-1])


async def test_the_svg_fetches_no_fonts() -> None:
    svg = await final_frame_svg(pace=0)
    assert "@font-face" not in svg
    assert re.findall(r"https?://[^\s\"')]+", svg) == ["http://www.w3.org/2000/svg"]


async def test_the_committed_screenshot_is_what_the_helper_draws() -> None:
    committed = (EXAMPLE / "screenshot.svg").read_text(encoding="utf-8")
    fresh = await final_frame_svg(pace=0)
    assert shape(screen_lines(committed)) == shape(screen_lines(fresh)), (
        f"the screenshot is out of date; regenerate it with: {REGENERATE}"
    )


def test_the_readme_shows_the_screenshot_and_how_to_regenerate_it() -> None:
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^!\[[^\]]+\]\(screenshot\.svg\)$", readme, re.MULTILINE)
    assert REGENERATE in readme
