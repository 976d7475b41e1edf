"""Activity: what a tool call shows a person while it runs, as frozen values.

An `Activity` is display data, never model input: a short `label`, bounded ordered
`rows` of sanitized text, markdown or code, a short `status`, the answer summary of a
question, and, for a call that manages sub-agents, the `operation` it performed. Every
string is sanitized when the value is built (terminal escape sequences and control
characters other than newline and tab are removed) and cut to its bound, so a value
that exists is one a UI may show as is. `Activity.from_data` reads back what
`Activity.to_data` wrote and raises `ValueError` for anything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

__all__ = [
    "MAX_ACTIVITY_ROWS",
    "MAX_LABEL_CHARS",
    "MAX_ROW_CHARS",
    "MAX_STATUS_CHARS",
    "Activity",
    "ActivityRow",
    "AnswerSummary",
    "RowKind",
    "SubAgentAction",
    "SubAgentOperation",
    "sanitize",
]

RowKind = Literal["text", "markdown", "code"]
SubAgentAction = Literal["start", "wait", "stop"]

MAX_ACTIVITY_ROWS = 50
"""Rows an activity keeps: the latest ones (`Activity.dropped` counts the others)."""
MAX_ROW_CHARS = 4_000
MAX_LABEL_CHARS = 200
MAX_STATUS_CHARS = 64
MAX_TARGETS = 100

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def sanitize(text: str, limit: int, *, one_line: bool = False) -> str:
    """`text` without terminal escape sequences, control characters (but newline and
    tab) or bidirectional overrides, cut to `limit` characters (an ellipsis marks a
    cut); `one_line` also folds whitespace runs into one space."""
    if not isinstance(text, str):
        raise ValueError(f"activity text must be a string, not {type(text).__name__}")
    clean = _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))
    if one_line:
        clean = " ".join(clean.split())
    if len(clean) > limit:
        clean = clean[: limit - 1] + "…"
    return clean


@dataclass(frozen=True, slots=True)
class ActivityRow:
    """One display row: `text` is plain text, markdown or code (`language` names the
    code's language, else None)."""

    text: str
    kind: RowKind = "text"
    language: str | None = None

    @classmethod
    def of(cls, text: str, kind: str = "text", language: str | None = None) -> ActivityRow:
        """A sanitized, bounded row; `ValueError` for an unknown kind."""
        if kind not in get_args(RowKind):
            raise ValueError(f"activity row kind must be text, markdown or code, not {kind!r}")
        lang = None if language is None else sanitize(language, 32, one_line=True) or None
        return cls(sanitize(text, MAX_ROW_CHARS), kind, lang)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class AnswerSummary:
    """What a person answered a question: `text`, or, for a secret answer, nothing but
    `redacted` True (a redacted summary never carries text)."""

    text: str | None = None
    redacted: bool = False

    @classmethod
    def of(cls, text: str | None, *, redacted: bool) -> AnswerSummary:
        if redacted and text is not None:
            raise ValueError("a redacted answer summary carries no text")
        if not redacted and text is None:
            raise ValueError("an answer summary needs text unless it is redacted")
        return cls(None if text is None else sanitize(text, MAX_ROW_CHARS), redacted)


@dataclass(frozen=True, slots=True)
class SubAgentOperation:
    """A sub-agent management call's `action` and the child threads (or runs) it
    acted on, in the order it named them."""

    action: SubAgentAction
    targets: tuple[str, ...]

    @classmethod
    def of(cls, action: str, targets: tuple[str, ...] | list[str]) -> SubAgentOperation:
        if action not in get_args(SubAgentAction):
            raise ValueError(f"sub-agent action must be start, wait or stop, not {action!r}")
        if len(targets) > MAX_TARGETS:
            raise ValueError(f"a sub-agent operation names at most {MAX_TARGETS} targets")
        return cls(action, tuple(sanitize(t, MAX_LABEL_CHARS, one_line=True) for t in targets))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Activity:
    """A tool call's display facts so far (cumulative: each change keeps the others).
    `dropped` counts rows that fell out of the `MAX_ACTIVITY_ROWS` window."""

    label: str = ""
    rows: tuple[ActivityRow, ...] = ()
    status: str | None = None
    answer: AnswerSummary | None = None
    operation: SubAgentOperation | None = None
    dropped: int = field(default=0)

    @property
    def empty(self) -> bool:
        return self == Activity()

    def with_label(self, label: str) -> Activity:
        return replace(self, label=sanitize(label, MAX_LABEL_CHARS, one_line=True))

    def with_status(self, status: str) -> Activity:
        return replace(self, status=sanitize(status, MAX_STATUS_CHARS, one_line=True) or None)

    def with_row(self, row: ActivityRow) -> Activity:
        rows = (*self.rows, row)
        extra = max(0, len(rows) - MAX_ACTIVITY_ROWS)
        return replace(self, rows=rows[extra:], dropped=self.dropped + extra)

    def to_data(self) -> dict[str, Any]:
        """JSON-ready data (what a journal stores)."""
        data: dict[str, Any] = {
            "label": self.label,
            "rows": [
                {"text": r.text, "kind": r.kind, **({"language": r.language} if r.language else {})}
                for r in self.rows
            ],
            "status": self.status,
            "dropped": self.dropped,
        }
        if self.answer is not None:
            data["answer"] = {"text": self.answer.text, "redacted": self.answer.redacted}
        if self.operation is not None:
            data["operation"] = {
                "action": self.operation.action,
                "targets": list(self.operation.targets),
            }
        return data

    @classmethod
    def from_data(cls, data: object) -> Activity:
        """The activity `to_data` wrote, sanitized and bounded again; `ValueError` for
        data of another shape."""
        if not isinstance(data, dict):
            raise ValueError("activity data must be an object")
        rows = data.get("rows") or []
        if not isinstance(rows, list):
            raise ValueError("activity rows must be a list")
        activity = cls().with_label(str(data.get("label") or ""))
        for row in rows:
            if not isinstance(row, dict):
                raise ValueError("an activity row must be an object")
            activity = activity.with_row(
                ActivityRow.of(row.get("text", ""), row.get("kind", "text"), row.get("language"))
            )
        status = data.get("status")
        if status is not None:
            activity = activity.with_status(str(status))
        answer = data.get("answer")
        if isinstance(answer, dict):
            activity = replace(
                activity,
                answer=AnswerSummary.of(answer.get("text"), redacted=bool(answer.get("redacted"))),
            )
        operation = data.get("operation")
        if isinstance(operation, dict):
            targets = operation.get("targets") or []
            if not isinstance(targets, list):
                raise ValueError("sub-agent targets must be a list")
            activity = replace(
                activity,
                operation=SubAgentOperation.of(str(operation.get("action")), targets),
            )
        return replace(activity, dropped=activity.dropped + int(data.get("dropped") or 0))
