"""Run labels and the host map: what a host attaches to a run without it becoming
conversation state.

`RunLabels` are correlation labels (a tenant, a request id): short strings, set per
agent (`Agent(labels=...)`) or per run (`labels=` per-run keyword), immutable once the
run starts. A run's labels are its agent's plus the run's; a key given twice with
different values is refused (`InvalidArgumentError`), so a run can add labels but
never change one; a sub-agent run keeps its parent's and adds its own. They are shown:
on the run's span (`automata.label.<key>`), in `ToolContext.labels` and
`RunContext.labels`, and by a durable thread in its turn's view.

The host map (`host=` per-run keyword) is opaque: any values, handed unchanged to the
run's tools (`ToolContext.host`), its approver (through the same context) and its
pre-send hooks (`RunContext.host`), as a read-only mapping. Nothing copies or stores it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from automata.core._errors import ArgumentTypeError, InvalidArgumentError

__all__ = ["EMPTY_HOST", "MAX_LABELS", "NO_LABELS", "RunLabels", "host_map"]

MAX_LABELS = 32
MAX_LABEL_VALUE = 256
_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")

EMPTY_HOST: Mapping[str, Any] = MappingProxyType({})
"""The host map of a run given none."""


@dataclass(frozen=True, slots=True)
class RunLabels:
    """Correlation labels, as `(key, value)` pairs sorted by key (see the module)."""

    items: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, labels: Mapping[str, str] | RunLabels | None) -> RunLabels:
        """Checked labels: keys of 1-64 letters, digits, `_`, `.` or `-`, string values
        of at most 256 characters, at most 32 labels. Raises `ArgumentTypeError` or
        `InvalidArgumentError` naming the bad one."""
        if labels is None:
            return NO_LABELS
        if isinstance(labels, RunLabels):
            return labels
        if not isinstance(labels, Mapping):
            raise ArgumentTypeError(f"labels must be a mapping of str to str, got {labels!r}")
        for key, value in labels.items():
            if not isinstance(key, str) or not _KEY.fullmatch(key):
                raise InvalidArgumentError(
                    f"label key {key!r} must be 1-64 letters, digits, '_', '.' or '-'"
                )
            if not isinstance(value, str):
                raise ArgumentTypeError(f"label {key!r} must be a str, got {value!r}")
            if len(value) > MAX_LABEL_VALUE:
                raise InvalidArgumentError(
                    f"label {key!r} is over {MAX_LABEL_VALUE} characters long"
                )
        if len(labels) > MAX_LABELS:
            raise InvalidArgumentError(f"a run takes at most {MAX_LABELS} labels")
        return cls(tuple(sorted(labels.items())))

    def merged(self, more: RunLabels) -> RunLabels:
        """These labels and `more`; a key of both with different values raises
        `InvalidArgumentError` (labels are never changed, only added)."""
        if not more.items:
            return self
        if not self.items:
            return more
        mine = dict(self.items)
        for key, value in more.items:
            if key in mine and mine[key] != value:
                raise InvalidArgumentError(
                    f"label {key!r} is already {mine[key]!r}; labels cannot be changed"
                )
            mine[key] = value
        return RunLabels.of(mine)

    def as_dict(self) -> dict[str, str]:
        return dict(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)


NO_LABELS = RunLabels()
"""The labels of a run given none."""


def host_map(host: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """`host` as a read-only mapping (`EMPTY_HOST` for None). Raises
    `ArgumentTypeError` for a value that is not a mapping."""
    if host is None:
        return EMPTY_HOST
    if not isinstance(host, Mapping):
        raise ArgumentTypeError(f"host must be a mapping, got {type(host).__name__}")
    return host if isinstance(host, MappingProxyType) else MappingProxyType(dict(host))
