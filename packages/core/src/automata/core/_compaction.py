"""Context compaction: keep a long conversation inside a token budget.

`Compactor` is a pre-send hook. While a request is estimated to fit `max_tokens` it is
sent exactly as it is. Past that, the older part of the conversation is replaced, in
the request only, by a summary that a summarizer provider writes, and the most recent
messages are sent verbatim. The stored transcript is never changed.

What is guaranteed about a compacted request:

- Its shape is: the system message (when there is one), one user message that opens
  with the summary, then the kept tail verbatim. When the tail itself begins with a
  user message, the summary is placed at the start of that message instead, so two
  user messages never follow each other.
- The cut never separates a tool call from its result: the tail never begins with a
  tool message, and every tool result in it has its call in it too.
- A summary is memoized by the content it covers (a hash chain over the messages'
  JSON, system message included) and recomputed only once `recompute_every` messages
  have passed its cut. Until then the request prefix (system, summary, start of the
  tail) stays byte-for-byte identical from call to call, which is what a provider's
  prompt cache needs.
- Once part of a conversation has a summary, the conversation stays compacted even
  if its estimate drops back under the trigger (say, after its usage record was
  evicted), so the request never flips between the two forms.
- One compactor may serve any number of concurrent sessions: summaries are keyed by
  content, never by session, and concurrent requests for the same summary share a
  single summarizer call.
- A summary written during a run is reported to the run's stream as a
  `CompactionEvent` carrying a `CompactionSummary` (its key, how many messages it
  covers, its text). `remember` hands such summaries to a new compactor (after a
  restart, in another process), which then sends the same compacted requests without
  asking its summarizer again.
- A summarizer failure fails the run with `CompactionError`; nothing is memoized and
  nothing is sent to the agent's provider for that step.

How the size is estimated: a pre-send hook only sees the request, which carries no
usage. Usage reaches the compactor when the agent's provider is wrapped with
`Compactor.metered(provider)`: each reply's usage (input + cache read + cache write +
output tokens) is recorded against the exact messages it answered, and a later
request that extends those messages is estimated as that count plus the serialized
size of what was added since. Without the wrapper, or for a conversation it has not
seen, the estimate is the serialized size alone: characters divided by
`chars_per_token`, plus a fixed allowance per image. Post-run hooks are not used for
this because a run's usage is summed over all its provider calls and so says nothing
about the size of any one request.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast, overload

from automata.core._blocks import (
    Block,
    DocumentBlock,
    ImageBlock,
    Message,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from automata.core._deps import RunContext
from automata.core._errors import RunError
from automata.core._events import CompactionEvent, CompactionSummary
from automata.core._hooks import Hook
from automata.core._options import CallOptions
from automata.core._provider import (
    ModelRequest,
    ModelResponse,
    Provider,
    ProviderStreamItem,
    StreamProvider,
    ToolSpec,
)
from automata.core._result import RunResult
from automata.core._stop import StopReason

__all__ = ["DEFAULT_SUMMARY_PROMPT", "CompactionError", "Compactor", "render_transcript"]

DEFAULT_SUMMARY_PROMPT = (
    "You condense the earlier part of a conversation between a user, an AI assistant "
    "and the tools the assistant called, so that the assistant can carry on without the "
    "original messages. Write a compact, factual summary in plain prose or short bullet "
    "points. Keep: the user's goals, instructions and constraints; decisions taken and "
    "why; facts, names, numbers, identifiers, file paths and URLs learned from tool "
    "results; work finished and work still open. Leave out pleasantries and anything "
    "later superseded. When a previous summary is given, fold the new messages into it "
    "and return one updated summary. Reply with the summary only."
)

SUMMARY_OPENING = "Summary of the earlier conversation (older messages are condensed here):"

IMAGE_TOKENS = 1600
"""The token allowance for one image when the size is estimated from characters."""

_MESSAGE_OVERHEAD_TOKENS = 4
_CHAIN_SEED = hashlib.sha256(b"automata.compaction/1").digest()


class CompactionError(RunError):
    """The summarizer could not produce a summary, so the step was not sent.

    The summarizer's own exception, when there was one, is the `__cause__`. `.result`
    is the run as far as it got (attached once the run's post-run hooks have run); the
    stored transcript holds no trace of the failed compaction.
    """


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the compactor needs to know about one message, computed once."""

    digest: bytes
    chars: int
    images: int


@dataclass(frozen=True, slots=True)
class _Outcome:
    summary: str | None = None
    error: BaseException | None = None
    reason: str = ""


class Compactor(Hook):
    """A pre-send hook that summarizes older messages once a request grows too large.

    `summarizer` is any `Provider`; it is sent `prompt` as its system message and the
    covered messages (with the previous summary, when one exists) as plain text in one
    user message, with `summary_options` as call options. `max_tokens` is the trigger:
    requests estimated at or under it are sent unchanged. `keep_recent` is the least
    number of messages kept verbatim at the end (more when a tool call and its result
    would otherwise be separated). `recompute_every` is how many messages must pass the
    cut before the summary is recomputed; until then the previous summary is reused and
    the kept tail grows. `max_cached` bounds the memoized summaries and usage records
    (least recently used go first).

    Register it as a hook (`Agent(..., hooks=[compactor])`); for usage-based estimates
    also wrap the agent's provider with `compactor.metered(provider)`.
    """

    def __init__(
        self,
        summarizer: Provider,
        *,
        max_tokens: int,
        keep_recent: int = 6,
        recompute_every: int = 8,
        prompt: str = DEFAULT_SUMMARY_PROMPT,
        summary_options: CallOptions | None = None,
        chars_per_token: float = 4.0,
        max_cached: int = 4096,
    ) -> None:
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
        if keep_recent < 1:
            raise ValueError(f"keep_recent must be at least 1, got {keep_recent}")
        if recompute_every < 1:
            raise ValueError(f"recompute_every must be at least 1, got {recompute_every}")
        if chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be positive, got {chars_per_token}")
        if max_cached < 1:
            raise ValueError(f"max_cached must be at least 1, got {max_cached}")
        self.summarizer = summarizer
        self.max_tokens = max_tokens
        self.keep_recent = keep_recent
        self.recompute_every = recompute_every
        self.prompt = prompt
        self.summary_options = summary_options or CallOptions()
        self.chars_per_token = chars_per_token
        self.max_cached = max_cached
        self._lock = threading.Lock()
        self._summaries: OrderedDict[bytes, str] = OrderedDict()
        self._measured: OrderedDict[bytes, int] = OrderedDict()
        self._inflight: dict[bytes, asyncio.Task[_Outcome]] = {}
        self._facts: dict[int, tuple[weakref.ref[Message], _Facts]] = {}

    # -- the hook ----------------------------------------------------------------

    async def before_send(
        self, request: ModelRequest, *, context: RunContext[Any] | None = None
    ) -> ModelRequest:
        """The request itself while it fits `max_tokens`; otherwise a compacted copy.

        When it writes a new summary (not one it remembered), it reports it to the
        run's stream as a `CompactionEvent` through `context.emit` (a run passes its
        context to a hook that declares one, L86)."""
        messages = request.messages
        chain = self._chain(messages)
        start = 1 if messages and messages[0].role == "system" else 0
        if self._estimate(request, chain) <= self.max_tokens and not self._compacted_before(
            chain, start
        ):
            return request
        cut = _latest_cut(messages, start, len(messages) - self.keep_recent)
        if cut is None:
            return request
        previous = self._previous_summary(messages, chain, start, cut)
        if previous is not None and cut - previous[0] < self.recompute_every:
            cut, summary = previous
        else:
            summary = await self._summary(messages, chain, start, cut, previous)
            if context is not None:
                written = CompactionSummary(key=chain[cut].hex(), covered=cut, summary=summary)
                context.emit(
                    CompactionEvent(
                        agent=context.agent,
                        invocation_id=context.invocation_id,
                        depth=context.depth,
                        summary=written,
                    )
                )
        return replace(request, messages=_compacted(messages, start, cut, summary))

    async def after_run(self, result: RunResult[Any], error: BaseException | None) -> None:
        """Attach the run's partial result to a `CompactionError` raised by this hook
        (a pre-send hook cannot see the run, so the error starts without one)."""
        if isinstance(error, CompactionError) and not hasattr(error, "result"):
            error.result = result

    def remember(self, summaries: Iterable[CompactionSummary]) -> None:
        """Take summaries written before (by this compactor or another one, say before
        a restart) as if this compactor had written them: a request they cover reuses
        them, byte for byte, instead of asking the summarizer. At most `max_cached` are
        kept (the last ones given); a key that is not a hex digest is refused with
        `ValueError` before any is taken."""
        given = [(bytes.fromhex(s.key), s.summary) for s in summaries]
        with self._lock:
            for key, summary in given:
                self._summaries[key] = summary
                self._summaries.move_to_end(key)
            while len(self._summaries) > self.max_cached:
                self._summaries.popitem(last=False)

    def sharing(self, summarizer: Provider) -> Compactor:
        """A compactor with this one's settings and memory (its summaries, usage
        records and summarizer calls in flight, shared both ways from then on) that
        asks `summarizer` for the summaries it writes. The thread service gives each
        turn one whose summarizer journals when a summary is asked for."""
        twin = copy.copy(self)
        twin.summarizer = summarizer
        return twin

    # -- usage -------------------------------------------------------------------

    @overload
    def metered(self, provider: StreamProvider) -> StreamProvider: ...
    @overload
    def metered(self, provider: Provider) -> Provider: ...
    def metered(self, provider: Provider) -> Provider:
        """`provider`, reporting the usage of each reply to this compactor so that
        later requests of the same conversation are sized from real token counts.
        Streaming and every other attribute pass through unchanged."""
        if isinstance(provider, StreamProvider):
            return _MeteredStreamProvider(provider, self)
        return _MeteredProvider(provider, self)

    def record_usage(self, request: ModelRequest, response: ModelResponse) -> None:
        """Remember how many tokens `request` plus its reply came to, if reported."""
        usage = response.usage
        if usage is None or usage.is_zero() or _is_compacted(request.messages):
            return  # a compacted request is never a prefix of a stored conversation
        key = self._chain((*request.messages, response.message))[-1]
        with self._lock:
            self._measured[key] = usage.total_tokens
            self._measured.move_to_end(key)
            while len(self._measured) > self.max_cached:
                self._measured.popitem(last=False)

    def estimate_tokens(self, request: ModelRequest) -> int:
        """The estimated size of `request` as it stands (before any compaction)."""
        return self._estimate(request, self._chain(request.messages))

    # -- estimates ---------------------------------------------------------------

    def _estimate(self, request: ModelRequest, chain: Sequence[bytes]) -> int:
        messages = request.messages
        base = 0
        first_unmeasured = 0
        with self._lock:
            for end in range(len(messages), 0, -1):
                measured = self._measured.get(chain[end])
                if measured is not None:
                    self._measured.move_to_end(chain[end])
                    base, first_unmeasured = measured, end
                    break
        chars = 0
        images = 0
        for message in messages[first_unmeasured:]:
            facts = self._facts_of(message)
            chars += facts.chars
            images += facts.images
        count = len(messages) - first_unmeasured
        if first_unmeasured == 0:
            chars += _tool_chars(request.tools)
        return (
            base
            + int(chars / self.chars_per_token)
            + images * IMAGE_TOKENS
            + count * _MESSAGE_OVERHEAD_TOKENS
        )

    def _facts_of(self, message: Message) -> _Facts:
        key = id(message)
        cached = self._facts.get(key)
        if cached is not None and cached[0]() is message:
            return cached[1]
        facts = _Facts(
            digest=hashlib.sha256(message.model_dump_json().encode("utf-8")).digest(),
            chars=sum(_block_chars(b) for b in message.content),
            images=sum(_block_images(b) for b in message.content),
        )
        cache = self._facts

        def forget(_: object, key: int = key) -> None:
            cache.pop(key, None)

        self._facts[key] = (weakref.ref(message, forget), facts)
        return facts

    def _chain(self, messages: Sequence[Message]) -> list[bytes]:
        """`chain[k]` identifies `messages[:k]` by content."""
        chain = [_CHAIN_SEED]
        for message in messages:
            chain.append(hashlib.sha256(chain[-1] + self._facts_of(message).digest).digest())
        return chain

    # -- summaries ---------------------------------------------------------------

    def _compacted_before(self, chain: Sequence[bytes], start: int) -> bool:
        """Whether some earlier part of this conversation already has a summary: it was
        over the trigger then, and a conversation only grows, so it stays compacted."""
        with self._lock:
            return any(chain[p] in self._summaries for p in range(len(chain) - 1, start, -1))

    def _previous_summary(
        self, messages: Sequence[Message], chain: Sequence[bytes], start: int, cut: int
    ) -> tuple[int, str] | None:
        """The memoized summary with the latest cut at or before `cut`, if any."""
        with self._lock:
            for position in range(cut, start, -1):
                summary = self._summaries.get(chain[position])
                if summary is not None and _is_cut(messages, start, position):
                    self._summaries.move_to_end(chain[position])
                    return position, summary
        return None

    async def _summary(
        self,
        messages: Sequence[Message],
        chain: Sequence[bytes],
        start: int,
        cut: int,
        previous: tuple[int, str] | None,
    ) -> str:
        key = chain[cut]
        loop = asyncio.get_running_loop()
        with self._lock:
            task = self._inflight.get(key)
            if task is None or task.get_loop() is not loop:
                if previous is not None:
                    covered, earlier = messages[previous[0] : cut], previous[1]
                else:
                    covered, earlier = messages[start:cut], None
                task = loop.create_task(self._summarize(key, covered, earlier))
                self._inflight[key] = task
        outcome = await asyncio.shield(task)
        if outcome.summary is not None:
            return outcome.summary
        error = CompactionError(f"context compaction failed: {outcome.reason}")
        if outcome.error is not None:
            raise error from outcome.error
        raise error

    async def _summarize(
        self, key: bytes, covered: Sequence[Message], earlier: str | None
    ) -> _Outcome:
        """Ask the summarizer once; never raises, so every waiter builds its own error."""
        try:
            outcome = await self._ask_summarizer(covered, earlier)
        finally:
            with self._lock:
                if self._inflight.get(key) is asyncio.current_task():
                    del self._inflight[key]
        if outcome.summary is not None:
            with self._lock:
                self._summaries[key] = outcome.summary
                self._summaries.move_to_end(key)
                while len(self._summaries) > self.max_cached:
                    self._summaries.popitem(last=False)
        return outcome

    async def _ask_summarizer(self, covered: Sequence[Message], earlier: str | None) -> _Outcome:
        parts: list[str] = []
        if earlier is not None:
            parts.append(f"Previous summary:\n{earlier}")
            parts.append(f"Messages since that summary:\n{render_transcript(covered)}")
        else:
            parts.append(f"Messages to summarize:\n{render_transcript(covered)}")
        request = ModelRequest(
            messages=(Message.system(self.prompt), Message.user("\n\n".join(parts))),
            options=self.summary_options,
        )
        try:
            response = await self.summarizer.complete(request)
        except Exception as exc:
            return _Outcome(error=exc, reason=f"summarizer raised {type(exc).__name__}: {exc}")
        if response.stop_reason not in (StopReason.END_TURN, StopReason.MAX_TOKENS):
            raw = response.raw_stop_reason or response.stop_reason.value
            return _Outcome(reason=f"summarizer stopped with {response.stop_reason.value} ({raw})")
        summary = response.message.text.strip()
        if not summary:
            return _Outcome(reason="summarizer returned no text")
        return _Outcome(summary=summary)


# -- the cut ---------------------------------------------------------------------


def _is_cut(messages: Sequence[Message], start: int, cut: int) -> bool:
    """Whether the tail `messages[cut:]` can stand on its own after a summary."""
    if cut <= start or cut >= len(messages) or messages[cut].role in ("tool", "system"):
        return False
    called_before = {
        block.id
        for message in messages[start:cut]
        for block in message.content
        if isinstance(block, ToolUseBlock)
    }
    return not any(
        isinstance(block, ToolResultBlock) and block.tool_use_id in called_before
        for message in messages[cut:]
        for block in message.content
    )


def _latest_cut(messages: Sequence[Message], start: int, at_most: int) -> int | None:
    """The latest valid cut at or before `at_most`, or None when there is none."""
    calls: dict[str, int] = {}
    for index, message in enumerate(messages):
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                calls.setdefault(block.id, index)
    # earliest[i]: the earliest call position that a result in messages[i:] refers to.
    earliest = [len(messages)] * (len(messages) + 1)
    for index in range(len(messages) - 1, -1, -1):
        lowest = earliest[index + 1]
        for block in messages[index].content:
            if isinstance(block, ToolResultBlock):
                lowest = min(lowest, calls.get(block.tool_use_id, len(messages)))
        earliest[index] = lowest
    for cut in range(min(at_most, len(messages) - 1), start, -1):
        if messages[cut].role not in ("tool", "system") and earliest[cut] >= cut:
            return cut
    return None


def _is_compacted(messages: Sequence[Message]) -> bool:
    for message in messages[:2]:
        first = message.content[0] if message.content else None
        if isinstance(first, TextBlock) and first.text.startswith(SUMMARY_OPENING):
            return True
    return False


def _compacted(
    messages: Sequence[Message], start: int, cut: int, summary: str
) -> tuple[Message, ...]:
    summary_block = TextBlock(text=f"{SUMMARY_OPENING}\n\n{summary}")
    tail = messages[cut:]
    if tail[0].role == "user":
        opening = Message(role="user", content=(summary_block, *tail[0].content))
        rest = tail[1:]
    else:
        opening = Message(role="user", content=(summary_block,))
        rest = tail
    return (*messages[:start], opening, *rest)


# -- sizes and rendering -----------------------------------------------------------


def _json_chars(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def _block_chars(block: Block) -> int:
    if isinstance(block, TextBlock):
        return len(block.text)
    if isinstance(block, ThinkingBlock):
        return len(block.thinking)
    if isinstance(block, ToolUseBlock):
        return len(block.name) + len(block.id) + _json_chars(block.input)
    if isinstance(block, ToolResultBlock):
        return len(block.tool_use_id) + sum(_block_chars(b) for b in block.content)
    if isinstance(block, RawBlock):
        return _json_chars(block.data)
    if isinstance(block, DocumentBlock):
        return len(block.text or "")  # a PDF's size in tokens is not known here
    return 0


def _block_images(block: Block) -> int:
    if isinstance(block, ImageBlock):
        return 1
    if isinstance(block, ToolResultBlock):
        return sum(_block_images(b) for b in block.content)
    return 0


def _tool_chars(tools: Sequence[ToolSpec]) -> int:
    return sum(
        len(spec.name) + len(spec.description) + _json_chars(dict(spec.input_schema))
        for spec in tools
    )


def _block_text(block: Block) -> str:
    """A block as plain text; "" for thinking, the model's private reasoning."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ToolUseBlock):
        arguments = json.dumps(block.input, ensure_ascii=False, default=str)
        return f"called tool {block.name} (call {block.id}) with {arguments}"
    if isinstance(block, ToolResultBlock):
        status = "error" if block.is_error else "result"
        body = "\n".join(text for text in map(_block_text, block.content) if text)
        return f"{status} of call {block.tool_use_id}: {body}"
    if isinstance(block, ImageBlock):
        return "[image]"
    if isinstance(block, DocumentBlock):
        return f"[document: {block.title}]" if block.title else "[document]"
    if isinstance(block, RawBlock):
        return f"[{block.provider} {block.kind or 'block'}]"
    return ""


def render_transcript(messages: Sequence[Message]) -> str:
    """Messages as the plain text a summarizer reads: one line (or paragraph) per
    block, prefixed with who said it; tool calls and results name their call id."""
    lines = (f"{m.role}: {text}" for m in messages for text in map(_block_text, m.content) if text)
    return "\n".join(lines)


# -- the metered provider wrappers --------------------------------------------------


class _MeteredProvider:
    """A provider whose replies' usage is reported to a compactor. It advertises what
    the wrapped provider advertises; other attributes pass through too."""

    def __init__(self, provider: Provider, compactor: Compactor) -> None:
        self._provider = provider
        self._compactor = compactor

    @property
    def provider_name(self) -> str:
        return self._provider.provider_name

    @property
    def model(self) -> str | None:
        return self._provider.model

    @property
    def supports_streaming(self) -> bool:
        return self._provider.supports_streaming

    @property
    def supports_native_output(self) -> bool:
        return self._provider.supports_native_output

    def __getattr__(self, name: str) -> Any:
        return getattr(self._provider, name)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = await self._provider.complete(request)
        self._compactor.record_usage(request, response)
        return response


class _MeteredStreamProvider(_MeteredProvider):
    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        provider = cast(StreamProvider, self._provider)
        async for item in provider.stream(request):
            if isinstance(item, ModelResponse):
                self._compactor.record_usage(request, item)
            yield item
