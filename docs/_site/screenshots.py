"""Screenshots of two pages of the documentation site, in headless Chromium.

    uv run python docs/_site/screenshots.py   # writes docs/images/site-*.png

The site is built as CI builds it, served from a temporary folder on 127.0.0.1, and
the Getting started guide and the `automata.core` API reference are shot at 1280 px.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from automata_browser_testing import PageWatch, headless_chromium, serve_directory

ROOT = Path(__file__).resolve().parents[2]
GUIDE_PAGE = "index.html"
REFERENCE_PAGE = "reference/automata.core/index.html"
SHOTS = {
    GUIDE_PAGE: ROOT / "docs" / "images" / "site-getting-started.png",
    REFERENCE_PAGE: ROOT / "docs" / "images" / "site-api-reference.png",
}


def build_site(site_dir: Path) -> Path:
    """Build the site into `site_dir` as CI does (`--strict`); raise if the build fails."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    command += ["--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site_dir)]
    subprocess.run(command, check=True, cwd=ROOT, env=environment)
    return site_dir


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        site = build_site(Path(folder))
        with headless_chromium(viewport=(1280, 900)) as browser, serve_directory(site) as url:
            for page_path, target in SHOTS.items():
                page = browser.new_page()
                watch = PageWatch.attach(page)
                page.goto(f"{url}/{page_path}")
                page.wait_for_load_state("networkidle")
                watch.assert_clean()
                page.screenshot(path=str(target))
                print(f"wrote {target.relative_to(ROOT)}")
                page.close()


if __name__ == "__main__":
    main()
