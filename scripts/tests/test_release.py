"""scripts/release.py against a throwaway git repository holding a miniature workspace.

The workspace has two published packages (automata-ai-core, automata-ai-tools; tools needs
core with a range) and one example that is never published. Every run passes
--skip-tests; building uses the real `uv build` (about a second and a half a wheel).
Names are checked against a real local HTTP server speaking the shape of the PyPI JSON
API (or a closed port); nothing reaches the internet.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "release.py"
REPOSITORY = "https://git.example.invalid/automata/automata"

ROOT_PYPROJECT = """\
[project]
name = "mini-workspace"
version = "0"
requires-python = ">=3.11"
dependencies = []

[tool.uv]
package = false

[tool.uv.workspace]
members = ["packages/*", "examples/*"]

[tool.uv.sources]
automata-ai-core = { workspace = true }
automata-ai-tools = { workspace = true }
automata-example-demo = { workspace = true }
"""

BUILD = """
[build-system]
requires = ["hatchling>=1.25"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["src/{package}"]
"""

CORE_PYPROJECT = """\
[project]
name = "automata-ai-core"
version = "0.1.0"
description = "Core."   # a comment that must survive
requires-python = ">=3.11"
dependencies = []

[project.urls]
Repository = "https://git.example.invalid/automata/automata"
""" + BUILD.format(package="automata")

TOOLS_PYPROJECT = """\
[project]
name = "automata-ai-tools"
version = "0.1.0"
description = "Tools."
requires-python = ">=3.11"
dependencies = [
    "automata-ai-core>=0.1,<0.2",
]

[project.urls]
Repository = "https://git.example.invalid/automata/automata"

[tool.uv.sources]
automata-ai-core = { workspace = true }
""" + BUILD.format(package="automata")

EXAMPLE_PYPROJECT = """\
[project]
name = "automata-example-demo"
version = "0.1.0"
requires-python = ">=3.11"
classifiers = ["Private :: Do Not Upload"]
dependencies = ["automata-ai-core"]

[tool.uv.sources]
automata-ai-core = { workspace = true }
""" + BUILD.format(package="demo")

FILES = {
    "pyproject.toml": ROOT_PYPROJECT,
    ".gitignore": "dist/\n.venv/\n",
    "packages/core/pyproject.toml": CORE_PYPROJECT,
    "packages/core/LICENSE": "MIT License\n",
    "packages/core/src/automata/core/__init__.py": "VALUE = 1\n",
    "packages/core/src/automata/core/py.typed": "",
    "packages/tools/pyproject.toml": TOOLS_PYPROJECT,
    "packages/tools/LICENSE": "MIT License\n",
    "packages/tools/src/automata/tools/__init__.py": "VALUE = 2\n",
    "packages/tools/src/automata/tools/py.typed": "",
    "examples/demo/pyproject.toml": EXAMPLE_PYPROJECT,
    "examples/demo/src/demo/__init__.py": "",
}

Snapshot = tuple[str, str, str, dict[str, bytes]]


# ---------------------------------------------------------------- a package index


class Index:
    """A local HTTP server answering `GET /pypi/<name>/json` like the PyPI JSON API:
    404 for a name it does not hold, 200 with `{"info": ...}` for one it does, or
    `status` for every name when set."""

    def __init__(self) -> None:
        self.projects: dict[str, dict[str, Any]] = {}
        self.status: int | None = None
        self.asked: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = self.path.strip("/").split("/")
                name = parts[1] if len(parts) == 3 and parts[0] == "pypi" else ""
                index.asked.append(name)
                status = index.status or (200 if name in index.projects else 404)
                body = json.dumps({"info": index.projects.get(name, {})}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/pypi"


def closed_port_url() -> str:
    """An index URL nobody listens on (the port was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/pypi"


# ---------------------------------------------------------------- helpers


def sh(cwd: Path, env: dict[str, str], *cmd: str) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def release(
    repo: Path, env: dict[str, str], *args: str, skip_tests: bool = True
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, str(SCRIPT), *args, *(["--skip-tests"] if skip_tests else [])]
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=120)


def snapshot(repo: Path, env: dict[str, str]) -> Snapshot:
    """HEAD, status, tags and every file's bytes (outside .git and dist/)."""
    files = {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and not {".git", "dist"} & set(path.relative_to(repo).parts)
    }
    return (
        sh(repo, env, "git", "rev-parse", "HEAD"),
        sh(repo, env, "git", "status", "--porcelain", "--untracked-files=all"),
        sh(repo, env, "git", "tag", "-l"),
        files,
    )


def read(repo: Path, rel: str) -> str:
    return (repo / rel).read_text()


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def script() -> Iterator[ModuleType]:
    """release.py imported in-process (its helper modules sit beside it)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("automata_release_script", SCRIPT)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(SCRIPT.parent))


@pytest.fixture
def index() -> Iterator[Index]:
    served = Index()
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()
        thread.join()


@pytest.fixture
def env(tmp_path: Path, index: Index) -> dict[str, str]:
    """A hermetic git identity/config, no outer virtualenv leaking into uv, and the
    local package index (which knows no names until a test adds them)."""
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Release Test\n\temail = release@example.invalid\n")
    out = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    out |= {"GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}
    out["AUTOMATA_RELEASE_INDEX_URL"] = index.url
    return out


@pytest.fixture
def repo(tmp_path: Path, env: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    sh(root, env, "uv", "lock", "--quiet")
    sh(root, env, "git", "init", "-q", "-b", "main")
    sh(root, env, "git", "add", ".")
    sh(root, env, "git", "commit", "-q", "-m", "mini workspace")
    return root


# ---------------------------------------------------------------- pure helpers


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("0.1.0", ">=0.1,<0.2"),
        ("0.2.3", ">=0.2,<0.3"),
        ("1.0.0", ">=1.0,<2"),
        ("2.4.1", ">=2.4,<3"),
    ],
)
def test_compatible_range_follows_the_repo_style(
    script: ModuleType, version: str, expected: str
) -> None:
    assert script.compatible_range(script.Version(version)) == expected


@pytest.mark.parametrize(
    ("target", "expected"),
    [("patch", "0.4.3"), ("minor", "0.5.0"), ("major", "1.0.0"), ("0.9.1", "0.9.1")],
)
def test_next_version(script: ModuleType, target: str, expected: str) -> None:
    assert str(script.next_version(script.Version("0.4.2"), target)) == expected


def test_requirement_rewrite_keeps_extras_and_markers(script: ModuleType) -> None:
    old = "automata_ai_core[x] >=0.1,<0.2 ; python_version >= '3.11'"
    new = script.with_specifier(old, "automata-ai-core", ">=0.2,<0.3")
    assert new == "automata_ai_core[x] >=0.2,<0.3 ; python_version >= '3.11'"


# ---------------------------------------------------------------- a real release


def test_minor_release_bumps_versions_ranges_lock_and_tags_each_package(
    repo: Path, env: dict[str, str]
) -> None:
    before_head = sh(repo, env, "git", "rev-parse", "HEAD")
    done = release(repo, env, "minor")
    assert done.returncode == 0, done.stderr

    assert read(repo, "packages/core/pyproject.toml") == CORE_PYPROJECT.replace(
        'version = "0.1.0"', 'version = "0.2.0"'
    )
    assert read(repo, "packages/tools/pyproject.toml") == TOOLS_PYPROJECT.replace(
        'version = "0.1.0"', 'version = "0.2.0"'
    ).replace("automata-ai-core>=0.1,<0.2", "automata-ai-core>=0.2,<0.3")
    assert read(repo, "examples/demo/pyproject.toml") == EXAMPLE_PYPROJECT
    lock = read(repo, "uv.lock")
    assert 'name = "automata-ai-core"\nversion = "0.2.0"' in lock
    assert 'name = "automata-ai-tools"\nversion = "0.2.0"' in lock

    assert sh(repo, env, "git", "rev-parse", "HEAD~1") == before_head
    assert sh(repo, env, "git", "log", "-1", "--format=%s") == (
        "Release automata-ai-core 0.2.0, automata-ai-tools 0.2.0"
    )
    assert sh(repo, env, "git", "status", "--porcelain") == ""
    tags = sh(repo, env, "git", "tag", "-l").splitlines()
    assert tags == ["automata-ai-core-v0.2.0", "automata-ai-tools-v0.2.0"]
    for tag in tags:
        assert sh(repo, env, "git", "cat-file", "-t", tag) == "tag"  # annotated
        assert sh(repo, env, "git", "rev-parse", f"{tag}^{{commit}}") == sh(
            repo, env, "git", "rev-parse", "HEAD"
        )
    wheels = sorted(p.name for p in (repo / "dist").glob("*.whl"))
    assert wheels == [
        "automata_ai_core-0.2.0-py3-none-any.whl",
        "automata_ai_tools-0.2.0-py3-none-any.whl",
    ]
    sdists = sorted(p.name for p in (repo / "dist").glob("*.tar.gz"))
    assert sdists == ["automata_ai_core-0.2.0.tar.gz", "automata_ai_tools-0.2.0.tar.gz"]
    assert "Stopped after tagging for review" in done.stdout


def test_push_sends_the_commit_and_only_the_released_tags(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    bare = tmp_path / "remote.git"
    sh(tmp_path, env, "git", "init", "-q", "--bare", str(bare))
    sh(repo, env, "git", "remote", "add", "origin", str(bare))
    sh(repo, env, "git", "push", "-q", "origin", "main")

    done = release(repo, env, "patch", "--packages", "core", "--push")
    assert done.returncode == 0, done.stderr

    remote_tags = sh(bare, env, "git", "tag", "-l").splitlines()
    assert remote_tags == ["automata-ai-core-v0.1.1"]
    assert sh(bare, env, "git", "rev-parse", "main") == sh(repo, env, "git", "rev-parse", "HEAD")
    # A patch of core stays inside tools' range, so tools is left alone.
    assert read(repo, "packages/tools/pyproject.toml") == TOOLS_PYPROJECT


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["0.1.0"], "version does not increase"),
        (["0.0.9", "--packages", "tools"], "version does not increase"),
        (["patch", "--packages", "core,nope"], "unknown package(s): nope"),
        (["patch", "--packages", "example-demo"], "unknown package(s): example-demo"),
        (
            ["minor", "--packages", "core"],
            "automata-ai-tools requires 'automata-ai-core>=0.1,<0.2'",
        ),
        (["next"], "expected major, minor, patch or X.Y.Z"),
    ],
)
def test_bad_requests_are_refused_without_changes(
    repo: Path, env: dict[str, str], args: list[str], message: str
) -> None:
    before = snapshot(repo, env)
    done = release(repo, env, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert snapshot(repo, env) == before


@pytest.mark.parametrize("dirt", ["modified", "untracked"])
def test_dirty_tree_is_refused_without_changes(repo: Path, env: dict[str, str], dirt: str) -> None:
    target = repo / ("packages/core/src/automata/core/__init__.py" if dirt == "modified" else "x")
    target.write_text("VALUE = 3\n")
    before = snapshot(repo, env)
    done = release(repo, env, "minor")
    assert done.returncode == 2
    assert "work tree is not clean" in done.stderr
    assert snapshot(repo, env) == before


def test_existing_tag_is_refused_without_changes(repo: Path, env: dict[str, str]) -> None:
    sh(repo, env, "git", "tag", "-a", "automata-ai-tools-v0.2.0", "-m", "taken")
    before = snapshot(repo, env)
    done = release(repo, env, "minor")
    assert done.returncode == 2
    assert "tag(s) already exist: automata-ai-tools-v0.2.0" in done.stderr
    assert snapshot(repo, env) == before


def test_tag_existing_only_on_the_remote_is_refused_when_pushing(
    repo: Path, env: dict[str, str], tmp_path: Path
) -> None:
    bare = tmp_path / "remote.git"
    sh(tmp_path, env, "git", "init", "-q", "--bare", str(bare))
    sh(repo, env, "git", "remote", "add", "origin", str(bare))
    sh(repo, env, "git", "tag", "-a", "automata-ai-core-v0.1.1", "-m", "elsewhere")
    sh(repo, env, "git", "push", "-q", "origin", "main", "automata-ai-core-v0.1.1")
    sh(repo, env, "git", "tag", "-d", "automata-ai-core-v0.1.1")
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--packages", "core", "--push")
    assert done.returncode == 2
    assert "automata-ai-core-v0.1.1 (on origin)" in done.stderr
    assert snapshot(repo, env) == before


def test_push_without_the_remote_is_refused(repo: Path, env: dict[str, str]) -> None:
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--push")
    assert done.returncode == 2
    assert "no git remote named 'origin'" in done.stderr
    assert snapshot(repo, env) == before


# ---------------------------------------------------------------- dry run and failures


def test_dry_run_prints_the_plan_and_changes_nothing(repo: Path, env: dict[str, str]) -> None:
    before = snapshot(repo, env)
    done = release(repo, env, "1.0.0", "--dry-run", skip_tests=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "automata-ai-core-v1.0.0" in out
    assert "automata-ai-tools-v1.0.0" in out
    assert "automata-ai-core>=0.1,<0.2 -> automata-ai-core>=1.0,<2" in out
    assert "uv run pytest -q\n" in out  # tests run unless --skip-tests is given
    assert "Dry run: nothing changed." in out
    assert snapshot(repo, env) == before
    assert not (repo / "dist").exists()


def test_wheel_shipping_the_namespace_init_fails_and_rolls_back(
    repo: Path, env: dict[str, str]
) -> None:
    (repo / "packages/core/src/automata/__init__.py").write_text("")
    sh(repo, env, "git", "add", ".")
    sh(repo, env, "git", "commit", "-q", "-m", "break the namespace")
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--packages", "core")
    assert done.returncode == 1
    assert "automata/__init__.py" in done.stderr
    assert "rolled back" in done.stderr
    assert snapshot(repo, env) == before


def commit_change(repo: Path, env: dict[str, str], rel: str, text: str | None) -> None:
    """Write (or, for None, delete) one file and commit it."""
    path = repo / rel
    if text is None:
        path.unlink()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sh(repo, env, "git", "add", "-A")
    sh(repo, env, "git", "commit", "-q", "-m", f"change {rel}")


def test_wheel_without_py_typed_fails_and_rolls_back(repo: Path, env: dict[str, str]) -> None:
    commit_change(repo, env, "packages/core/src/automata/core/py.typed", None)
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--packages", "core")
    assert done.returncode == 1
    assert (
        "release: failed: automata_ai_core-0.1.1-py3-none-any.whl: "
        "no automata/core/py.typed (type checkers would ignore its hints)"
    ) in done.stderr
    assert "rolled back" in done.stderr
    assert snapshot(repo, env) == before


def test_wheel_without_a_license_file_fails_and_rolls_back(repo: Path, env: dict[str, str]) -> None:
    commit_change(repo, env, "packages/core/LICENSE", None)
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--packages", "core")
    assert done.returncode == 1
    assert (
        "release: failed: automata_ai_core-0.1.1-py3-none-any.whl: "
        "ships no license file (a LICENSE beside its pyproject.toml)"
    ) in done.stderr
    assert "rolled back" in done.stderr
    assert snapshot(repo, env) == before


def test_sdist_shipping_test_fixtures_fails_and_rolls_back(repo: Path, env: dict[str, str]) -> None:
    commit_change(repo, env, "packages/core/tests/fixtures/reply.json", "{}\n")
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--packages", "core")
    assert done.returncode == 1
    assert (
        "release: failed: automata_ai_core-0.1.1.tar.gz: "
        "ships test fixtures (automata_ai_core-0.1.1/tests/fixtures/reply.json)"
    ) in done.stderr
    assert "rolled back" in done.stderr
    assert snapshot(repo, env) == before


# ---------------------------------------------------------------- names on the index


def test_names_free_on_the_index_are_released(
    repo: Path, env: dict[str, str], index: Index
) -> None:
    done = release(repo, env, "minor", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert sorted(index.asked) == ["automata-ai-core", "automata-ai-tools"]
    assert f"Names on {index.url}:\n  automata-ai-core: free\n  automata-ai-tools: free\n" in (
        done.stdout
    )
    assert "warning" not in done.stderr


def test_a_name_owned_by_another_project_is_refused_without_changes(
    repo: Path, env: dict[str, str], index: Index
) -> None:
    index.projects["automata-ai-tools"] = {
        "summary": "Tools to build automata from your custom rule",
        "home_page": "https://example.org/someone-else",
        "project_urls": None,
    }
    before = snapshot(repo, env)
    done = release(repo, env, "minor")
    assert done.returncode == 2
    assert done.stderr == (
        "release: refused: automata-ai-tools is owned on the package index by another "
        "project ('Tools to build automata from your custom rule'); "
        "choose another distribution name\n"
    )
    assert snapshot(repo, env) == before


def test_a_project_on_the_index_pointing_at_our_repository_is_ours(
    repo: Path, env: dict[str, str], index: Index
) -> None:
    index.projects["automata-ai-core"] = {
        "summary": "Core.",
        "project_urls": {"Source": "HTTPS://git.example.invalid/automata/automata.git/"},
    }
    done = release(repo, env, "minor", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "  automata-ai-core: ours\n  automata-ai-tools: free\n" in done.stdout


def test_the_index_url_option_overrides_the_environment(
    repo: Path, env: dict[str, str], index: Index
) -> None:
    env = env | {"AUTOMATA_RELEASE_INDEX_URL": closed_port_url()}
    done = release(repo, env, "minor", "--dry-run", "--index-url", index.url)
    assert done.returncode == 0, done.stderr
    assert sorted(index.asked) == ["automata-ai-core", "automata-ai-tools"]


@pytest.mark.parametrize("answer", ["closed port", "HTTP 503"])
def test_an_index_that_cannot_be_asked_warns_and_goes_on_with_our_pinned_names(
    repo: Path, env: dict[str, str], index: Index, answer: str
) -> None:
    if answer == "closed port":
        env = env | {"AUTOMATA_RELEASE_INDEX_URL": closed_port_url()}
    else:
        index.status = 503
    done = release(repo, env, "minor", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("release: warning: could not check names on the package index (")
    assert done.stderr.endswith("); going on with our pinned names only\n")
    if answer == "HTTP 503":
        assert f"(HTTP 503 for {index.url}/automata-ai-core/json)" in done.stderr
    assert "  automata-ai-core: not checked\n  automata-ai-tools: not checked\n" in done.stdout


def test_a_name_not_pinned_is_refused_when_the_index_cannot_be_asked(
    repo: Path, env: dict[str, str]
) -> None:
    gizmo = CORE_PYPROJECT.replace('"automata-ai-core"', '"automata-ai-gizmo"')
    commit_change(repo, env, "packages/gizmo/pyproject.toml", gizmo)
    commit_change(repo, env, "packages/gizmo/src/automata/gizmo/__init__.py", "")
    env = env | {"AUTOMATA_RELEASE_INDEX_URL": closed_port_url()}
    before = snapshot(repo, env)
    done = release(repo, env, "patch", "--packages", "gizmo", "--dry-run")
    assert done.returncode == 2
    assert done.stderr.endswith(
        "release: refused: automata-ai-gizmo could not be checked on the package index and "
        "is not one of our pinned names (OUR_NAMES in scripts/_names.py)\n"
    )
    assert snapshot(repo, env) == before


def test_a_name_we_published_is_ours_whatever_urls_its_project_lists(
    script: ModuleType,
) -> None:
    names = sys.modules["_names"]
    answer = names.Answer(200, {"summary": "ours", "project_urls": {}})
    published = frozenset({"automata-ai-core"})
    assert names.judge("automata-ai-core", answer, (), published) is names.Standing.OURS
    assert names.judge("automata-ai-tools", answer, (), published) is names.Standing.FOREIGN


def test_every_planned_distribution_name_is_pinned(script: ModuleType) -> None:
    names = sys.modules["_names"]
    planned = "core tools anthropic openai google tavily threads workflow postgres eval acp mcp"
    planned += " temporal ui prices a2a web"
    assert {f"automata-ai-{n}" for n in planned.split()} == names.OUR_NAMES
