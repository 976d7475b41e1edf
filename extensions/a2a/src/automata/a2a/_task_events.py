"""What both executors publish on a task: the answer as one streamed artifact, the
question of an input-required status, and how an answer to an approval is read."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from a2a.server.agent_execution import RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Message, Part, Task, TaskState, TaskStatus
from pydantic_core import to_json

__all__ = [
    "ANSWER_ARTIFACT",
    "APPROVING_WORDS",
    "METADATA_KEY",
    "AnswerArtifact",
    "approval_question",
    "input_message",
    "open_task",
    "output_text",
    "read_approval",
]

ANSWER_ARTIFACT = "answer"
"""The name of the artifact that carries the agent's answer."""

METADATA_KEY = "automata"
"""The key of the metadata an input-required status message carries (what is asked:
`kind` `approval` or `question`, and for an approval the `tool`, its `input` and
`call_id`)."""

APPROVING_WORDS = frozenset({"y", "yes", "approve", "approved", "allow", "ok", "true"})
"""The answers (case and surrounding blanks ignored) that approve a call; any other
answer denies it, and is the reason the model is shown."""


async def open_task(context: RequestContext, event_queue: EventQueue) -> None:
    """Publish the new task, `submitted`, its history the message that opened it."""
    history = [context.message] if context.message is not None else []
    await event_queue.enqueue_event(
        Task(
            id=context.task_id or "",
            context_id=context.context_id or "",
            status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
            history=history,
        )
    )


def read_approval(text: str) -> tuple[bool, str]:
    """`(approved, reason)` for an answer to an approval question."""
    answer = text.strip()
    if answer.lower().rstrip(".!") in APPROVING_WORDS:
        return True, ""
    return False, answer or "denied"


def approval_question(tool: str, arguments: Mapping[str, Any]) -> str:
    """The question an input-required status asks to approve a call."""
    shown = json.dumps(dict(arguments), ensure_ascii=False, sort_keys=True)
    return (
        f"Approve the call to {tool} with {shown}? Answer yes to run it; "
        "any other answer denies it and is the reason given."
    )


def input_message(updater: TaskUpdater, question: str, details: Mapping[str, Any]) -> Message:
    """An agent message asking `question`, its metadata `{"automata": details}`."""
    return updater.new_agent_message([Part(text=question)], metadata={METADATA_KEY: dict(details)})


def output_text(output: object) -> str:
    """A run's output as the answer's text (typed output as JSON)."""
    return output if isinstance(output, str) else to_json(output).decode()


class AnswerArtifact:
    """The `answer` artifact of one task: each text delta is appended to it as it
    streams, and `final` replaces it with the whole answer in one text part (so a
    stored task holds the answer exactly, and a streaming client sees the deltas
    first). An answer with no delta is sent by `final` alone."""

    def __init__(self, artifact_id: str | None = None) -> None:
        self.artifact_id = artifact_id or f"answer-{uuid.uuid4().hex}"
        self._started = False

    async def delta(self, updater: TaskUpdater, text: str) -> None:
        if not text:
            return
        await updater.add_artifact(
            [Part(text=text)],
            artifact_id=self.artifact_id,
            name=ANSWER_ARTIFACT,
            append=self._started,
        )
        self._started = True

    async def final(self, updater: TaskUpdater, text: str) -> None:
        await updater.add_artifact(
            [Part(text=text)],
            artifact_id=self.artifact_id,
            name=ANSWER_ARTIFACT,
            append=False,
            last_chunk=True,
        )
        self._started = True
