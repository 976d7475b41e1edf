"""Client CPU per agent run on Gemini: automata's Agent + GoogleProvider vs a
hand-written loop on the `google-genai` SDK (the sibling of `provider_overhead.py`,
measured the same way).

Run: uv run python bench/provider_overhead_google.py [--runs N] [--rounds R]

One run = one function call, then a final answer (two model calls and one tool call),
against a local Gemini server in a child process, so `time.process_time()` here counts
client CPU only. The hand-written side is the SDK's documented loop: `generate_content`
(or `generate_content_stream`) with a function declaration and automatic function
calling off, the model's content and a `Part.from_function_response` sent back. Runs
alternate one by one (ABBA); the median ratio (agent / hand-written) over the rounds is
the figure to quote.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from automata_wire_testing import Reply, WireServer
from automata_wire_testing import gemini as wire

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.provider_overhead import Timing, interleaved, weather

MODEL = "gemini-bench"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
ANSWER = "It is sunny in Paris, with a light breeze from the west and no rain expected."


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    """A function call to a first request, the answer once a function response came."""
    answered = any(
        "functionResponse" in part for c in body.get("contents", ()) for part in c["parts"]
    )
    if answered:
        return wire.response([{"text": ANSWER}], validate=False)
    call = {"functionCall": {"name": "weather", "args": {"city": "Paris"}}}
    return wire.response([call], validate=False)


def serve() -> None:
    """Child process: answer on 127.0.0.1, print the port, serve until terminated."""
    server = WireServer(record=False, pace=False)
    server.route(
        ":streamGenerateContent",
        lambda body: Reply(events=wire.stream_events(_reply(body), validate=False)),
    )
    server.always(lambda body: Reply(json_body=_reply(body)))
    server.start()
    print(server.port, flush=True)
    threading.Event().wait()


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
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Weather?")])]
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


async def measure(base_url: str, stream: bool, runs: int, rounds: int) -> Timing:
    from google import genai
    from google.genai import types

    from automata.core import Agent, tool
    from automata.google import GoogleProvider

    client = genai.Client(api_key="bench", http_options=types.HttpOptions(base_url=base_url))
    provider = GoogleProvider(MODEL, api_key="bench", base_url=base_url)
    agent = Agent(provider, tools=[tool(weather)])

    async def by_hand() -> str:
        return await hand_written(client, stream)

    async def by_agent() -> str:
        if stream:
            run = agent.stream("Weather?")
            async for _ in run:
                pass
            return str(run.result.output)
        return str((await agent.run("Weather?")).output)

    assert await by_hand() == ANSWER
    assert await by_agent() == ANSWER
    for _ in range(max(runs // 2, 5)):  # warm-up
        await by_hand()
        await by_agent()
    try:
        return await interleaved(by_hand, by_agent, runs, rounds)
    finally:
        await provider.aclose()
        await client.aio.aclose()


@contextmanager
def local_server() -> Iterator[str]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        yield f"http://127.0.0.1:{child.stdout.readline().strip()}"
    finally:
        child.terminate()
        child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    print(f"{'case':<22}{'hand-written':>14}{'agent':>12}{'ratio':>9}   range")
    with local_server() as base_url:
        for stream in (False, True):
            timing = asyncio.run(measure(base_url, stream, args.runs, args.rounds))
            print(timing.row("google-stream" if stream else "google-complete"))


if __name__ == "__main__":
    main()
