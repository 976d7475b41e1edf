"""Version, check and tag automata's published distributions, each on its own.

Usage (from anywhere inside the repository):

    uv run python scripts/release.py {major|minor|patch|X.Y.Z}
        [--packages core,tools,...] [--push] [--remote origin]
        [--skip-tests] [--dry-run] [--index-url URL]

Every published workspace member (not under ``examples/`` and not marked
``Private :: Do Not Upload``) carries its own version and gets its own annotated tag,
``<dist>-v<version>``. A name owned on the package index by another project is never
tagged (``scripts/_names.py``), and every built wheel and sdist is checked before the
commit (``scripts/_artifacts.py``); version arithmetic and the pyproject.toml text edits
are in ``scripts/_edits.py``. See ``scripts/README.md`` for the step-by-step behaviour.

Exit codes: 0 done, 1 a step failed (file edits rolled back where possible),
2 refused before anything was changed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _artifacts import read_wheel, sdist_problems, wheel_problems
from _edits import (
    check_target,
    compatible_range,
    next_version,
    parse_requirement,
    rewrite_requirement,
    rewrite_version,
    tag_name,
    with_specifier,
)
from _errors import Refusal, StepFailed
from _names import DEFAULT_INDEX_URL, INDEX_URL_ENV, NameReport, check_names
from _workspace import Member, find_root, load_members, read_toml, select
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_REFUSED = 2


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class Options:
    target: str
    packages: tuple[str, ...] | None
    push: bool
    remote: str
    skip_tests: bool
    dry_run: bool
    index_url: str = DEFAULT_INDEX_URL


@dataclass(frozen=True)
class RangeChange:
    """One requirement string in one member's pyproject.toml to rewrite."""

    member: Member
    old: str
    new: str


@dataclass
class Plan:
    root: Path
    branch: str
    releases: list[tuple[Member, Version]]
    range_changes: list[RangeChange]
    new_texts: dict[Path, str] = field(default_factory=dict)
    names: NameReport | None = None

    @property
    def tags(self) -> list[str]:
        return [tag_name(member.name, version) for member, version in self.releases]

    @property
    def commit_message(self) -> str:
        names = ", ".join(f"{m.name} {v}" for m, v in self.releases)
        return f"Release {names}"


# ---------------------------------------------------------------- commands


def run(cmd: Sequence[str], cwd: Path) -> None:
    """Run a command with its output going to the terminal; raise StepFailed on error."""
    print(f"$ {' '.join(cmd)}", flush=True)
    result = subprocess.run(cmd, cwd=cwd, check=False)
    if result.returncode != 0:
        raise StepFailed(f"`{' '.join(cmd)}` exited with {result.returncode}")


def git(root: Path, *args: str) -> str:
    """Run git and return its stripped stdout; raise StepFailed on error."""
    result = subprocess.run(["git", *args], cwd=root, check=False, capture_output=True, text=True)
    if result.returncode != 0:
        raise StepFailed(f"`git {' '.join(args)}` failed: {result.stderr.strip()}")
    return result.stdout.strip()


def git_ok(root: Path, *args: str) -> bool:
    """Whether a git command succeeds (for yes/no questions)."""
    result = subprocess.run(["git", *args], cwd=root, check=False, capture_output=True)
    return result.returncode == 0


# ---------------------------------------------------------------- arguments


def parse_args(argv: Sequence[str]) -> Options:
    parser = argparse.ArgumentParser(
        prog="release.py",
        description="Bump, check, commit and tag automata's published packages.",
    )
    parser.add_argument("target", help="major, minor, patch, or an explicit X.Y.Z")
    parser.add_argument(
        "--packages",
        help="comma-separated short or distribution names (default: all published)",
    )
    parser.add_argument("--push", action="store_true", help="push the commit and tags")
    parser.add_argument("--remote", default="origin", help="remote for --push (origin)")
    parser.add_argument("--skip-tests", action="store_true", help="do not run pytest")
    parser.add_argument("--dry-run", action="store_true", help="print the plan only")
    parser.add_argument(
        "--index-url",
        default=os.environ.get(INDEX_URL_ENV) or DEFAULT_INDEX_URL,
        help=f"package index JSON API to check names on (${INDEX_URL_ENV}, {DEFAULT_INDEX_URL})",
    )
    ns = parser.parse_args(argv)
    check_target(str(ns.target))
    return Options(
        target=str(ns.target),
        packages=split_names(ns.packages) if ns.packages is not None else None,
        push=bool(ns.push),
        remote=str(ns.remote),
        skip_tests=bool(ns.skip_tests),
        dry_run=bool(ns.dry_run),
        index_url=str(ns.index_url),
    )


def split_names(raw: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in raw.split(","))
    if not names or any(not name for name in names):
        raise Refusal(f"--packages {raw!r}: expected a comma-separated list of names")
    return names


# ---------------------------------------------------------------- versions


def plan_versions(chosen: Sequence[Member], target: str) -> list[tuple[Member, Version]]:
    releases = [(member, next_version(member.version, target)) for member in chosen]
    stale = [f"{m.name} {m.version} -> {v}" for m, v in releases if v <= m.version]
    if stale:
        raise Refusal(f"version does not increase: {'; '.join(stale)}")
    return releases


# ---------------------------------------------------------------- ranges


def plan_ranges(
    members: Sequence[Member], releases: Sequence[tuple[Member, Version]]
) -> list[RangeChange]:
    """Ranged automata requirements that must move to the new versions' ranges.

    Members being released and unpublished members are rewritten; a published member
    left out of the release whose range would exclude a new version is refused.
    """
    new_versions = {member.name: version for member, version in releases}
    releasing = set(new_versions)
    changes: list[RangeChange] = []
    blockers: list[str] = []
    for member in members:
        for text in member.requirements:
            req = parse_requirement(text, f"{member.relpath}/pyproject.toml")
            dep = canonicalize_name(req.name)
            if dep not in new_versions or not str(req.specifier):
                continue
            new_spec = compatible_range(new_versions[dep])
            if SpecifierSet(new_spec) == req.specifier:
                continue
            if member.published and member.name not in releasing:
                if not req.specifier.contains(new_versions[dep], prereleases=True):
                    blockers.append(f"{member.name} requires {text!r} (add {member.short!r})")
                continue
            changes.append(RangeChange(member, text, with_specifier(text, req.name, new_spec)))
    if blockers:
        detail = "; ".join(blockers)
        raise Refusal(f"new versions fall outside ranges of packages not released: {detail}")
    return changes


# ---------------------------------------------------------------- text edits


def render_edits(plan: Plan) -> dict[Path, str]:
    """New text of every pyproject.toml the plan touches, verified by re-parsing."""
    texts: dict[Path, str] = {}
    for member, version in plan.releases:
        text = texts.get(member.pyproject) or member.pyproject.read_text()
        texts[member.pyproject] = rewrite_version(text, member.version, version, member.relpath)
    for change in plan.range_changes:
        path = change.member.pyproject
        text = texts.get(path) or path.read_text()
        texts[path] = rewrite_requirement(text, change.old, change.new, change.member.relpath)
    for path, text in texts.items():
        verify_edit(plan, path, text)
    return texts


def verify_edit(plan: Plan, path: Path, text: str) -> None:
    """Re-read an edited pyproject.toml and confirm it says what the plan says."""
    project = tomllib.loads(text)["project"]
    for member, version in plan.releases:
        if member.pyproject == path and Version(str(project["version"])) != version:
            raise Refusal(f"{path}: version edit did not take")
    listed = set(project.get("dependencies", []))
    listed |= {r for g in project.get("optional-dependencies", {}).values() for r in g}
    for change in plan.range_changes:
        if change.member.pyproject == path and change.new not in listed:
            raise Refusal(f"{path}: requirement edit {change.new!r} did not take")


# ---------------------------------------------------------------- preconditions


def check_clean(root: Path) -> None:
    status = git(root, "status", "--porcelain", "--untracked-files=normal")
    if status:
        lines = status.splitlines()
        shown = "\n  ".join(lines[:10]) + ("\n  ..." if len(lines) > 10 else "")
        raise Refusal(f"work tree is not clean; commit or stash first:\n  {shown}")


def current_branch(root: Path) -> str:
    result = subprocess.run(
        ["git", "symbolic-ref", "--quiet", "--short", "HEAD"],
        cwd=root,
        check=False,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise Refusal("HEAD is detached; check out a branch first")
    return result.stdout.strip()


def check_tags_free(root: Path, tags: Sequence[str], remote: str | None) -> None:
    taken = [t for t in tags if git_ok(root, "rev-parse", "-q", "--verify", f"refs/tags/{t}")]
    if remote is not None:
        listed = git(root, "ls-remote", "--tags", remote, *(f"refs/tags/{t}" for t in tags))
        remote_refs = {line.split("\t")[-1] for line in listed.splitlines()}
        taken += [f"{t} (on {remote})" for t in tags if f"refs/tags/{t}" in remote_refs]
    if taken:
        raise Refusal(f"tag(s) already exist: {', '.join(taken)}")


def check_remote(root: Path, remote: str) -> None:
    if not git_ok(root, "remote", "get-url", remote):
        raise Refusal(f"--push: no git remote named {remote!r}")


def check_tools() -> None:
    if shutil.which("uv") is None:
        raise Refusal("`uv` is not on PATH")


def check_index_names(plan: Plan, index_url: str) -> None:
    """Refuse a name another project owns on the index (or, when the index cannot be
    asked, a name that is not one of our pinned names); see scripts/_names.py."""
    report = check_names([(str(m.name), m.urls) for m, _ in plan.releases], index_url)
    plan.names = report
    if report.warning is not None:
        print(f"release: warning: {report.warning}", file=sys.stderr, flush=True)
    if report.refusals:
        raise Refusal("; ".join(report.refusals))


# ---------------------------------------------------------------- planning


def make_plan(root: Path, options: Options) -> Plan:
    members = load_members(root)
    releases = plan_versions(select(members, options.packages), options.target)
    plan = Plan(
        root=root,
        branch=current_branch(root),
        releases=releases,
        range_changes=plan_ranges(members, releases),
    )
    plan.new_texts = render_edits(plan)
    return plan


def describe(plan: Plan, options: Options) -> str:
    lines = ["Release plan:"]
    for member, version in plan.releases:
        tag = tag_name(member.name, version)
        lines.append(f"  {member.name:<24} {member.version} -> {version}   tag {tag}")
    if plan.range_changes:
        lines.append("Dependency ranges:")
        for change in plan.range_changes:
            where = f"{change.member.relpath}/pyproject.toml"
            lines.append(f"  {where}: {change.old} -> {change.new}")
    if plan.names is not None:
        lines.append(f"Names on {options.index_url}:")
        lines += [f"  {line}" for line in plan.names.lines]
    lines.append("Steps:")
    lines += [f"  {n}. {step}" for n, step in enumerate(steps(plan, options), 1)]
    return "\n".join(lines)


def steps(plan: Plan, options: Options) -> list[str]:
    out = [f"write {len(plan.new_texts)} pyproject.toml file(s)", "uv lock"]
    out.append("uv run pytest -q" + (" (skipped: --skip-tests)" if options.skip_tests else ""))
    out += [f"uv build --package {m.name} --out-dir dist/" for m, _ in plan.releases]
    out.append(
        "check each wheel's name, version, automata requirements, py.typed and license,"
        " no automata/__init__.py; each sdist ships no test fixtures"
    )
    out.append(f"git commit -m {plan.commit_message!r}")
    out += [f"git tag -a {tag}" for tag in plan.tags]
    if options.push:
        out.append(f"git push --atomic {options.remote} HEAD:refs/heads/{plan.branch} + tags")
    else:
        out.append("stop for review (no --push)")
    return out


# ---------------------------------------------------------------- build checks


def find_wheel(dist_dir: Path, member: Member, version: Version) -> Path:
    stem = f"{member.name.replace('-', '_')}-{version}-"
    wheels = sorted(p for p in dist_dir.glob("*.whl") if p.name.startswith(stem))
    if len(wheels) != 1:
        raise StepFailed(f"expected one wheel {stem}*.whl in {dist_dir}, found {len(wheels)}")
    return wheels[0]


def find_sdist(dist_dir: Path, member: Member, version: Version) -> Path:
    sdist = dist_dir / f"{member.name.replace('-', '_')}-{version}.tar.gz"
    if not sdist.is_file():
        raise StepFailed(f"expected the sdist {sdist.name} in {dist_dir}")
    return sdist


def declared_requirements(member: Member) -> list[str]:
    """The edited pyproject's requirements, optional ones included."""
    project = read_toml(member.pyproject)["project"]
    declared = list(project.get("dependencies", []))
    declared += [r for g in project.get("optional-dependencies", {}).values() for r in g]
    return declared


def check_wheel(wheel: Path, member: Member, version: Version) -> None:
    try:
        built = read_wheel(wheel)
    except ValueError as exc:
        raise StepFailed(str(exc)) from exc
    problems = wheel_problems(built, member.name, version, declared_requirements(member))
    if problems:
        raise StepFailed(f"{wheel.name}: " + "; ".join(problems))
    print(f"ok {wheel.name}", flush=True)


def check_sdist(sdist: Path) -> None:
    problems = sdist_problems(sdist)
    if problems:
        raise StepFailed(f"{sdist.name}: " + "; ".join(problems))
    print(f"ok {sdist.name}", flush=True)


# ---------------------------------------------------------------- actions


def write_texts(texts: Mapping[Path, str | None]) -> None:
    """Write each file's text; None means the file did not exist and is removed."""
    for path, text in texts.items():
        if text is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(text)


def snapshot(plan: Plan) -> dict[Path, str | None]:
    """Original contents of every file the release changes before committing."""
    paths = [*plan.new_texts, plan.root / "uv.lock"]
    return {path: path.read_text() if path.is_file() else None for path in paths}


def build_and_check(plan: Plan) -> None:
    dist_dir = plan.root / "dist"
    for member, version in plan.releases:
        run(["uv", "build", "--package", member.name, "--out-dir", str(dist_dir)], plan.root)
        check_wheel(find_wheel(dist_dir, member, version), member, version)
        check_sdist(find_sdist(dist_dir, member, version))


def prepare(plan: Plan, options: Options) -> None:
    """Edit, lock, test, build and check: everything before the commit."""
    write_texts(plan.new_texts)
    run(["uv", "lock"], plan.root)
    if options.skip_tests:
        print("tests skipped (--skip-tests)", flush=True)
    else:
        run(["uv", "run", "pytest", "-q"], plan.root)
    build_and_check(plan)


def commit(plan: Plan) -> None:
    paths = [path.relative_to(plan.root).as_posix() for path in plan.new_texts]
    git(plan.root, "add", "--", *paths, "uv.lock")
    git(plan.root, "commit", "-m", plan.commit_message)


def unstage(plan: Plan) -> None:
    """Undo `git add` of the release files (the index only; history is untouched)."""
    paths = [path.relative_to(plan.root).as_posix() for path in plan.new_texts]
    subprocess.run(["git", "reset", "-q", "--", *paths, "uv.lock"], cwd=plan.root, check=False)


def tag(plan: Plan) -> None:
    made: list[str] = []
    try:
        for (member, version), name in zip(plan.releases, plan.tags, strict=True):
            git(plan.root, "tag", "-a", name, "-m", f"{member.name} {version}")
            made.append(name)
            print(f"tagged {name}", flush=True)
    except StepFailed as exc:
        for name in made:
            git_ok(plan.root, "tag", "-d", name)
        raise StepFailed(f"{exc}; removed this run's tags, the release commit stays") from exc


def push(plan: Plan, remote: str) -> None:
    refs = [f"HEAD:refs/heads/{plan.branch}", *(f"refs/tags/{t}" for t in plan.tags)]
    try:
        run(["git", "push", "--atomic", remote, *refs], plan.root)
    except StepFailed as exc:
        raise StepFailed(
            f"{exc}; the commit and tags are local. {push_hint(plan, remote)}"
        ) from exc


def push_hint(plan: Plan, remote: str) -> str:
    refs = " ".join([f"HEAD:refs/heads/{plan.branch}", *plan.tags])
    return f"To publish: git push --atomic {remote} {refs}"


def prepare_and_commit(plan: Plan, options: Options) -> None:
    """Everything up to the commit; on any failure the files go back as they were."""
    originals = snapshot(plan)
    try:
        prepare(plan, options)
        commit(plan)
    except (StepFailed, KeyboardInterrupt):
        unstage(plan)
        write_texts(originals)
        print("release: rolled back the pyproject.toml and uv.lock edits", file=sys.stderr)
        raise


def release(plan: Plan, options: Options) -> None:
    prepare_and_commit(plan, options)
    tag(plan)
    if options.push:
        push(plan, options.remote)
        print(f"Pushed {plan.branch} and {len(plan.tags)} tag(s) to {options.remote}.")
    else:
        print(f"Stopped after tagging for review. {push_hint(plan, options.remote)}")


# ---------------------------------------------------------------- entry point


def preflight(options: Options) -> Plan:
    """Every check that can refuse, in order; nothing is changed here."""
    root = find_root()
    check_clean(root)
    plan = make_plan(root, options)
    if options.push:
        check_remote(root, options.remote)
    check_tags_free(root, plan.tags, options.remote if options.push else None)
    check_index_names(plan, options.index_url)
    check_tools()
    return plan


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = parse_args(sys.argv[1:] if argv is None else argv)
        plan = preflight(options)
    except (Refusal, StepFailed) as exc:
        print(f"release: refused: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    print(describe(plan, options), flush=True)
    if options.dry_run:
        print("Dry run: nothing changed.")
        return EXIT_OK
    try:
        release(plan, options)
    except StepFailed as exc:
        print(f"release: failed: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
