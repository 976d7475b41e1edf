"""The HTML-to-Markdown converter behind http_fetch: what it renders, and its bounds."""

from __future__ import annotations

import time

import pytest

from automata.tools._html import MAX_DEPTH, MAX_NESTING, ConversionTimeout, convert


def markdown(page: str) -> str:
    return convert(page, deadline=time.monotonic() + 30)[1]


def test_the_first_title_is_returned_apart_from_the_content() -> None:
    title, text = convert(
        "<head><title>A &amp; B</title></head><p>body</p>", deadline=time.monotonic() + 30
    )
    assert (title, text) == ("A & B", "body")


def test_headings_links_and_emphasis_become_markdown() -> None:
    page = '<h2>Intro</h2><p>See <a href="/d">the <b>docs</b></a>, <em>now</em>.</p>'
    assert markdown(page) == "## Intro\n\nSee [the **docs**](/d), *now*."


def test_nested_lists_are_indented_and_ordered_lists_numbered() -> None:
    page = "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul><ol><li>x<li>y</ol>"
    assert markdown(page) == "- a\n  - b\n- c\n\n1. x\n2. y"


def test_tables_become_pipe_tables() -> None:
    page = "<table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td><ul><li>1</ul></td></tr>"
    assert markdown(page) == "| k | v |\n| --- | --- |\n| a\\|b | 1 |"


def test_preformatted_text_keeps_its_lines() -> None:
    assert markdown("<pre>a  b\n  c &lt; d</pre>") == "```\na  b\n  c < d\n```"


def test_quotes_prefix_every_line() -> None:
    assert markdown("<blockquote><p>one</p><p>two</p></blockquote>") == "> one\n>\n> two"


def test_non_content_elements_are_dropped_with_their_content() -> None:
    page = (
        "<p>kept</p><script>if (a<b) x()</script><svg><text>no</text></svg><noscript>no</noscript>"
    )
    assert markdown(page) == "kept"


def test_a_quoted_attribute_may_hold_a_greater_than_sign() -> None:
    assert markdown('<a href="/x" title="a>b">link</a>') == "[link](/x)"


def test_text_nested_past_the_depth_limit_is_kept() -> None:
    assert markdown("<div>" * (MAX_DEPTH * 4) + "deep text") == "deep text"


def test_two_hundred_thousand_nested_tags_do_not_raise() -> None:
    assert markdown("<span>" * 200_000 + "x" + "</span>" * 200_000) == "x"


def test_indentation_stops_growing_past_the_nesting_limit() -> None:
    text = markdown("<blockquote>" * (MAX_NESTING * 3) + "x")
    assert text == "> " * MAX_NESTING + "x"


def test_a_conversion_past_its_deadline_stops() -> None:
    with pytest.raises(ConversionTimeout):
        convert("<p>x" * 100_000, deadline=time.monotonic() - 1)
