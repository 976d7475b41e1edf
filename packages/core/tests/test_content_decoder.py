"""`ContentDecoder`: a body's content codings undone a bounded slice at a time, with the
caller's check run on every slice (the decoder the providers' reply cap and
`automata.tools`' http_fetch share)."""

from __future__ import annotations

import gzip
import zlib

import pytest

from automata.core.providers import ContentDecoder

TEXT = b"snow in oslo " * 20_000  # 260 kB, several slices


def decode(decoder: ContentDecoder, *chunks: bytes) -> list[bytes]:
    return [piece for chunk in chunks for piece in decoder.feed(chunk)]


def raw_deflate(body: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(body) + compressor.flush()


@pytest.mark.parametrize(
    ("codings", "wire"),
    [
        ((), TEXT),
        (("gzip",), gzip.compress(TEXT)),
        (("x-gzip",), gzip.compress(TEXT)),
        (("deflate",), zlib.compress(TEXT)),
        (("deflate",), raw_deflate(TEXT)),
        (("deflate", "gzip"), gzip.compress(zlib.compress(TEXT))),
        (("gzip",), gzip.compress(TEXT[:1000]) + gzip.compress(TEXT[1000:])),
    ],
    ids=["identity", "gzip", "x-gzip", "deflate", "raw-deflate", "stacked", "two-members"],
)
def test_every_coding_decodes_to_the_body_in_slices_no_larger_than_slice(
    codings: tuple[str, ...], wire: bytes
) -> None:
    decoder = ContentDecoder(codings)
    pieces = decode(decoder, wire[:5000], wire[5000:])
    assert b"".join(pieces) == TEXT
    assert max(map(len, pieces)) <= ContentDecoder.SLICE
    assert decoder.complete
    assert decoder.decodes == bool(codings)


def test_the_check_sees_every_slice_before_it_is_handed_on() -> None:
    seen: list[tuple[int, int]] = []

    def refuse_past_half(decoded: int, consumed: int) -> None:
        seen.append((decoded, consumed))
        if decoded > len(TEXT) // 2:
            raise OverflowError(decoded)

    wire = gzip.compress(TEXT)
    decoder = ContentDecoder(["gzip"], check=refuse_past_half)
    handed_on: list[bytes] = []

    def read() -> None:
        handed_on.extend(decoder.feed(wire))

    with pytest.raises(OverflowError):
        read()
    assert sum(map(len, handed_on)) <= len(TEXT) // 2
    assert [decoded for decoded, _ in seen] == sorted({decoded for decoded, _ in seen})
    assert all(1 <= consumed <= len(wire) for _, consumed in seen)


def test_a_truncated_body_is_not_complete_and_a_corrupt_one_raises_zlib_error() -> None:
    truncated = ContentDecoder(["gzip"])
    decode(truncated, gzip.compress(TEXT)[:-100])
    assert not truncated.complete
    with pytest.raises(zlib.error):
        decode(ContentDecoder(["gzip"]), b"not gzip at all")


def test_an_unknown_coding_is_a_value_error_and_codings_of_drops_identity() -> None:
    with pytest.raises(ValueError, match="'br'"):
        ContentDecoder(["br"])
    assert ContentDecoder.codings_of([" GZIP", "identity", "", "deflate"]) == ("gzip", "deflate")
