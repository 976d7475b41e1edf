"""The site's API reference, generated at build time: one page per public module.

The public modules are the ones whose surface is pinned by a snapshot in `docs/api/`
(`scripts/api_surface.py` writes one `<module>.txt` per public module of every published
package), so a module that becomes public gets its reference page, and its place in the
nav, with its snapshot. Each page is a single mkdocstrings directive; nothing is written
to disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

SNAPSHOTS = "api"
REFERENCE = "reference"
SECTION = "API reference"


def public_modules(docs_dir: Path) -> list[str]:
    """The dotted names of the public modules, from their snapshots, sorted."""
    return sorted(path.stem for path in (docs_dir / SNAPSHOTS).glob("*.txt"))


def page_uri(module: str) -> str:
    return f"{REFERENCE}/{module}.md"


def page_text(module: str) -> str:
    """One directive; its root heading (level 1) is the page's title."""
    return f"::: {module}\n    options:\n      heading_level: 1\n"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Append the API reference section to the nav."""
    modules = public_modules(Path(config.docs_dir))
    if not modules:
        raise ValueError(f"no snapshots in {config.docs_dir}/{SNAPSHOTS}: no API reference")
    section: dict[str, Any] = {SECTION: [{module: page_uri(module)} for module in modules]}
    config.nav = [*(config.nav or []), section]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add one generated page per public module."""
    for module in public_modules(Path(config.docs_dir)):
        files.append(File.generated(config, page_uri(module), content=page_text(module)))
    return files
