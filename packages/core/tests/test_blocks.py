"""Blocks and messages: construction rules and exact JSON round trips."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from automata.core import (
    TRANSCRIPT_VERSION,
    Block,
    ImageBlock,
    Message,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    TranscriptError,
    TranscriptVersionError,
    Usage,
    dump_messages,
    load_messages,
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)
json_objects = st.dictionaries(st.text(), json_values, max_size=4)

text_blocks = st.builds(TextBlock, text=st.text())
thinking_blocks = st.builds(ThinkingBlock, thinking=st.text(), signature=st.text())
tool_use_blocks = st.builds(
    ToolUseBlock, id=st.text(min_size=1), name=st.text(min_size=1), input=json_objects
)
inline_images = st.builds(
    ImageBlock, media_type=st.sampled_from(["image/png", "image/jpeg"]), data=st.binary()
)
url_images = st.builds(ImageBlock, url=st.text(min_size=1))
raw_blocks = st.builds(
    RawBlock,
    provider=st.sampled_from(["anthropic", "openai"]),
    data=json_objects.map(lambda d: {"type": "redacted_thinking", **d}),
)
result_content = st.lists(text_blocks | inline_images | url_images, max_size=3)
tool_result_blocks = st.builds(
    ToolResultBlock,
    tool_use_id=st.text(min_size=1),
    content=result_content,
    is_error=st.booleans(),
)
any_block = (
    text_blocks
    | thinking_blocks
    | tool_use_blocks
    | inline_images
    | url_images
    | raw_blocks
    | tool_result_blocks
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    content=st.lists(any_block, max_size=4),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(messages, max_size=5))
def test_any_transcript_round_trips_exactly_through_json(transcript: list[Message]) -> None:
    restored = load_messages(dump_messages(transcript))
    assert restored == transcript
    assert dump_messages(restored) == dump_messages(transcript)


@pytest.mark.parametrize(
    "block",
    [
        TextBlock(text="hello"),
        ThinkingBlock(thinking="hmm", signature="sig=="),
        ToolUseBlock(id="t1", name="f", input={"a": [1, 2.5, None, {"b": True}]}),
        ToolResultBlock(
            tool_use_id="t1",
            content=(TextBlock(text="ok"), ImageBlock(media_type="image/png", data=b"\x00\xff")),
            is_error=True,
        ),
        ImageBlock(media_type="image/png", data=b"\x89PNG\r\n"),
        ImageBlock(url="https://example.com/cat.png"),
        RawBlock(provider="anthropic", data={"type": "redacted_thinking", "data": "opaque"}),
    ],
    ids=lambda b: b.type,
)
def test_each_block_type_round_trips_with_its_type_tag(block: Block) -> None:
    message = Message(role="assistant", content=(block,))
    text = dump_messages([message])
    assert json.loads(text)["messages"][0]["content"][0]["type"] == message.content[0].type
    assert load_messages(text) == [message]


def test_inline_image_data_is_base64_in_json_and_bytes_in_python() -> None:
    image = ImageBlock(media_type="image/png", data=b"\x89PNG")
    encoded = json.loads(dump_messages([Message.user([image])]))["messages"][0]["content"][0]
    assert encoded["data"] == "iVBORw=="
    assert load_messages(dump_messages([Message.user([image])]))[0].content[0] == image


def test_an_image_needs_exactly_one_of_data_and_url() -> None:
    with pytest.raises(ValidationError, match="exactly one of data or url"):
        ImageBlock(media_type="image/png")
    with pytest.raises(ValidationError, match="exactly one of data or url"):
        ImageBlock(media_type="image/png", data=b"x", url="https://x")


def test_inline_image_needs_a_media_type() -> None:
    with pytest.raises(ValidationError, match="media_type"):
        ImageBlock(data=b"x")


def test_raw_block_reports_the_providers_own_type() -> None:
    assert RawBlock(provider="anthropic", data={"type": "server_tool_use"}).kind == (
        "server_tool_use"
    )


def test_messages_and_blocks_are_frozen() -> None:
    message = Message.user("hi")
    with pytest.raises(ValidationError):
        message.role = "assistant"
    block = message.content[0]
    assert isinstance(block, TextBlock)
    with pytest.raises(ValidationError):
        block.text = "changed"


def test_message_text_joins_text_blocks_and_tool_calls_keep_model_order() -> None:
    message = Message.assistant(
        [
            TextBlock(text="a"),
            ToolUseBlock(id="2", name="x", input={}),
            TextBlock(text="b"),
            ToolUseBlock(id="1", name="y", input={}),
        ]
    )
    assert message.text == "ab"
    assert [c.id for c in message.tool_calls] == ["2", "1"]


def test_usage_adds_field_by_field() -> None:
    total = Usage(input_tokens=1, output_tokens=2, cache_read_tokens=3, cache_write_tokens=4) + (
        Usage(input_tokens=10, output_tokens=20, cache_read_tokens=30, cache_write_tokens=40)
    )
    assert total == Usage(
        input_tokens=11, output_tokens=22, cache_read_tokens=33, cache_write_tokens=44
    )


@pytest.mark.parametrize(
    ("blob", "where"),
    [
        ("not json", "<root>"),
        ('{"role": "user"}', "<root>"),
        ('[{"role": "robot", "content": []}]', "0.role"),
        ('[{"role": "user", "content": [{"type": "video"}]}]', "0.content.0"),
        ('[{"role": "user", "content": [{"type": "text"}]}]', "0.content.0.text.text"),
        (
            '[{"role": "user", "content": [{"type": "image", "media_type": "image/png",'
            ' "data": "%%%"}]}]',
            "0.content.0.image",
        ),
    ],
)
def test_malformed_transcript_raises_transcript_error_naming_where(blob: str, where: str) -> None:
    with pytest.raises(TranscriptError, match="invalid transcript at") as caught:
        load_messages(blob)
    assert where in str(caught.value)


# -- transcript format versions ------------------------------------------------------


def test_a_dumped_transcript_names_its_format_and_version() -> None:
    envelope = json.loads(dump_messages([Message.user("hi")]))
    assert envelope == {
        "format": "automata.transcript",
        "version": TRANSCRIPT_VERSION,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert TRANSCRIPT_VERSION == 1


def test_a_bare_list_written_before_versions_still_loads() -> None:
    blob = '[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]'
    assert load_messages(blob) == [Message.user("hi")]


def test_a_transcript_of_a_newer_version_is_refused_naming_both_versions() -> None:
    blob = '{"format": "automata.transcript", "version": 2, "messages": []}'
    with pytest.raises(TranscriptVersionError) as caught:
        load_messages(blob)
    assert str(caught.value) == (
        "transcript format version 2 is newer than this automata-ai-core reads "
        "(up to version 1); upgrade automata-ai-core to load it"
    )
    assert (caught.value.found, caught.value.supported) == (2, 1)
    assert isinstance(caught.value, TranscriptError)


def test_an_object_that_is_not_a_transcript_envelope_is_refused() -> None:
    with pytest.raises(TranscriptError) as caught:
        load_messages('{"format": "something.else", "version": 1, "messages": []}')
    assert str(caught.value) == (
        'invalid transcript at <root>: expected {"format": "automata.transcript", '
        '"version": ..., "messages": [...]}, as dump_messages writes'
    )


@pytest.mark.parametrize("version", ["1", 0, True, None])
def test_a_transcript_version_that_is_not_a_whole_number_from_one_is_refused(
    version: object,
) -> None:
    blob = json.dumps({"format": "automata.transcript", "version": version, "messages": []})
    with pytest.raises(TranscriptError) as caught:
        load_messages(blob)
    assert str(caught.value) == (
        f"invalid transcript at version: expected a whole number of at least 1, got {version!r}"
    )


def test_an_envelope_without_messages_is_refused() -> None:
    with pytest.raises(TranscriptError) as caught:
        load_messages('{"format": "automata.transcript", "version": 1}')
    assert str(caught.value) == "invalid transcript at messages: Field required"


def test_vendor_extras_and_unreadable_arguments_survive_a_round_trip() -> None:
    transcript = [
        Message(
            role="assistant",
            content=[
                TextBlock(text="a", extra={"anthropic": {"citations": [{"cited_text": "x"}]}}),
                ThinkingBlock(thinking="t", extra={"openai": {"reasoning_details": []}}),
                ToolUseBlock(id="1", name="t", input={}, input_error="arguments were cut off"),
            ],
        )
    ]
    assert load_messages(dump_messages(transcript)) == transcript


def test_unset_extras_are_left_out_of_a_dump() -> None:
    dumped = dump_messages(
        [
            Message.user("hi"),
            Message(role="assistant", content=[ToolUseBlock(id="1", name="t", input={})]),
        ]
    )
    assert "extra" not in dumped
    assert "input_error" not in dumped


# -- values JSON cannot hold exactly ---------------------------------------------------

NON_FINITE = "is not a finite number; JSON has no NaN or infinities, so transcripts never hold them"


def envelope(messages_json: str) -> str:
    return f'{{"format": "automata.transcript", "version": 1, "messages": {messages_json}}}'


def calling_with(value: str) -> str:
    """A transcript whose tool call has the argument `x` written as `value`."""
    return envelope(
        '[{"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "t",'
        f' "input": {{"x": [1, {value}]}}}}]}}]'
    )


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("NaN", "nan"),
        ("Infinity", "inf"),
        ("-Infinity", "-inf"),
        ("1e999999", "inf"),
        ("-1e999999", "-inf"),
    ],
)
def test_loading_a_number_json_cannot_hold_is_refused_naming_where(written: str, read: str) -> None:
    with pytest.raises(TranscriptError) as caught:
        load_messages(calling_with(written))
    assert str(caught.value) == f"invalid transcript at 0.content.0.input.x.1: {read} {NON_FINITE}"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_dumping_a_tool_call_with_a_non_finite_number_is_refused(value: float) -> None:
    call = ToolUseBlock(id="1", name="t", input={"x": [1, value]})
    with pytest.raises(TranscriptError) as caught:
        dump_messages([Message.user("hi"), Message.assistant([call])])
    assert str(caught.value) == (
        f"invalid transcript at 1.content.0.input.x.1: {value!r} {NON_FINITE}"
    )


def test_dumping_a_raw_block_inside_a_tool_result_with_nan_is_refused() -> None:
    raw = RawBlock(provider="anthropic", data={"type": "search_result", "score": float("nan")})
    result = ToolResultBlock(tool_use_id="1", content=(raw,))
    with pytest.raises(TranscriptError) as caught:
        dump_messages([Message(role="tool", content=(result,))])
    assert str(caught.value) == (
        f"invalid transcript at 0.content.0.content.0.data.score: nan {NON_FINITE}"
    )


def test_dumping_text_with_a_lone_surrogate_is_refused_naming_where() -> None:
    with pytest.raises(TranscriptError) as caught:
        dump_messages([Message.user("ok \ud800")])
    assert str(caught.value) == (
        "invalid transcript at 0.content.0.text: a lone surrogate ('\\ud800') "
        "cannot be written as UTF-8 JSON"
    )


def test_loading_text_with_a_lone_surrogate_is_refused_naming_where() -> None:
    blob = envelope('[{"role": "user", "content": [{"type": "text", "text": "ok \\ud800"}]}]')
    with pytest.raises(TranscriptError) as caught:
        load_messages(blob)
    assert str(caught.value) == (
        "invalid transcript at 0.content.0.text: a lone surrogate ('\\ud800') "
        "cannot be written as UTF-8 JSON"
    )


def test_dumping_an_integer_too_long_to_read_back_is_refused() -> None:
    call = ToolUseBlock(id="1", name="t", input={"x": 10**5000})
    with pytest.raises(TranscriptError) as caught:
        dump_messages([Message.assistant([call])])
    assert str(caught.value) == (
        "invalid transcript at 0.content.0.input.x: an integer of more than "
        f"{sys.get_int_max_str_digits()} digits, which load_messages cannot read back"
    )


def test_loading_json_nested_too_deeply_is_refused() -> None:
    with pytest.raises(TranscriptError) as caught:
        load_messages("[" * 100_000)
    assert str(caught.value) == "invalid transcript at <root>: not JSON (nested too deeply)"


wide_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.just(5000).map(lambda digits: 10**digits)
    | st.floats()
    | st.text(st.characters(exclude_categories=()))
)
wide_values = st.recursive(
    wide_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(st.characters(exclude_categories=())), inner, max_size=3)
    ),
    max_leaves=10,
)
wide_messages = st.builds(
    Message,
    role=st.sampled_from(["user", "assistant", "tool"]),
    content=st.lists(
        st.builds(TextBlock, text=st.text(st.characters(exclude_categories=())))
        | st.builds(
            ToolUseBlock,
            id=st.text(min_size=1),
            name=st.text(min_size=1),
            input=st.dictionaries(st.text(), wide_values, max_size=3),
        )
        | st.builds(
            RawBlock,
            provider=st.just("anthropic"),
            data=st.dictionaries(st.text(), wide_values, max_size=3),
        ),
        max_size=3,
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(wide_messages, max_size=4))
def test_any_transcript_that_dumps_loads_back_equal(transcript: list[Message]) -> None:
    """NaN, infinities, lone surrogates and over-long integers included: dumping either
    refuses with `TranscriptError` or writes JSON that loads back equal."""
    try:
        written = dump_messages(transcript)
    except TranscriptError:
        return  # refused, typed
    assert load_messages(written) == transcript
