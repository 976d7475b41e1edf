"""Elicitations answered on the agent's question path: `ask_elicitations(...)`.

A server's elicitation arrives in the middle of one of the agent's tool calls. With
a `questions` asker (a thread host's `automata.threads.CallQuestions`) and a call of
a thread's turn in flight, it is asked as that call's question: journaled in the
thread, shown pending in its view, answered through the thread service's `respond`,
the answer handed to the waiting call here. Otherwise (a plain run) a confirmation
goes to the approver given, as `approve_elicitations` does, and a form that needs
answers is declined: no one is there to answer it.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from automata.core import Approver, ToolContext
from automata.mcp._elicitation import (
    Elicitation,
    ElicitationHandler,
    ElicitationReply,
    approve_elicitations,
)

__all__ = ["CallAnswerLike", "CallAsker", "ask_elicitations", "is_confirmation", "is_secret"]

Value = str | int | float | bool | list[str]


class CallAnswerLike(Protocol):
    """An answer a `CallAsker` returns: `approved` for an approval, `text` for a
    question."""

    @property
    def approved(self) -> bool | None: ...

    @property
    def text(self) -> str | None: ...


class CallAsker(Protocol):
    """Asks a person from inside a running tool call (`automata.threads.CallQuestions`
    is one): `answers(context)` says whether it can for that call, `ask` asks and
    waits for the answer, raising when it cannot be had."""

    def answers(self, context: ToolContext[Any]) -> bool: ...

    async def ask(
        self,
        context: ToolContext[Any],
        question: str,
        *,
        kind: Literal["approval", "question"],
        secret: bool,
    ) -> CallAnswerLike: ...


def is_confirmation(asked: Elicitation) -> bool:
    """A plain confirmation: a URL to open, or a form that requires no field."""
    return asked.schema is None or not (asked.schema.get("required") or ())


def is_secret(asked: Elicitation) -> bool:
    """Whether the form asks for a secret: a field marked `"writeOnly": true` or of
    `"format": "password"`."""
    for field in _fields(asked).values():
        if isinstance(field, Mapping) and (
            field.get("writeOnly") is True or field.get("format") == "password"
        ):
            return True
    return False


def ask_elicitations(
    questions: CallAsker | None = None,
    *,
    approver: Approver | None = None,
    secret: Callable[[Elicitation], bool] = is_secret,
) -> ElicitationHandler:
    """An elicitation handler on the agent's question path.

    When `questions` answers for the agent's call the elicitation came in (a call of
    a thread's turn, with a `CallQuestions`), a confirmation is asked as an approval
    (approved: accepted, with empty content for a form; denied: declined) and a form
    as a question (`secret(elicitation)` keeps the answer out of the journal). The
    question's text is the server's message, followed by what to answer: one field's
    value as text, or a JSON object for several. An answer that does not fit the
    schema is declined; a question that cannot be answered (its host stopped, its
    turn ended) is cancelled.

    Otherwise a confirmation goes to `approver` (`approve_elicitations`; declined
    without one) and a form that needs answers is declined."""
    fallback = approve_elicitations(approver) if approver is not None else None

    async def answer(asked: Elicitation) -> ElicitationReply:
        call = asked.call
        if questions is not None and call is not None and questions.answers(call):
            return await _asked(questions, call, asked, secret(asked))
        if fallback is not None and is_confirmation(asked):
            decided = fallback(asked)
            return await decided if inspect.isawaitable(decided) else decided
        return ElicitationReply.decline()

    return answer


async def _asked(
    questions: CallAsker, call: ToolContext[Any], asked: Elicitation, secret: bool
) -> ElicitationReply:
    confirm = is_confirmation(asked)
    try:
        given = await questions.ask(
            call,
            _question(asked, confirm),
            kind="approval" if confirm else "question",
            secret=secret and not confirm,
        )
    except Exception:  # the asker's typed error: no answer will come
        return ElicitationReply.cancel()
    if confirm:
        if given.approved:
            return ElicitationReply.accept({} if asked.schema is not None else None)
        return ElicitationReply.decline()
    content = _content(asked, given.text or "")
    return ElicitationReply.decline() if content is None else ElicitationReply.accept(content)


def _fields(asked: Elicitation) -> Mapping[str, Any]:
    properties = (asked.schema or {}).get("properties") or {}
    return properties if isinstance(properties, Mapping) else {}


def _question(asked: Elicitation, confirm: bool) -> str:
    text = f"{asked.server}: {asked.message}"
    if asked.url is not None:
        return f"{text} (open {asked.url})"
    if confirm:
        return text
    fields = _fields(asked)
    if len(fields) == 1:
        (name,) = fields
        return f"{text} (answer: {name})"
    names = ", ".join(fields)
    return f"{text} (answer with a JSON object of: {names})"


def _content(asked: Elicitation, text: str) -> dict[str, Value] | None:
    """The answer as the form's content, or None when it does not fit the schema."""
    fields = _fields(asked)
    if len(fields) == 1:
        ((name, field),) = fields.items()
        value = _value(field, text)
        return None if value is None else {name: value}
    try:
        given = json.loads(text)
    except ValueError:
        return None
    if not isinstance(given, dict):
        return None
    content: dict[str, Value] = {}
    for name, raw in given.items():
        field = fields.get(name)
        if field is None:
            return None
        value = _value(field, raw if isinstance(raw, str) else json.dumps(raw))
        if value is None:
            return None
        content[name] = value
    required = (asked.schema or {}).get("required") or ()
    return content if all(name in content for name in required) else None


def _value(field: Any, text: str) -> Value | None:
    """`text` as a value of the field's type (string, integer, number, boolean, or one
    of its `enum`), or None when it is not one."""
    kind = field.get("type") if isinstance(field, Mapping) else None
    choices = field.get("enum") if isinstance(field, Mapping) else None
    if choices is not None:
        return text if text in choices else None
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            return None
    if kind == "number":
        try:
            return float(text)
        except ValueError:
            return None
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in ("true", "yes"):
            return True
        if lowered in ("false", "no"):
            return False
        return None
    return text
