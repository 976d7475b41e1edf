"""Version arithmetic and the plain-text edits the release makes to pyproject.toml files.

Edits are text replacements, so comments and layout survive; each one refuses (raises
`Refusal`) rather than guess when the text is not written the way it expects.
"""

from __future__ import annotations

import re

from _errors import Refusal
from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

__all__ = [
    "BUMPS",
    "check_target",
    "compatible_range",
    "next_version",
    "parse_requirement",
    "rewrite_requirement",
    "rewrite_version",
    "tag_name",
    "with_specifier",
]

BUMPS = ("major", "minor", "patch")
EXPLICIT_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
PROJECT_HEADER = re.compile(r"^\[project\][ \t]*(?:#.*)?$", re.MULTILINE)
ANY_HEADER = re.compile(r"^\[", re.MULTILINE)
VERSION_LINE = re.compile(r"^(version[ \t]*=[ \t]*)([\"'])([^\"'\n]*)\2", re.MULTILINE)


def check_target(target: str) -> None:
    if target not in BUMPS and not EXPLICIT_VERSION.match(target):
        raise Refusal(f"version {target!r}: expected major, minor, patch or X.Y.Z")


def next_version(current: Version, target: str) -> Version:
    """The version `target` (a bump keyword or X.Y.Z) gives, starting from `current`."""
    if EXPLICIT_VERSION.match(target):
        return Version(target)
    major, minor, patch = (*current.release, 0, 0)[:3]
    if target == "major":
        return Version(f"{major + 1}.0.0")
    if target == "minor":
        return Version(f"{major}.{minor + 1}.0")
    if target == "patch":
        return Version(f"{major}.{minor}.{patch + 1}")
    raise Refusal(f"version {target!r}: expected major, minor, patch or X.Y.Z")


def compatible_range(version: Version) -> str:
    """The repo's range style: >=0.2,<0.3 before 1.0, then >=1.4,<2."""
    major, minor = (*version.release, 0)[:2]
    upper = f"0.{minor + 1}" if major == 0 else f"{major + 1}"
    return f">={major}.{minor},<{upper}"


def tag_name(dist: str, version: Version) -> str:
    return f"{dist}-v{version}"


def parse_requirement(text: str, where: str) -> Requirement:
    try:
        return Requirement(text)
    except InvalidRequirement as exc:
        raise Refusal(f"{where}: cannot parse requirement {text!r}: {exc}") from exc


def with_specifier(requirement: str, name: str, specifier: str) -> str:
    """`requirement` with its version specifier replaced, all else kept as written."""
    name_pattern = r"[-_.]+".join(re.escape(part) for part in re.split(r"[-_.]+", name))
    pattern = rf"^(\s*{name_pattern}\s*(?:\[[^\]]*\]\s*)?)([^;@]*?)(\s*(?:;.*)?)$"
    match = re.match(pattern, requirement, re.IGNORECASE | re.DOTALL)
    if match is None:
        raise Refusal(f"cannot rewrite requirement {requirement!r}")
    return f"{match.group(1)}{specifier}{match.group(3)}"


def project_table_span(text: str, where: str) -> tuple[int, int]:
    header = PROJECT_HEADER.search(text)
    if header is None:
        raise Refusal(f"{where}: no [project] table")
    following = ANY_HEADER.search(text, header.end())
    return header.end(), following.start() if following else len(text)


def rewrite_version(text: str, old: Version, new: Version, where: str) -> str:
    start, end = project_table_span(text, where)
    table = text[start:end]
    matches = list(VERSION_LINE.finditer(table))
    if len(matches) != 1 or matches[0].group(3) != str(old):
        raise Refusal(f'{where}: expected one `version = "{old}"` line in [project]')
    match = matches[0]
    edited = f"{table[: match.start(3)]}{new}{table[match.end(3) :]}"
    return text[:start] + edited + text[end:]


def rewrite_requirement(text: str, old: str, new: str, where: str) -> str:
    quoted = [f'"{old}"', f"'{old}'"]
    hits = [q for q in quoted if q in text]
    if not hits:
        raise Refusal(f"{where}: requirement {old!r} is not written as a plain string")
    for q in hits:
        text = text.replace(q, q[0] + new + q[0])
    return text
