"""Copy the chat page's browser libraries from npm into the page's static folder.

The versions are pinned in `package.json` and locked (with their tarballs' integrity)
in `package-lock.json` beside this file. The script installs exactly those
(`npm ci --ignore-scripts`: no package runs code on install) and copies each
library's built file and its licence into `src/chat/static/vendor/`, where the page
loads them; nothing is fetched at run time.

    uv run python examples/chat/vendor/update.py

To move to a new version: change `package.json`, run `npm install --ignore-scripts
--package-lock-only` here, then this script, and commit the lock and the copied files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE.parent / "src" / "chat" / "static" / "vendor"

FILES: dict[str, str] = {
    "marked/lib/marked.umd.js": "marked.umd.js",
    "marked/LICENSE": "marked.LICENSE.md",
    "dompurify/dist/purify.min.js": "purify.min.js",
    "dompurify/LICENSE": "dompurify.LICENSE",
    "dompurify/LICENSE-MPL": "dompurify.LICENSE-MPL",
    "@highlightjs/cdn-assets/highlight.min.js": "highlight.min.js",
    "@highlightjs/cdn-assets/styles/github.min.css": "highlight-github.min.css",
    "@highlightjs/cdn-assets/LICENSE": "highlight.js.LICENSE",
}
"""Where each file comes from (under node_modules) and its name in the static folder."""


def main() -> int:
    npm = shutil.which("npm")
    if npm is None:
        print("npm is needed (apt-get install npm)", file=sys.stderr)
        return 1
    subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    TARGET.mkdir(parents=True, exist_ok=True)
    for source, name in FILES.items():
        shutil.copyfile(HERE / "node_modules" / source, TARGET / name)
        print(TARGET / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
