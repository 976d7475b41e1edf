"""The stdio transport's line splitter: lines split anywhere across chunks come out
whole and in order, and what follows the last newline waits for the next chunk."""

from __future__ import annotations

from automata.mcp._stdio import LineSplitter


def test_lines_across_chunk_boundaries_come_out_whole_and_in_order() -> None:
    """P11"""
    stream = b'{"a": 1}\n{"b": "two"}\n\n{"c": [3]}\n{"partial"'
    for size in (1, 2, 3, 7, len(stream)):
        splitter = LineSplitter()
        lines = [
            line
            for start in range(0, len(stream), size)
            for line in splitter.feed(stream[start : start + size])
        ]
        assert lines == [b'{"a": 1}', b'{"b": "two"}', b"", b'{"c": [3]}'], size
        assert splitter.feed(b"}\n") == [b'{"partial"}']


def test_a_long_line_is_kept_as_parts_until_its_newline() -> None:
    """P11"""
    splitter = LineSplitter()
    chunk = b"x" * 65536
    assert all(splitter.feed(chunk) == [] for _ in range(100))
    [line] = splitter.feed(b"\n")
    assert line == chunk * 100
