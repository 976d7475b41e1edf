"""The checks and encodings of `ThreadService`'s arguments: request claims (a key and
the fingerprint of the call's input, store rule S3), titles, user messages and new
thread ids."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from automata.core import InvalidArgumentError, Message
from automata.threads._text import check_text, check_texts
from automata.threads.store import RequestClaim, ThreadRow

__all__ = [
    "MAX_TITLE",
    "checked_title",
    "new_thread_id",
    "request_claim",
    "summary_json",
    "title_of",
    "user_message",
]

MAX_TITLE = 500


def request_claim(op: str, key: str, outcome: str = "", **inputs: Any) -> RequestClaim:
    """The claim of a mutation: `key`, checked, and the SHA-256 of the op and its
    inputs in canonical JSON (the same input always gives the same fingerprint)."""
    if not isinstance(key, str) or not key:
        raise InvalidArgumentError(f"{op} needs a request_key: a non-empty string")
    check_text(key, f"{op}'s request_key")
    for name, value in inputs.items():
        check_texts(value, f"{op}'s {name}")
    canonical = json.dumps(
        {"op": op, **inputs}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return RequestClaim(key, hashlib.sha256(canonical.encode("utf-8")).hexdigest(), outcome)


def summary_json(title: str) -> str:
    return json.dumps({"v": 1, "title": title}, ensure_ascii=False)


def title_of(row: ThreadRow) -> str:
    try:
        data = json.loads(row.summary)
    except ValueError:
        return ""
    return str(data.get("title", "")) if isinstance(data, dict) else ""


def checked_title(title: str) -> str:
    if not isinstance(title, str) or len(title) > MAX_TITLE:
        raise InvalidArgumentError(f"a title is a string of at most {MAX_TITLE} characters")
    return title


def user_message(message: str | Message) -> Message:
    if isinstance(message, str):
        if not message.strip():
            raise InvalidArgumentError("send() got an empty message")
        return Message.user(message)
    if not isinstance(message, Message) or message.role != "user" or not message.content:
        raise InvalidArgumentError("send() needs a string or a non-empty user Message")
    return message


def new_thread_id() -> str:
    return "th_" + uuid.uuid4().hex
