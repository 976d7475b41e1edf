"""What goes over the wire: each feature's request body, as the local server received
it and as the SDK's own models read it (`gemini.check_request`)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from automata_wire_testing import WireServer, ask, final_response, tool_message
from automata_wire_testing import gemini as wire

from automata.core import (
    Agent,
    CallOptions,
    DocumentBlock,
    ImageBlock,
    Message,
    ModelRequest,
    OutputSchema,
    RawBlock,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    tool,
)
from automata.core.providers import ProviderError

from .conftest import ProviderMaker

WEATHER = ToolSpec(
    "weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


async def sent(
    server: WireServer,
    make_provider: ProviderMaker,
    request: ModelRequest,
    *,
    streamed: bool = False,
    **options: Any,
) -> dict[str, Any]:
    server.enqueue(wire.answer(wire.response([{"text": "ok"}])))
    await final_response(make_provider(**options), request, streamed=streamed)
    body = server.received[-1].body
    assert wire.check_request(body) is None, wire.check_request(body)
    return body


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_system_text_and_options_go_where_the_api_reads_them(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    request = ask(
        Message.system("Be brief."),
        Message.user("hi"),
        options=CallOptions(max_tokens=64, temperature=0.2, stop_sequences=("END",)),
    )
    body = await sent(server, make_provider, request, streamed=streamed)
    assert body == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"maxOutputTokens": 64, "temperature": 0.2, "stopSequences": ["END"]},
    }
    path = server.received[-1].path
    marker = ":streamGenerateContent" if streamed else ":generateContent"
    assert path == f"/v1beta/models/gemini-test{marker}"
    assert server.received[-1].query == ("alt=sse" if streamed else "")
    assert server.received[-1].headers["x-goog-api-key"] == "test-key"


async def test_tools_are_function_declarations_with_a_json_schema_and_a_calling_mode(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    request = ask(Message.user("hi"), tools=(WEATHER,), options=CallOptions(tool_choice="weather"))
    body = await sent(server, make_provider, request)
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "weather",
                    "description": "Current weather for a city.",
                    "parametersJsonSchema": WEATHER.input_schema,
                }
            ]
        }
    ]
    assert body["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["weather"]}
    }


async def test_thinking_asks_for_a_budget_and_the_thoughts(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = await sent(
        server, make_provider, ask(Message.user("hi"), options=CallOptions(thinking_budget=512))
    )
    assert body["generationConfig"] == {
        "thinkingConfig": {"thinkingBudget": 512, "includeThoughts": True}
    }


async def test_structured_output_is_a_json_schema_with_the_json_mime_type(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    request = ask(Message.user("count"), output_schema=OutputSchema("Count", schema))
    body = await sent(server, make_provider, request)
    assert body["generationConfig"] == {
        "responseMimeType": "application/json",
        "responseJsonSchema": schema,
    }


async def test_images_documents_and_audio_go_inline_and_urls_as_file_data(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    png, pdf, wav = b"\x89PNG\r\n", b"%PDF-1.7", b"RIFF\x00\x00WAVE"
    request = ask(
        Message.user(
            [
                TextBlock(text="Compare these."),
                ImageBlock(media_type="image/png", data=png),
                DocumentBlock(media_type="application/pdf", data=pdf),
                DocumentBlock(media_type="audio/wav", data=wav),
                ImageBlock(media_type="image/jpeg", url="gs://bucket/cat.jpg"),
            ]
        )
    )
    body = await sent(server, make_provider, request)

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    assert body["contents"][0]["parts"] == [
        {"text": "Compare these."},
        {"inlineData": {"mimeType": "image/png", "data": b64(png)}},
        {"inlineData": {"mimeType": "application/pdf", "data": b64(pdf)}},
        {"inlineData": {"mimeType": "audio/wav", "data": b64(wav)}},
        {"fileData": {"fileUri": "gs://bucket/cat.jpg", "mimeType": "image/jpeg"}},
    ]


async def test_server_side_tools_are_sent_beside_the_declarations(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = await sent(
        server,
        make_provider,
        ask(Message.user("hi"), tools=(WEATHER,)),
        google_search=True,
        code_execution=True,
        url_context=True,
    )
    assert [next(iter(t)) for t in body["tools"]] == [
        "functionDeclarations",
        "googleSearch",
        "codeExecution",
        "urlContext",
    ]


def weather(city: str) -> str:
    """Current weather for a city."""
    return f"snow in {city}"


def clock(city: str) -> str:
    """Local time in a city."""
    return f"noon in {city}"


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "stream"])
async def test_parallel_calls_go_back_with_their_own_signatures_and_answers_in_order(
    server: WireServer, make_provider: ProviderMaker, streamed: bool
) -> None:
    calls: list[dict[str, Any]] = [
        {"text": "Both at once.", "thought": True, "thoughtSignature": "dGhvdWdodA=="},
        {
            "functionCall": {"name": "weather", "args": {"city": "Oslo"}},
            "thoughtSignature": "c2lnLW9uZQ==",
        },
        {
            "functionCall": {"name": "clock", "args": {"city": "Oslo"}},
            "thoughtSignature": "c2lnLXR3by8rPQ==",
        },
    ]
    server.enqueue(
        wire.answer(wire.response(calls)),
        wire.answer(wire.response([{"text": "Snowy noon."}])),
    )
    agent = Agent(make_provider(), tools=[tool(weather), tool(clock)])
    if streamed:
        run = agent.stream("Oslo?")
        _ = [event async for event in run]
        output = run.result.output
    else:
        output = (await agent.run("Oslo?")).output
    assert output == "Snowy noon."
    second = server.received[1].body
    assert wire.check_request(second) is None
    model_turn, answers = second["contents"][1:]
    assert model_turn == {"role": "model", "parts": calls}
    assert answers == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "weather", "response": {"output": "snow in Oslo"}}},
            {"functionResponse": {"name": "clock", "response": {"output": "noon in Oslo"}}},
        ],
    }


async def test_call_ids_the_server_gave_go_back_on_the_call_and_its_response(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call = ToolUseBlock(id="fc_9", name="weather", input={"city": "Rome"})
    request = ask(
        Message.user("Rome?"),
        Message.assistant([call]),
        tool_message("fc_9", TextBlock(text="down"), is_error=True),
        tools=(WEATHER,),
    )
    body = await sent(server, make_provider, request)
    assert body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "weather", "args": {"city": "Rome"}, "id": "fc_9"}}
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "weather",
                        "response": {"error": "down"},
                        "id": "fc_9",
                    }
                }
            ],
        },
    ]


async def test_a_result_for_a_call_no_turn_made_is_refused_before_sending(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    request = ask(Message.user("hi"), tool_message("fc_x", TextBlock(text="?")))
    with pytest.raises(ProviderError, match="tool result for call 'fc_x'"):
        await make_provider().complete(request)
    assert server.received == []


async def test_raw_server_tool_parts_go_back_as_they_came_and_others_are_left_out(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(2+2)"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "4\n"}}
    request = ask(
        Message.user("2+2?"),
        Message.assistant(
            [
                RawBlock(provider="google", data=code),
                RawBlock(provider="google", data=result),
                RawBlock(provider="anthropic", data={"type": "server_tool_use"}),
                TextBlock(text="4"),
            ]
        ),
        Message.user("thanks"),
    )
    body = await sent(server, make_provider, request)
    assert body["contents"][1] == {"role": "model", "parts": [code, result, {"text": "4"}]}


async def test_results_go_back_in_the_order_of_the_calls_whatever_order_they_came_in(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    first = ToolUseBlock(id="fc_1", name="weather", input={"city": "Oslo"})
    second = ToolUseBlock(id="fc_2", name="clock", input={"city": "Oslo"})
    request = ask(
        Message.user("Oslo?"),
        Message.assistant([first, second]),
        Message(
            role="tool",
            content=(
                ToolResultBlock(tool_use_id="fc_2", content=(TextBlock(text="noon"),)),
                ToolResultBlock(tool_use_id="fc_1", content=(TextBlock(text="snow"),)),
            ),
        ),
    )
    body = await sent(server, make_provider, request)
    assert [p["functionResponse"]["id"] for p in body["contents"][2]["parts"]] == ["fc_1", "fc_2"]


async def test_images_a_tool_returned_follow_its_function_response(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    call = ToolUseBlock(id="fc_1", name="snapshot", input={})
    png = b"\x89PNG\r\n"
    request = ask(
        Message.user("Look."),
        Message.assistant([call]),
        tool_message("fc_1", TextBlock(text="taken"), ImageBlock(media_type="image/png", data=png)),
    )
    body = await sent(server, make_provider, request)
    assert body["contents"][2]["parts"] == [
        {"functionResponse": {"name": "snapshot", "response": {"output": "taken"}, "id": "fc_1"}},
        {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(png).decode()}},
    ]


async def test_a_later_system_message_is_user_text_merged_with_the_user_turn_beside_it(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    request = ask(
        Message.user("hi"),
        Message.assistant("hello"),
        Message.system("Now answer formally."),
        Message.user("how are you?"),
    )
    body = await sent(server, make_provider, request)
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "hello"}]},
        {"role": "user", "parts": [{"text": "Now answer formally."}, {"text": "how are you?"}]},
    ]
    assert "systemInstruction" not in body


async def test_a_document_given_as_text_is_a_text_part_under_its_title(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    doc = DocumentBlock(media_type="text/plain", text="Line one.", title="notes.txt")
    body = await sent(server, make_provider, ask(Message.user([doc])))
    assert body["contents"][0]["parts"] == [{"text": "notes.txt\n\nLine one."}]


@pytest.mark.parametrize(("choice", "mode"), [("auto", "AUTO"), ("any", "ANY"), ("none", "NONE")])
async def test_each_tool_choice_is_its_function_calling_mode(
    server: WireServer, make_provider: ProviderMaker, choice: str, mode: str
) -> None:
    request = ask(Message.user("hi"), tools=(WEATHER,), options=CallOptions(tool_choice=choice))
    body = await sent(server, make_provider, request)
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": mode}}


async def test_a_zero_thinking_budget_turns_thinking_off_without_asking_for_thoughts(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    body = await sent(
        server, make_provider, ask(Message.user("hi"), options=CallOptions(thinking_budget=0))
    )
    assert body["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 0}}


async def test_provider_settings_fill_what_a_call_leaves_unset(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    safety = {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}
    body = await sent(
        server, make_provider, ask(Message.user("hi")), max_tokens=300, safety_settings=[safety]
    )
    assert body["safetySettings"] == [safety]
    assert body["generationConfig"] == {"maxOutputTokens": 300}


async def test_a_signature_read_on_a_text_part_goes_back_on_it(
    server: WireServer, make_provider: ProviderMaker
) -> None:
    signed = TextBlock(text="4", extra={"google": {"part": {"thoughtSignature": "REVG"}}})
    request = ask(Message.user("2+2?"), Message.assistant([signed]), Message.user("sure?"))
    body = await sent(server, make_provider, request)
    assert body["contents"][1] == {
        "role": "model",
        "parts": [{"text": "4", "thoughtSignature": "REVG"}],
    }
