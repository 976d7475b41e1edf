"""What a fork or an import writes into its new thread: the copied transcript, and the
facts that go with it (to-do lists, TD5), each record where it took effect.

`ThreadService.fork` and `ThreadService.import_transcript` build a `ThreadCopy` here
and commit it with the new thread's `created` record, in the one transaction that
creates the thread, so a new thread holds its whole copy or does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from automata.core import InvalidArgumentError, Message, ToolResultBlock, ToolUseBlock
from automata.threads._errors import ItemNotFoundError, ThreadStateError
from automata.threads._fold import ThreadFold
from automata.threads._records import encode, message_data
from automata.threads._todos import carried_records
from automata.threads.store import NewRecord

__all__ = ["ThreadCopy", "checked_transcript", "forked"]


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


def forked(fold: ThreadFold, item_id: str) -> ThreadCopy:
    """The copy a fork of `fold` at `item_id` writes: the transcript up to the message
    holding `item_id` (with the results of the calls that message made) and the to-do
    lists the source had set by then. Raises `ItemNotFoundError` for an unknown item
    and `ThreadStateError` for a message whose calls have no results yet."""
    cut = _cut(fold, item_id)
    return ThreadCopy(tuple(cut), tuple(carried_records(fold.todo_marks, len(cut))))


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
