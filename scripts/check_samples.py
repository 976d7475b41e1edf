"""Hold the pages' code samples to the standard of the code: ruff and `mypy --strict`.

    uv run python scripts/check_samples.py            # exit 1 naming each problem

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
from collections.abc import Sequence
from pathlib import Path

from automata_docs_testing import CodeSample, SampleKind, code_samples

ROOT = Path(__file__).resolve().parent.parent
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
    config = ["--config", str(ROOT / "pyproject.toml")]
    commands = {
        "ruff check": ["ruff", "check", *config, "--no-cache", str(folder)],
        "ruff format": ["ruff", "format", "--check", "--diff", *config, "--no-cache", str(folder)],
        "mypy --strict": [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            str(folder),
        ],
    }
    problems = []
    for tool, command in commands.items():
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            problems.append(f"{tool}:\n{_page_line(done.stdout + done.stderr, written)}")
    return problems


def main() -> int:
    samples = code_samples(ROOT)
    with tempfile.TemporaryDirectory(prefix="samples-") as folder:
        written = write_samples(samples, Path(folder))
        problems = check(Path(folder), written)
    for problem in problems:
        print(problem)
    print(f"{len(written)} samples checked: {'clean' if not problems else 'problems above'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
