"""Hold the pages' code samples to the standard of the code: ruff and `mypy --strict`.

    uv run python scripts/check_samples.py                 # exit 1 naming each problem
    uv run python scripts/check_samples.py docs/guide/*.md # only these pages (from the root)

Every sample that runs (a complete program, or one a named test executes; fragments are
pieces and are not checked) is written to a folder of its own as a module named after its
page and line, then `ruff check`, `ruff format --check` and `mypy --strict` run over that
folder with the repository's configuration. A problem is reported at the page's line, so
the reader's copy is what gets fixed.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from automata_docs_testing import SAMPLE_PAGES, CodeSample, SampleKind, code_samples

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"  # ruff's and mypy's, whichever pages are checked
_CHECKED = (SampleKind.PROGRAM, SampleKind.EXECUTED_BY_TEST)


def module_name(sample: CodeSample) -> str:
    """`docs/guide/testing.md:12` -> `docs_guide_testing_md_12`."""
    return re.sub(r"\W", "_", f"{sample.page}_{sample.line}")


def write_samples(samples: Sequence[CodeSample], folder: Path) -> dict[str, CodeSample]:
    """Each checked sample as `<module_name>.py` in `folder`; the name -> its sample."""
    written: dict[str, CodeSample] = {}
    for sample in samples:
        if sample.kind in _CHECKED:
            name = module_name(sample)
            (folder / f"{name}.py").write_text(sample.example.source, encoding="utf-8")
            written[name] = sample
    return written


def _page_line(output: str, written: dict[str, CodeSample]) -> str:
    """Tool output with each `<module>.py:<n>` replaced by the page and its line."""

    def where(match: re.Match[str]) -> str:
        sample = written.get(match["module"])
        if sample is None:
            return match[0]
        # the first line of the source is the line after the opening fence
        return f"{sample.page}:{sample.line + int(match['line'])}"

    return re.sub(r"(?:\S*/)?(?P<module>\w+)\.py:(?P<line>\d+)", where, output)


def check(folder: Path, written: dict[str, CodeSample]) -> list[str]:
    """The problems ruff and mypy find, one report per tool that failed."""
    config = ["--config", str(CONFIG)]
    commands = {
        "ruff check": ["ruff", "check", *config, "--no-cache", str(folder)],
        "ruff format": ["ruff", "format", "--check", "--diff", *config, "--no-cache", str(folder)],
        "mypy --strict": [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(CONFIG),
            "--cache-dir",
            str(CONFIG.parent / ".mypy_cache"),
            str(folder),
        ],
    }
    problems = []
    for tool, command in commands.items():
        done = subprocess.run(
            command, cwd=CONFIG.parent, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            problems.append(f"{tool}:\n{_page_line(done.stdout + done.stderr, written)}")
    return problems


def check_pages(root: Path, pages: Iterable[str] = SAMPLE_PAGES) -> tuple[int, list[str]]:
    """How many samples of `pages` (globs from `root`) were checked, and the problems
    found, each at its page's line. The tools' configuration is this repository's."""
    samples = code_samples(root, pages)
    with tempfile.TemporaryDirectory(prefix="samples-") as folder:
        written = write_samples(samples, Path(folder))
        return len(written), check(Path(folder), written)


def main(pages: Sequence[str] = ()) -> int:
    checked, problems = check_pages(ROOT, pages or SAMPLE_PAGES)
    for problem in problems:
        print(problem)
    print(f"{checked} samples checked: {'clean' if not problems else 'problems above'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
