"""Whether a distribution name is ours to tag: a pinned list, and the package index.

The rules (also in scripts/README.md, "Names on the package index"):

- `OUR_NAMES` pins every distribution name this repository publishes or plans.
- When the index answers, it decides. `404`: the name is free. `200`: the name is ours
  when it is in `PUBLISHED_NAMES` (names we have uploaded) or when the project's URLs on
  the index (`info.project_urls`, `info.home_page`) include a URL the member declares in
  its own `[project.urls]`; otherwise another project owns it and the release is refused.
- When the index cannot be asked (no connection, a timeout, any other status or a
  malformed answer), a warning says so and only names in `OUR_NAMES` go on.

Nothing here raises for a name: `check_names` reports, the caller refuses.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "DEFAULT_INDEX_URL",
    "INDEX_URL_ENV",
    "OUR_NAMES",
    "PUBLISHED_NAMES",
    "Answer",
    "NameReport",
    "Standing",
    "ask_index",
    "check_names",
    "judge",
]

DEFAULT_INDEX_URL = "https://pypi.org/pypi"
INDEX_URL_ENV = "AUTOMATA_RELEASE_INDEX_URL"
TIMEOUT_SECONDS = 10.0

OUR_NAMES = frozenset(
    {
        "automata-ai-core",
        "automata-ai-tools",
        "automata-ai-anthropic",
        "automata-ai-openai",
        "automata-ai-google",
        "automata-ai-tavily",
        "automata-ai-prices",
        "automata-ai-threads",
        "automata-ai-workflow",
        "automata-ai-postgres",
        "automata-ai-eval",
        "automata-ai-acp",
        "automata-ai-mcp",
        "automata-ai-temporal",
        "automata-ai-ui",
        "automata-ai-a2a",
        "automata-ai-web",
    }
)
"""Every distribution name this repository publishes or plans to."""

PUBLISHED_NAMES: frozenset[str] = frozenset()
"""Names we have uploaded to the index ourselves (none yet): a 200 for them is ours."""


class Standing(StrEnum):
    """What the index says about one name."""

    FREE = "free"
    OURS = "ours"
    FOREIGN = "owned by another project"
    UNKNOWN = "not checked"


@dataclass(frozen=True, slots=True)
class Answer:
    """The index's answer for one name: `status` 404 or 200 (with the project's `info`),
    or None when it could not be asked, with the `problem` that stopped it."""

    status: int | None
    info: Mapping[str, Any]
    problem: str = ""


@dataclass(frozen=True, slots=True)
class NameReport:
    """One line per name checked, a warning when the index could not be asked, and the
    reasons to refuse (empty when every name may be tagged)."""

    lines: tuple[str, ...]
    warning: str | None
    refusals: tuple[str, ...]


Asker = Callable[[str, str], Answer]


def ask_index(index_url: str, name: str) -> Answer:
    """GET `<index_url>/<name>/json` (the PyPI JSON API) and classify the answer."""
    url = f"{index_url.rstrip('/')}/{name}/json"
    request = urllib.request.Request(
        url, headers={"Accept": "application/json", "User-Agent": "automata-release"}
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            body = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return Answer(404, {})
        return Answer(None, {}, f"HTTP {exc.code} for {url}")
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        return Answer(None, {}, f"{url}: {reason}")
    except ValueError:
        return Answer(None, {}, f"{url}: the answer is not JSON")
    info = body.get("info") if isinstance(body, dict) else None
    if not isinstance(info, dict):
        return Answer(None, {}, f"{url}: the answer has no project info")
    return Answer(200, info)


def normalise_url(url: str) -> str:
    """A URL in comparable form: no case, no trailing slash or `.git`."""
    return url.strip().lower().rstrip("/").removesuffix(".git")


def index_urls(info: Mapping[str, Any]) -> set[str]:
    """The URLs a project on the index declares (home page and project URLs)."""
    found = [info.get("home_page")]
    urls = info.get("project_urls")
    if isinstance(urls, Mapping):
        found += list(urls.values())
    return {normalise_url(u) for u in found if isinstance(u, str) and u.strip()}


def judge(
    name: str,
    answer: Answer,
    our_urls: Iterable[str],
    published: frozenset[str] = PUBLISHED_NAMES,
) -> Standing:
    """The standing of `name` given the index's answer and the URLs its member declares."""
    if answer.status == 404:
        return Standing.FREE
    if answer.status != 200:
        return Standing.UNKNOWN
    if name in published:
        return Standing.OURS
    ours = {normalise_url(u) for u in our_urls if u.strip()}
    return Standing.OURS if ours & index_urls(answer.info) else Standing.FOREIGN


def check_names(
    members: Sequence[tuple[str, Sequence[str]]],
    index_url: str,
    ask: Asker = ask_index,
    pinned: frozenset[str] = OUR_NAMES,
    published: frozenset[str] = PUBLISHED_NAMES,
) -> NameReport:
    """Check each `(name, declared URLs)` on the index; see the module's rules."""
    lines: list[str] = []
    refusals: list[str] = []
    problems: list[str] = []
    for name, urls in members:
        answer = ask(index_url, name)
        standing = judge(name, answer, urls, published)
        lines.append(f"{name}: {standing.value}")
        if standing is Standing.FOREIGN:
            summary = str(answer.info.get("summary") or "no summary")
            refusals.append(
                f"{name} is owned on the package index by another project "
                f"({summary!r}); choose another distribution name"
            )
        elif standing is Standing.UNKNOWN:
            problems.append(answer.problem)
            if name not in pinned:
                refusals.append(
                    f"{name} could not be checked on the package index and is not one "
                    "of our pinned names (OUR_NAMES in scripts/_names.py)"
                )
    warning = None
    if problems:
        warning = (
            f"could not check names on the package index ({problems[0]}); "
            "going on with our pinned names only"
        )
    return NameReport(tuple(lines), warning, tuple(refusals))
