"""The task both sides of `provider_overhead.py` run, and the hand-written loops on each
vendor's official SDK client: one tool call, then the answer."""

from __future__ import annotations

import json
from typing import Any

TEXT = (
    "The weather in Oslo is snowy with light winds from the north; expect around "
    "minus four degrees this afternoon and clearer skies by the evening."
)
TASK = "What's the weather in Oslo?"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "the city"}},
    "required": ["city"],
}


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow and -4C in {city}"


async def async_weather(city: str) -> str:
    """Current weather for a city."""
    return weather(city)


ANTHROPIC_TOOLS = [
    {"name": "weather", "description": "Current weather for a city.", "input_schema": SCHEMA}
]


async def hand_anthropic_call(
    client: Any, model: str, messages: list[dict[str, Any]], stream: bool
) -> tuple[list[dict[str, Any]], str | None]:
    """One model call the way a hand-written loop makes it: content blocks as dicts."""
    if not stream:
        message = await client.messages.create(
            model=model, max_tokens=1024, messages=messages, tools=ANTHROPIC_TOOLS
        )
        return [block.to_dict() for block in message.content], message.stop_reason
    content: list[dict[str, Any]] = []
    parts: dict[int, list[str]] = {}
    stop = None
    events = await client.messages.create(
        model=model, max_tokens=1024, messages=messages, tools=ANTHROPIC_TOOLS, stream=True
    )
    async for event in events:
        if event.type == "content_block_start":
            content.append(event.content_block.to_dict())
            parts[event.index] = []
        elif event.type == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                parts[event.index].append(delta.text)
            elif delta.type == "input_json_delta":
                parts[event.index].append(delta.partial_json)
        elif event.type == "content_block_stop":
            block = content[event.index]
            joined = "".join(parts[event.index])
            if block["type"] == "text":
                block["text"] = joined
            elif block["type"] == "tool_use":
                block["input"] = json.loads(joined) if joined else {}
        elif event.type == "message_delta":
            stop = event.delta.stop_reason
    return content, stop


async def hand_anthropic(client: Any, model: str, stream: bool) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    while True:
        content, stop = await hand_anthropic_call(client, model, messages, stream)
        messages.append({"role": "assistant", "content": content})
        if stop != "tool_use":
            return "".join(b["text"] for b in content if b["type"] == "text")
        results = [
            {"type": "tool_result", "tool_use_id": b["id"], "content": weather(**b["input"])}
            for b in content
            if b["type"] == "tool_use"
        ]
        messages.append({"role": "user", "content": results})


OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "weather",
            "description": "Current weather for a city.",
            "parameters": SCHEMA,
        },
    }
]


async def hand_openai_call(
    client: Any, model: str, messages: list[dict[str, Any]], stream: bool
) -> tuple[str | None, list[dict[str, Any]]]:
    """One model call the way a hand-written loop makes it: text and tool calls."""
    if not stream:
        completion = await client.chat.completions.create(
            model=model, messages=messages, tools=OPENAI_TOOLS
        )
        reply = completion.choices[0].message
        return reply.content, [c.to_dict() for c in reply.tool_calls or ()]
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    chunks = await client.chat.completions.create(
        model=model,
        messages=messages,
        tools=OPENAI_TOOLS,
        stream=True,
        stream_options={"include_usage": True},
    )
    async for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                text.append(delta.content)
            for fragment in delta.tool_calls or ():
                call = calls.setdefault(fragment.index, {"id": "", "name": "", "arguments": ""})
                if fragment.id:
                    call["id"] = fragment.id
                if fragment.function and fragment.function.name:
                    call["name"] = fragment.function.name
                if fragment.function and fragment.function.arguments:
                    call["arguments"] += fragment.function.arguments
    tool_calls = [
        {
            "id": c["id"],
            "type": "function",
            "function": {"name": c["name"], "arguments": c["arguments"]},
        }
        for _, c in sorted(calls.items())
    ]
    return "".join(text) or None, tool_calls


async def hand_openai(client: Any, model: str, stream: bool) -> str:
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    while True:
        content, tool_calls = await hand_openai_call(client, model, messages, stream)
        assistant: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            assistant["tool_calls"] = tool_calls
        messages.append(assistant)
        if not tool_calls:
            return content or ""
        for call in tool_calls:
            arguments = json.loads(call["function"]["arguments"])
            result = weather(**arguments)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


RESPONSES_TOOLS = [
    {
        "type": "function",
        "name": "weather",
        "description": "Current weather for a city.",
        "parameters": SCHEMA,
        "strict": False,
    }
]


async def hand_responses_call(
    client: Any, model: str, items: list[dict[str, Any]], stream: bool
) -> list[dict[str, Any]]:
    """One Responses call the way a hand-written loop makes it: the output items as
    dicts (text deltas collected while streaming)."""
    if not stream:
        response = await client.responses.create(model=model, input=items, tools=RESPONSES_TOOLS)
        return [item.to_dict() for item in response.output]
    text: list[str] = []
    output: list[dict[str, Any]] = []
    events = await client.responses.create(
        model=model, input=items, tools=RESPONSES_TOOLS, stream=True
    )
    async for event in events:
        if event.type in ("response.output_text.delta", "response.function_call_arguments.delta"):
            text.append(event.delta)
        elif event.type == "response.output_item.done":
            output.append(event.item.to_dict())
    return output


async def hand_responses(client: Any, model: str, stream: bool) -> str:
    items: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    while True:
        output = await hand_responses_call(client, model, items, stream)
        items.extend(output)
        calls = [item for item in output if item["type"] == "function_call"]
        if not calls:
            return "".join(
                part["text"]
                for item in output
                if item["type"] == "message"
                for part in item["content"]
                if part["type"] == "output_text"
            )
        for call in calls:
            result = weather(**json.loads(call["arguments"]))
            items.append(
                {"type": "function_call_output", "call_id": call["call_id"], "output": result}
            )
