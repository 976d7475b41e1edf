"""Cases from YAML files, and the selection of a run's cases.

A YAML file holds one case (a mapping with `name` and `task`), a list of cases, or a
mapping with `cases:` (a list) and optional `defaults:` (fields every case of the file
starts from, e.g. `agent:` or `tier:`). A directory is read recursively: every
`*.yaml` / `*.yml` file in it, in sorted path order. Errors name the file and the case.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from automata.eval._case_file import CaseFileError, lone_surrogate, read_document
from automata.eval._model import Case, Difficulty

__all__ = ["CaseFileError", "SelectionError", "load_cases", "select"]

_ORDER = (Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD)


class SelectionError(ValueError):
    """A selection was given a value it cannot use (an unknown difficulty)."""


def _case_label(raw: object, index: int) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("name"), str) and raw["name"].strip():
        return repr(raw["name"])
    return f"#{index + 1}"


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(case)"
        if item["type"] == "extra_forbidden" and item["loc"]:
            parts.append(f"{where}: {_unknown_field(item['loc'])}")
        else:
            parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def _unknown_field(loc: tuple[int | str, ...]) -> str:
    """What to say of the unknown key at `loc`: the field meant when one is close
    (`expect.contain`: `did you mean 'contains'?`), else the fields taken there."""
    model = _model_at(loc[:-1])
    if model is None:
        return "unknown field"
    accepted = sorted(model.model_fields)
    # the same closeness as core's keyword suggestions (difflib's ratio of 0.6), without
    # reaching into core's private modules (the two are versioned apart)
    meant = difflib.get_close_matches(str(loc[-1]), accepted, n=1, cutoff=0.6)
    if meant:
        return f"unknown field; did you mean {meant[0]!r}?"
    return f"unknown field; {model.__name__} takes: {', '.join(accepted)}"


def _model_at(path: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model whose fields the mapping at `path` (from a `Case`) holds, following
    model fields, list items and mapping values; None when there is none."""
    current: Any = Case
    for part in path:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            current = field.annotation if field is not None else None
        else:
            args = [a for a in get_args(current) if a is not type(None) and a is not Ellipsis]
            current = args[-1] if args else None
        while get_origin(current) in (Union, UnionType):
            args = [a for a in get_args(current) if a is not type(None)]
            current = args[0] if len(args) == 1 else None
    if isinstance(current, type) and issubclass(current, BaseModel):
        return current
    return None


def _entries(document: Any, path: Path) -> tuple[list[Any], dict[str, Any]]:
    if document is None:
        return [], {}
    if isinstance(document, list):
        return document, {}
    if isinstance(document, dict) and "cases" in document:
        unknown = set(document) - {"cases", "defaults"}
        if unknown:
            raise CaseFileError(
                f"unknown top-level keys {sorted(unknown)}; a case file holds `cases:` "
                "and optional `defaults:`",
                path=path,
            )
        cases, defaults = document["cases"], document.get("defaults") or {}
        if not isinstance(cases, list):
            raise CaseFileError("`cases:` must be a list of cases", path=path)
        if not isinstance(defaults, dict):
            raise CaseFileError("`defaults:` must be a mapping of case fields", path=path)
        return cases, defaults
    if isinstance(document, dict):
        return [document], {}
    raise CaseFileError(
        f"expected a case, a list of cases or a mapping with `cases:`, got "
        f"{type(document).__name__}",
        path=path,
    )


def _load_file(path: Path) -> list[Case]:
    entries, defaults = _entries(read_document(path), path)
    cases = []
    for index, raw in enumerate(entries):
        label = _case_label(raw, index)
        if not isinstance(raw, dict):
            raise CaseFileError(
                f"expected a mapping of case fields, got {type(raw).__name__}",
                path=path,
                case=label,
            )
        fields = {**defaults, **raw}
        unwritable = lone_surrogate(fields)
        if unwritable is not None:
            raise CaseFileError(
                f"{unwritable} holds a lone surrogate (an escape like \\ud800), text "
                "that cannot be written as UTF-8 to the report",
                path=path,
                case=label,
            )
        try:
            cases.append(Case.model_validate(fields))
        except ValidationError as error:
            raise CaseFileError(_describe(error), path=path, case=label) from error
    return cases


def _files(root: Path) -> list[Path]:
    if root.is_dir():
        return sorted(p for p in root.rglob("*") if p.suffix in {".yaml", ".yml"} and p.is_file())
    if root.is_file():
        return [root]
    raise CaseFileError("no such file or directory", path=root)


def load_cases(*paths: str | Path) -> tuple[Case, ...]:
    """The cases of YAML files and directories, in file order then in-file order.

    Raises `CaseFileError` naming the file (and the case) for a missing path, a file
    that is not UTF-8, invalid YAML, aliases expanding beyond `MAX_ALIAS_EXPANSION`,
    text holding a lone surrogate, a case that does not validate, or a case name used
    twice (across all paths). All of it is checked before any case runs.
    """
    cases: list[Case] = []
    seen: dict[str, Path] = {}
    for given in paths:
        for path in _files(Path(given)):
            for case in _load_file(path):
                if case.name in seen:
                    raise CaseFileError(
                        f"the name is also used in {seen[case.name]}; case names are unique",
                        path=path,
                        case=repr(case.name),
                    )
                seen[case.name] = path
                cases.append(case)
    return tuple(cases)


def _difficulties(spec: str) -> frozenset[Difficulty]:
    level, plus = (spec[:-1], True) if spec.endswith("+") else (spec, False)
    try:
        found = Difficulty(level.strip().lower())
    except ValueError:
        raise SelectionError(
            f"unknown difficulty {spec!r}; use easy, medium or hard, with `+` for "
            "that level and above (e.g. medium+)"
        ) from None
    if not plus:
        return frozenset({found})
    return frozenset(_ORDER[_ORDER.index(found) :])


def select(
    cases: Iterable[Case],
    *,
    pattern: str | None = None,
    difficulty: str | None = None,
    tier: str | Sequence[str] | None = None,
    smoke: bool = False,
) -> tuple[Case, ...]:
    """The cases matching every given criterion, in their given order.

    `pattern` is a glob on the case name (`weather_*`); `a|b` matches either glob.
    `difficulty` is `easy`, `medium` or `hard`, or one of them with `+` for that level
    and above. `tier` is a tier or several (a comma-separated string or a sequence).
    `smoke=True` keeps smoke cases only. An unknown difficulty raises `SelectionError`.
    """
    globs = [g.strip() for g in pattern.split("|") if g.strip()] if pattern else []
    levels = _difficulties(difficulty) if difficulty else None
    tiers: frozenset[str] | None = None
    if tier is not None:
        names = tier.split(",") if isinstance(tier, str) else list(tier)
        tiers = frozenset(t.strip() for t in names if t.strip())
    return tuple(
        case
        for case in cases
        if (not globs or any(fnmatch.fnmatchcase(case.name, g) for g in globs))
        and (levels is None or case.difficulty in levels)
        and (tiers is None or case.tier in tiers)
        and (not smoke or case.smoke)
    )
