"""The skill guide at .agents/skills/automata-python/ is accurate: every ```python block
in it runs (each on its own, in a fresh folder and a thread without an event loop, as
in a script, with no key and no network), a block
followed by an ```output block prints exactly that, SKILL.md has the front matter
skills are found by, and every file of the guide is reachable from SKILL.md."""

from __future__ import annotations

import contextlib
import io
import re
import threading
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

GUIDE = Path(__file__).resolve().parents[3] / ".agents" / "skills" / "automata-python"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def _samples() -> list[tuple[str, str, str | None]]:
    """(where, code, the output it must print or None) for every python block."""
    found: list[tuple[str, str, str | None]] = []
    for page in sorted(GUIDE.rglob("*.md")):
        blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
        samples = 0
        for index, (language, code) in enumerate(blocks):
            if language != "python":
                continue
            samples += 1
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            output = following[1] if following and following[0] == "output" else None
            found.append((f"{page.relative_to(GUIDE)}#{samples}", code, output))
    return found


SAMPLES = _samples()


@pytest.mark.parametrize(("where", "code", "output"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_the_sample_runs(
    where: str, code: str, output: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    failures: list[BaseException] = []

    def run() -> None:  # on a thread of its own: no event loop runs there
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(code, where, "exec"), {"__name__": "__main__"})
        except BaseException as error:
            failures.append(error)

    runner = threading.Thread(target=run, name=f"sample {where}")
    runner.start()
    runner.join()
    if failures:
        raise failures[0]
    if output is not None:
        assert printed.getvalue() == output


def test_every_page_of_the_guide_has_samples() -> None:
    pages = {where.split("#")[0] for where, _, _ in SAMPLES}
    assert pages == {str(p.relative_to(GUIDE)) for p in GUIDE.rglob("*.md")}


def test_the_skill_has_front_matter_naming_it() -> None:
    text = (GUIDE / "SKILL.md").read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match is not None, "SKILL.md must start with YAML front matter"
    meta = yaml.safe_load(match.group(1))
    assert meta["name"] == GUIDE.name
    assert 50 < len(meta["description"]) <= 1024


def test_every_reference_is_linked_from_the_skill_and_every_link_resolves() -> None:
    linked: set[Path] = set()
    for page in GUIDE.rglob("*.md"):
        for link in re.findall(r"\]\(([^)#]+)\)", page.read_text(encoding="utf-8")):
            target = (page.parent / link).resolve()
            assert target.exists(), f"{page.relative_to(GUIDE)} links to {link}, which is missing"
            if page.name == "SKILL.md":
                linked.add(target)
    references = {p.resolve() for p in (GUIDE / "references").glob("*.md")}
    assert references
    assert references <= linked
