"""Links from a docs page to a file of the repository outside `docs/`.

On GitHub such a link (`../bench/README.md`) opens the file; the site holds only
`docs/` (a link that stays inside it, like `../loop.md` from `docs/guide/`, is left to
MkDocs), so the build checks that the target exists in the repository (a missing one is
a warning, which `--strict` turns into a failed build) and rewrites the link: to the
file under `repo_url` when the site configures one, else to the link text followed by
the file's repository path in code, so the reader knows where to look.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path, PurePosixPath

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

LOG = logging.getLogger("mkdocs.hooks.repository_links")
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]+)\]\((?P<target>\.\./[^)\s]+)\)")


def repository_path(page_src: str, target: str) -> str:
    """The target's path from the repository root (docs/ is one level below it)."""
    parts: list[str] = []
    for part in PurePosixPath("docs", page_src).parent.joinpath(target).parts:
        if part == "..":
            if not parts:
                raise ValueError(f"{target} leaves the repository")
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    root = Path(config.docs_dir).parent
    repo_url = (config.repo_url or "").rstrip("/")

    def rewrite(match: re.Match[str]) -> str:
        text, target = match["text"], match["target"]
        path, _, anchor = repository_path(page.file.src_uri, target).partition("#")
        if path.startswith("docs/"):
            return match[0]  # a page of the site (from docs/guide/): MkDocs checks it
        if not (root / path).exists():
            LOG.warning("%s links to %s, which is not in the repository", page.file.src_uri, path)
            return match[0]
        if repo_url:
            return f"[{text}]({repo_url}/blob/main/{path}{'#' + anchor if anchor else ''})"
        return f"{text} (`{path}`)"

    return LINK.sub(rewrite, markdown)
