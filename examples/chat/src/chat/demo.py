"""The demo mode: a scripted model that needs no key and no network.

`DemoModel` decides each reply from the transcript, the way a model would, and streams
it word by word, `pace` seconds apart, so the page can be watched as it fills. It
thinks first (shown folded), then answers:

- a message mentioning **email** drafts one and calls `send_email`, a tool that needs
  the user's approval (`require_approval`) and is not idempotent, then reports what
  happened;
- **weather** calls `get_weather` (a read, so idempotent: safe to run again after a
  crash) and answers from its result;
- **trip** or **ask me** asks the user a question (`ask_user`) and answers with it;
- **markdown** answers in markdown: a heading, a list, a table, a fenced code block
  and a link;
- **hostile** answers with text a page must never run (a `<script>`, an
  `<img onerror>`, a `javascript:` link) and calls `read_note`, whose result holds the
  same, to show that the page draws it all as text;
- **fetch** calls `fetch_page`, which shows what it does as it goes (its activity,
  docs/threads.md AC1, AC7: a label, rows of text, markdown holding markup and code,
  then a status), a step at a time, and answers from its result;
- **todo** (or **to-do**) sets a to-do list with `todo` (`todo_tool()`), an item
  holding markup the page shows as text, and the page shows the list the thread keeps;
- **long** answers with forty short paragraphs (to scroll through while it streams);
- anything else gets a few paragraphs about the message.

Every reply is computed from the request alone, so a turn resumed by a restarted
server gets the same reply again (model calls are at least once, docs/threads.md T10).
Replies report token usage, estimated at four characters a token.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

from automata.core import (
    Agent,
    Message,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    Tool,
    ToolContext,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    tool,
)
from automata.core.providers import ProviderStreamItem
from automata.threads import (
    AgentFactory,
    AgentRequest,
    ask_user_tool,
    require_approval,
    todo_tool,
)

__all__ = [
    "HOSTILE",
    "MARKDOWN",
    "DemoModel",
    "demo_agent",
    "demo_factory",
    "email_tool",
    "fetch_tool",
    "get_weather",
    "read_note",
]

_WEATHER = {
    "paris": "sunny, 21°C",
    "london": "light rain, 14°C",
    "berlin": "cloudy, 17°C",
    "tokyo": "clear, 24°C",
}


@tool(idempotent=True)
def get_weather(city: str) -> str:
    """Today's weather in a city."""
    return _WEATHER.get(city.lower(), "mild and dry, 18°C")


HOSTILE = (
    'Careful: <script>window.pwned = "script"</script> and '
    '<img src="https://example.com/x.png" onerror="window.pwned = \'img\'"> and '
    "[a link](javascript:window.pwned='link') and "
    "<a href=\"javascript:window.pwned='raw'\">a raw link</a>."
)
"""Text a model or a tool might write that a page must show, never run."""

MARKDOWN = """## A plan in three steps

1. **List** what you know.
2. Mark what is *missing*.
3. Pick the `next` step.

| Step | Time |
| --- | --- |
| List | 10 min |
| Decide | 5 min |

```python
def next_step(tasks):
    return min(tasks, key=len)
```

More in [the guide](https://example.com/guide)."""
"""The demo's markdown reply (to `markdown`)."""


@tool(idempotent=True)
def read_note(title: str) -> str:
    """Read a note (the demo's holds markup a page must not run)."""
    return f"note {title}: {HOSTILE}"


def email_tool(*, delay: float = 0.5) -> Tool:
    """The `send_email` tool: it only pretends to send, taking `delay` seconds. Not
    idempotent: after a crash while it ran, the turn ends `effect_outcome_unknown`
    rather than send twice (docs/threads.md T8)."""

    async def send_email(to: str, subject: str, body: str) -> str:
        """Send an email."""
        await asyncio.sleep(delay)
        return f"sent to {to}: {subject!r}"

    return tool(send_email)


def fetch_tool(*, delay: float = 0.5) -> Tool:
    """The `fetch_page` tool: it pretends to fetch a page, showing each step as its
    call's activity `delay` seconds apart (a markdown row holds `HOSTILE`, which the
    page shows as text). Idempotent: it only reads."""

    async def fetch_page(url: str, context: ToolContext) -> str:
        """Fetch a web page."""
        context.activity.label(f"Fetching {url}")
        await asyncio.sleep(delay)
        context.activity.row(f"connected to {url}")
        await asyncio.sleep(delay)
        context.activity.row(HOSTILE, kind="markdown")
        context.activity.row("GET / HTTP/1.1", kind="code", language="http")
        context.activity.status("200 OK")
        await asyncio.sleep(delay)
        return f"the page at {url} says hello"

    return tool(fetch_page, idempotent=True)


class DemoModel:
    """A streaming provider that answers from the transcript, one word every `pace`
    seconds (see the module's docstring for what it answers)."""

    provider_name = "demo"
    model = "demo-1"
    supports_streaming = True
    supports_native_output = False

    def __init__(self, *, pace: float = 0.06) -> None:
        self.pace = pace

    async def complete(self, request: ModelRequest) -> ModelResponse:
        return _reply(request)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderStreamItem]:
        response = _reply(request)
        for block in response.message.content:
            if isinstance(block, ThinkingBlock):
                for word in _words(block.thinking):
                    await asyncio.sleep(self.pace)
                    yield ThinkingDelta(word)
            elif isinstance(block, TextBlock):
                for word in _words(block.text):
                    await asyncio.sleep(self.pace)
                    yield TextDelta(word)
        yield response


def demo_agent(*, pace: float = 0.06) -> Agent:
    """The demo's agent: `DemoModel` with `get_weather`, `send_email` (approval
    required; it takes 30 words' time) and `ask_user`."""
    return Agent(
        DemoModel(pace=pace),
        name="demo",
        system_prompt="You are a helpful assistant. Ask before sending anything.",
        tools=[
            get_weather,
            read_note,
            email_tool(delay=pace * 30),
            fetch_tool(delay=pace * 15),
            ask_user_tool(),
            todo_tool(),
        ],
        approver=require_approval("send_email"),
    )


def demo_factory(*, pace: float = 0.06) -> AgentFactory:
    """An agent factory giving every turn the demo agent (one agent, built once)."""
    agent = demo_agent(pace=pace)

    def choose_agent(request: AgentRequest) -> Agent:
        return agent

    return choose_agent


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


TODO_ITEMS = [
    {"content": "Draft the <b>outline</b>", "status": "completed"},
    {"content": "Write the summary", "status": "in_progress", "priority": "high"},
    {"content": "Send it for review", "priority": "low"},
]
"""The demo's to-do list; the first item's markup is shown as text."""


def _respond(
    request: ModelRequest, thinking: str, text: str, *calls: ToolUseBlock
) -> ModelResponse:
    message = Message.assistant([ThinkingBlock(thinking=thinking), TextBlock(text=text), *calls])
    sent = sum(len(m.text) for m in request.messages)
    made = len(thinking) + len(text) + sum(len(str(call.input)) for call in calls)
    stop = StopReason.TOOL_USE if calls else StopReason.END_TURN
    return ModelResponse(
        message=message,
        stop_reason=stop,
        usage=Usage(input_tokens=max(1, sent // 4), output_tokens=max(1, made // 4)),
        raw_stop_reason=stop.value,
    )


def _call(request: ModelRequest, name: str, **arguments: str) -> ToolUseBlock:
    # unique in the transcript, and the same when a resumed turn asks again
    return ToolUseBlock(id=f"call-{len(request.messages)}", name=name, input=arguments)


def _last_user_text(request: ModelRequest) -> str:
    for message in reversed(request.messages):
        if message.role == "user" and message.text.strip():
            return message.text.strip()
    return ""


def _results(message: Message) -> list[ToolResultBlock]:
    return [block for block in message.content if isinstance(block, ToolResultBlock)]


def _result_text(block: ToolResultBlock) -> str:
    return "".join(part.text for part in block.content if isinstance(part, TextBlock))


def _after_tools(request: ModelRequest, results: list[ToolResultBlock]) -> ModelResponse:
    calls = {call.id: call for message in request.messages for call in message.tool_calls}
    lines: list[str] = []
    for result in results:
        call = calls.get(result.tool_use_id)
        name = call.name if call is not None else "the tool"
        text = _result_text(result)
        if name == "get_weather" and call is not None and not result.is_error:
            lines.append(f"In {call.input.get('city', 'town')} it is {text} today.")
        elif name == "send_email" and not result.is_error:
            lines.append(f"Done: the email was {text}.")
        elif name == "send_email" and text.startswith("outcome unknown"):
            lines.append(
                "The server stopped while the email was being sent, so I cannot tell "
                "whether it went out. Check the outbox before sending it again."
            )
        elif name == "send_email":
            lines.append(f"I did not send the email ({text}). Tell me if you want changes.")
        elif name == "todo" and not result.is_error:
            lines.append("The list is set; the first step is done and the next is under way.")
        elif name == "ask_user":
            lines.append(
                f"{text}, then. A good plan: arrive in the morning, walk the old town, "
                "keep the afternoon for a museum, and book dinner somewhere small."
            )
        else:
            lines.append(f"{name} answered: {text}.")
    return _respond(request, "The tool answered; I will sum it up.", " ".join(lines))


def _answer(request: ModelRequest, text: str) -> ModelResponse:
    lowered = text.lower()
    if "email" in lowered:
        return _respond(
            request,
            "The user wants an email sent. Sending needs their approval, so I ask first.",
            "Here is a short note; I will send it once you approve.",
            _call(
                request,
                "send_email",
                to="team@example.com",
                subject="Update",
                body=f"Hello team, a quick update: {text}",
            ),
        )
    if "weather" in lowered:
        city = next((name for name in _WEATHER if name in lowered), "Paris").title()
        return _respond(
            request,
            f"I should look up the weather in {city} rather than guess.",
            f"Let me check the weather in {city}.",
            _call(request, "get_weather", city=city),
        )
    if "trip" in lowered or "ask me" in lowered:
        return _respond(
            request,
            "I need to know where they want to go before I can plan.",
            "One question first.",
            _call(request, "ask_user", question="Which city would you like to visit?"),
        )
    if "fetch" in lowered:
        return _respond(
            request,
            "I should read the page rather than guess what it says.",
            "Let me fetch it.",
            _call(request, "fetch_page", url="example.com"),
        )
    if "todo" in lowered or "to-do" in lowered:
        return _respond(
            request,
            "A task with steps: I will keep a to-do list.",
            "Here is the plan.",
            ToolUseBlock(
                id=f"call-{len(request.messages)}",
                name="todo",
                input={"items": TODO_ITEMS},
            ),
        )
    if "markdown" in lowered:
        return _respond(request, "A structured answer reads best in markdown.", MARKDOWN)
    if "hostile" in lowered:
        return _respond(
            request,
            "I will repeat what I was shown, and read the note.",
            HOSTILE,
            _call(request, "read_note", title="inbox"),
        )
    if "long" in lowered:
        lines = [f"Paragraph {n}: one more short line of a long answer." for n in range(1, 41)]
        return _respond(request, "A long answer, then.", "\n\n".join(lines))
    topic = text.rstrip("?.! ")
    return _respond(
        request,
        f"The user wrote about {topic!r}. I will answer in three short paragraphs: "
        "what it is, why it matters, and what to do next.",
        f"You asked about {topic}. Here is how I would think about it.\n\n"
        "First, look at what is actually in front of you: the facts you have, the ones "
        "you are missing, and which of them would change your mind.\n\n"
        "Second, consider who else is affected and what they need to hear from you, "
        "and when. Small, early updates beat one long report at the end.\n\n"
        "Finally, pick the next step you can take today, write it down, and give it "
        "a time. Everything else can wait until that step is done.",
    )


def _reply(request: ModelRequest) -> ModelResponse:
    last = request.messages[-1] if request.messages else None
    results = [] if last is None else _results(last)
    if results:
        return _after_tools(request, results)
    return _answer(request, _last_user_text(request))
