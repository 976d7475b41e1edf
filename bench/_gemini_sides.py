"""The Gemini case of `provider_overhead.py` (and of `provider_overhead_google.py`):
the local server's Gemini routes, the hand-written loop on `google-genai`, and both
sides of one case.

One run is one function call, then the final answer, as on the other wires. The
hand-written side is the SDK's documented loop: `generate_content` (or
`generate_content_stream`) with a function declaration and automatic function calling
off, the model's content and a `Part.from_function_response` sent back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from automata_wire_testing import Reply, WireServer
from automata_wire_testing import gemini as wire

MODEL = "gemini-bench"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ANSWER = "It is sunny in Paris, with a light breeze from the west and no rain expected."
TASK = "Weather?"


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


async def async_weather(city: str) -> str:
    """Current weather for a city."""
    return weather(city)


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    """A function call to a first request, the answer once a function response came."""
    answered = any(
        "functionResponse" in part for c in body.get("contents", ()) for part in c["parts"]
    )
    if answered:
        return wire.response([{"text": ANSWER}], validate=False)
    call = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}}
    return wire.response([call], validate=False)


def add_routes(server: WireServer) -> None:
    """Answer Gemini's `:generateContent` and `:streamGenerateContent` on `server`."""
    server.route(
        ":streamGenerateContent",
        lambda body: Reply(events=wire.stream_events(_reply(body), validate=False)),
    )
    server.route(":generateContent", lambda body: Reply(json_body=_reply(body)))


async def hand_written(client: Any, stream: bool) -> str:
    """The SDK's own function-calling loop, by hand."""
    from google.genai import types

    config = types.GenerateContentConfig(
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name="weather",
                        description="Current weather for a city.",
                        parameters_json_schema=SCHEMA,
                    )
                ]
            )
        ],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=TASK)])]
    while True:
        if stream:
            parts: list[Any] = []
            async for chunk in await client.aio.models.generate_content_stream(
                model=MODEL, contents=contents, config=config
            ):
                parts.extend(chunk.candidates[0].content.parts or ())
        else:
            reply = await client.aio.models.generate_content(
                model=MODEL, contents=contents, config=config
            )
            parts = list(reply.candidates[0].content.parts or ())
        calls = [p.function_call for p in parts if p.function_call]
        if not calls:
            return "".join(p.text or "" for p in parts)
        contents.append(types.Content(role="model", parts=parts))
        contents.append(
            types.Content(
                role="user",
                parts=[
                    types.Part.from_function_response(
                        name=c.name, response={"output": weather(**(c.args or {}))}
                    )
                    for c in calls
                ],
            )
        )


Run = Callable[[], Awaitable[str]]


def open_sides(
    stream: bool, base_url: str, *, sdk_path: bool = False
) -> tuple[Run, Run, Callable[[], Awaitable[None]]]:
    """The hand-written run, the agent run and closing both, on their own clients.
    `sdk_path`: the provider on a client whose `aio` offers only the SDK's public
    surface, so through `models.generate_content(_stream)`."""
    import warnings

    from automata_wire_testing.older_clients import public_aio_only
    from google import genai
    from google.genai import types

    from automata.core import Agent, tool
    from automata.google import GoogleProvider

    http = types.HttpOptions(base_url=base_url)
    client = genai.Client(api_key="bench", http_options=http)
    given = public_aio_only(genai.Client)(api_key="bench", http_options=http) if sdk_path else None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "GoogleProvider: calls go through")
        if given is not None:
            provider = GoogleProvider(MODEL, client=given)
        else:
            provider = GoogleProvider(MODEL, api_key="bench", base_url=base_url)
    # An async tool, like the hand-written loop's direct call (a sync one would run in
    # a worker thread).
    agent = Agent(provider, tools=[tool(async_weather, name="weather")])

    async def by_hand() -> str:
        return await hand_written(client, stream)

    async def by_agent() -> str:
        if stream:
            run = agent.stream(TASK)
            async for _ in run:
                pass
            return str(run.result.output)
        return str((await agent.run(TASK)).output)

    async def aclose() -> None:
        await provider.aclose()
        await client.aio.aclose()
        if given is not None:
            await given.aio.aclose()  # given to the provider, so not closed by it

    return by_hand, by_agent, aclose
