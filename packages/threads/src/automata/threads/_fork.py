"""What a fork or an import writes into its new thread: the copied transcript, and the
facts that go with it (to-do lists, TD5; artifacts, AR7-AR8), each record where it
took effect.

`ThreadService.fork` and `ThreadService.import_transcript` build a `ThreadCopy` here
and commit it with the new thread's `created` record, in the one transaction that
creates the thread, so a new thread holds its whole copy or does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from automata.core import (
    Artifact,
    InvalidArgumentError,
    Message,
    ToolResultBlock,
    ToolUseBlock,
    TranscriptError,
    artifact_of,
)
from automata.threads._artifacts import artifact_record, copied_record
from automata.threads._errors import ItemNotFoundError, ThreadNotFoundError, ThreadStateError
from automata.threads._fold import ThreadFold
from automata.threads._records import decode, encode, message_data
from automata.threads._text import check_texts
from automata.threads._todos import carried_records
from automata.threads.store import NewRecord, ThreadStore

__all__ = ["ThreadCopy", "checked_transcript", "forked", "import_inputs", "imported"]


@dataclass(frozen=True, slots=True)
class ThreadCopy:
    """A new thread's transcript (`messages`, none of them in a turn) and the records
    carried with it (`carried`: each with the number of copied messages it follows)."""

    messages: tuple[Message, ...]
    carried: tuple[tuple[int, NewRecord], ...] = ()

    def records(self) -> list[NewRecord]:
        """The records after `created`: each message, with each carried record just
        after the messages it follows."""
        records: list[NewRecord] = []
        for count, message in enumerate(self.messages, start=1):
            records += [record for position, record in self.carried if position == count - 1]
            records.append(encode("message", turn=None, message=message_data(message)))
        records += [record for position, record in self.carried if position == len(self.messages)]
        return records


def checked_transcript(messages: Sequence[Message]) -> ThreadCopy:
    """An imported conversation, checked: core `Message`s, no system message, every
    tool call with its result. Raises `InvalidArgumentError` naming the first fault."""
    checked = list(messages)
    open_calls: set[str] = set()
    for index, message in enumerate(checked):
        if not isinstance(message, Message):
            raise InvalidArgumentError(f"transcript item {index} is not a Message")
        if message.role == "system":
            raise InvalidArgumentError(
                f"transcript item {index} is a system message; a thread's system prompt "
                "comes from its agent, so import the conversation without it"
            )
        for block in message.content:
            if isinstance(block, ToolUseBlock) and message.role == "assistant":
                open_calls.add(block.id)
            elif isinstance(block, ToolResultBlock):
                open_calls.discard(block.tool_use_id)
    if open_calls:
        raise InvalidArgumentError(
            f"tool call {sorted(open_calls)[0]!r} has no result; import a transcript "
            "whose every call has its result"
        )
    return ThreadCopy(tuple(checked))


def imported(messages: Sequence[Message], artifacts: Sequence[Artifact]) -> ThreadCopy:
    """The copy an import of `messages` writes (checked as `checked_transcript` does),
    with `artifacts` carried (AR8): each just before the first message holding a tool
    result that previews it, as returned by that result's call, each id once. Raises
    `InvalidArgumentError` for an item that is not an `Artifact`, one no tool result
    of the transcript previews, or text that is not valid Unicode."""
    copy = checked_transcript(messages)
    named: dict[str, tuple[int, str]] = {}
    for position, message in enumerate(copy.messages):
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                for inner in block.content:
                    found = artifact_of(inner)
                    if found is not None:
                        named.setdefault(found, (position, block.tool_use_id))
    carried: dict[str, tuple[int, NewRecord]] = {}
    for index, artifact in enumerate(artifacts):
        if not isinstance(artifact, Artifact):
            raise InvalidArgumentError(f"artifacts item {index} is not an Artifact")
        check_texts((artifact.content, artifact.name), "import's artifacts")
        place = named.get(artifact.id)
        if place is None:
            raise InvalidArgumentError(
                f"artifact {artifact.id!r} is previewed by no tool result of the transcript; "
                "import only the artifacts its results name"
            )
        if artifact.id not in carried:
            position, call_id = place
            carried[artifact.id] = (position, artifact_record(None, call_id, artifact))
    return ThreadCopy(copy.messages, (*copy.carried, *carried.values()))


def import_inputs(copy: ThreadCopy, artifacts: Sequence[Artifact]) -> dict[str, Any]:
    """What an import's request fingerprint holds besides its title and parent: the
    transcript, and the id and name of each artifact when there are any (an import
    without artifacts has the fingerprint it had before they existed)."""
    inputs: dict[str, Any] = {"transcript": [message_data(m) for m in copy.messages]}
    if artifacts:
        inputs["artifacts"] = [[artifact.id, artifact.name] for artifact in artifacts]
    return inputs


async def forked(store: ThreadStore, fold: ThreadFold, item_id: str) -> ThreadCopy:
    """The copy a fork of `fold` at `item_id` writes: the transcript up to the message
    holding `item_id` (with the results of the calls that message made), the to-do
    lists the source had set by then, and the artifacts it had journaled by then, read
    from `store` (AR7). Raises `ItemNotFoundError` for an unknown item,
    `ThreadStateError` for a message whose calls have no results yet,
    `ThreadNotFoundError` when the source went away meanwhile, and `TranscriptError`
    when the journal does not hold an artifact where its fold found it."""
    cut = _cut(fold, item_id)
    carried = list(carried_records(fold.todo_marks, len(cut)))
    for artifact_id, info in fold.artifacts.items():
        position = fold.artifact_marks[artifact_id]
        if position >= len(cut):
            continue  # journaled after the cut: its preview is not in the copy
        records = await store.read(fold.thread_id, after=info.seq - 1, limit=1)
        if not records:
            raise ThreadNotFoundError(f"thread {fold.thread_id!r} went away during the fork")
        record = decode(records[0])
        if record.kind != "artifact" or record.data.get("id") != artifact_id:
            raise TranscriptError(
                f"journal record {info.seq} of thread {fold.thread_id!r} is not artifact "
                f"{artifact_id!r}"
            )
        carried.append((position, copied_record(record.data)))
    return ThreadCopy(tuple(cut), tuple(carried))


def _cut(fold: ThreadFold, item_id: str) -> list[Message]:
    """The transcript up to the message holding `item_id`, with the results of the
    calls that message made."""
    key, dot, _ = item_id.rpartition(".")
    positions = [index for index, entry in enumerate(fold.entries) if dot and entry.key == key]
    if not positions:
        raise ItemNotFoundError(f"no item {item_id!r} in thread {fold.thread_id!r}")
    index = positions[0]
    cut = [entry.message for entry in fold.entries[: index + 1]]
    if cut[-1].tool_calls:
        following = fold.entries[index + 1 : index + 2]
        if not following or following[0].message.role != "tool":
            raise ThreadStateError(
                f"item {item_id!r} belongs to a message whose calls have no results yet"
            )
        cut.append(following[0].message)
    return cut
