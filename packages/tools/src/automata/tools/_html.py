"""HTML to Markdown in one pass, in time linear in the page, whatever the page does.

Guarantees, for any input string:

- Linear time and no recursion. The tokenizer finds each `<`, `>`, quote and comment
  end with memoised forward searches, so no byte is rescanned however many tags are
  left unterminated; the open-element stack is at most `MAX_DEPTH` deep (deeper tags
  keep their text and lose their structure), and only the innermost `MAX_NESTING`
  lists and quotes indent a line, so the output grows at most linearly too.
- It stops at a deadline: `convert` raises `ConversionTimeout` when
  `time.monotonic()` passes it (checked every few hundred tags), so a conversion
  running in a worker thread does not outlive the fetch that wanted it.
- Non-content elements (`script`, `style`, `head`, `svg`, `iframe`, ...) are dropped
  with everything inside; `data:` images become their alt text.

It is a reader, not a validator: markup browsers would repair differently (a `>`
inside an unquoted attribute, misnested inline tags) may come out slightly otherwise
than a browser renders it, but every character of text is kept or deliberately dropped.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field

__all__ = ["MAX_DEPTH", "MAX_NESTING", "ConversionTimeout", "convert"]

MAX_DEPTH = 256
"""Open elements tracked at once; tags nested deeper are read as plain text containers."""
MAX_NESTING = 8
"""List and quote levels that indent; deeper levels are laid out like the eighth."""

_CHECK_EVERY = 512

_VOID = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    }
)
_SKIPPED = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "iframe",
        "object",
        "embed",
        "svg",
        "canvas",
        "head",
        "math",
    }
)
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "plaintext"})
_BLOCKS = frozenset(
    {
        "address",
        "article",
        "aside",
        "dd",
        "details",
        "dialog",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "header",
        "hgroup",
        "main",
        "nav",
        "p",
        "section",
        "summary",
        "body",
        "html",
        "center",
    }
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_EMPHASIS = {"b": "**", "strong": "**", "i": "*", "em": "*", "code": "`", "kbd": "`"}
# Start tags that close an open element of these names first (as browsers do).
_CLOSES = {
    "p": frozenset({"p"}),
    "li": frozenset({"li", "p"}),
    "dt": frozenset({"dt", "dd", "p"}),
    "dd": frozenset({"dt", "dd", "p"}),
    "tr": frozenset({"td", "th", "tr", "p"}),
    "td": frozenset({"td", "th", "p"}),
    "th": frozenset({"td", "th", "p"}),
    "option": frozenset({"option"}),
}
_CLOSES_P = frozenset({"p"})
# A tag without quotes or stray `<` in it, matched in one step; the rest go to `markup`.
_SIMPLE_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>\x00<\"']*)([^<>\"']*)>")
_NAME = re.compile(r"/?([A-Za-z][^\s/>\x00]*)")
_ATTRIBUTE = re.compile(r"""([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_SPACE = re.compile(r"[ \t\n\r\f]+")
_BLANK_RUNS = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


class ConversionTimeout(Exception):
    """The conversion passed its deadline."""


class _Finder:
    """`text.find(needle, start)` for non-decreasing starts, each byte searched once."""

    def __init__(self, text: str, needle: str) -> None:
        self._text = text
        self._needle = needle
        self._from = -1
        self._found = -1

    def find(self, start: int) -> int:
        if self._from != -1 and start >= self._from and (self._found == -1 or self._found >= start):
            return self._found
        self._from = start
        self._found = self._text.find(self._needle, start)
        return self._found


@dataclass(slots=True)
class _Frame:
    """One open element, and what closing it must do."""

    name: str
    mark: int = 0  # where its inline content starts in `_Writer.inline`
    generation: int = 0  # `_Writer.generation` when it opened: `mark` is void once it moves
    data: str = ""  # href for a link, marker for emphasis
    wraps: bool = False  # closing it wraps its inline content (a link or emphasis)
    flat: bool = False  # opened inside a table cell: its structure is ignored


@dataclass(slots=True)
class _Writer:
    """Markdown output: finished lines, plus the paragraph being filled."""

    lines: list[str] = field(default_factory=list)
    inline: list[str] = field(default_factory=list)
    generation: int = 0  # counts flushes of `inline`
    prefixes: list[list[str]] = field(default_factory=list)  # [first, rest] per level
    hidden_levels: int = 0  # list/quote levels past MAX_NESTING
    pre: int = 0
    cell: list[str] | None = None
    row: list[str] | None = None
    rows_in_table: int = 0

    def text(self, value: str) -> None:
        if self.pre:
            self.inline.append(value)
        else:
            self.inline.append(_SPACE.sub(" ", value))

    def flush(self) -> None:
        """End the current line of text (a block boundary)."""
        if not self.inline:
            return
        raw = "".join(self.inline)
        self.inline.clear()
        self.generation += 1
        if self.cell is not None:
            self.cell.append(raw)
            return
        if self.pre:
            self.emit(["```", *raw.strip("\n").split("\n"), "```"])
            return
        text = raw.strip()
        if text:
            self.emit(text.split("\n"))

    def emit(self, lines: list[str]) -> None:
        if not self.prefixes:
            self.lines.extend(lines)
            return
        for line in lines:
            prefix = "".join(level[0] for level in self.prefixes)
            for level in self.prefixes:
                level[0] = level[1]
            self.lines.append(prefix + line)

    def blank(self) -> None:
        if self.inline:
            self.flush()
        if self.cell is None and self.lines and self.lines[-1].strip(" >"):
            self.emit([""])

    def open_level(self, first: str, rest: str) -> None:
        if len(self.prefixes) >= MAX_NESTING:
            self.hidden_levels += 1
        else:
            self.prefixes.append([first, rest])

    def close_level(self) -> None:
        if self.hidden_levels:
            self.hidden_levels -= 1
        elif self.prefixes:
            self.prefixes.pop()

    def result(self) -> str:
        self.flush()
        while self.lines and not self.lines[-1].strip(" >"):
            self.lines.pop()  # blank (or quote-only) lines at the end
        text = "\n".join(line.rstrip() for line in self.lines)
        return _BLANK_RUNS.sub("\n\n", text).strip()


class _Converter:
    def __init__(self, source: str, deadline: float) -> None:
        self.source = source
        self.lower = source.lower()
        self.deadline = deadline
        self.out = _Writer()
        self.stack: list[_Frame] = []
        self.open_count: dict[str, int] = {}
        self.skipping = 0  # depth inside a non-content element
        self.lists: list[list[int]] = []  # per open list: [next number or 0 if bulleted]
        self.title: str | None = None
        self.finders: dict[str, _Finder] = {}
        self.wraps = 0  # open frames that wrap their content (bounded: see `opened`)

    def finder(self, needle: str, *, lower: bool = False) -> _Finder:
        key = ("L" if lower else "S") + needle
        found = self.finders.get(key)
        if found is None:
            found = self.finders[key] = _Finder(self.lower if lower else self.source, needle)
        return found

    def run(self) -> tuple[str | None, str]:
        source = self.source
        end = len(source)
        position = 0
        tags = 0
        simple = _SIMPLE_TAG.match
        while position < end:
            # Each search starts past the last `<`, so `<`s are searched for once.
            start = source.find("<", position)
            if start == -1:
                self.data(source[position:])
                break
            if start > position:
                self.data(source[position:start])
            tags += 1
            if tags % _CHECK_EVERY == 0 and time.monotonic() > self.deadline:
                raise ConversionTimeout
            match = simple(source, start)
            if match is None:
                position = self.markup(start)  # comments, quotes, odd or unfinished tags
                continue
            position = match.end()
            name = match.group(2).lower()
            attributes = match.group(3)
            if match.group(1):
                self.end_tag(name)
            elif name in _RAW_TEXT:
                position = self.raw_text(name, attributes, position)
            else:
                self.start_tag(name, attributes, self_closing=attributes.endswith("/"))
        while self.stack:
            self.pop()
        return self.title, self.out.result()

    def data(self, text: str) -> None:
        if not self.skipping and text:
            self.out.text(html.unescape(text))

    def markup(self, start: int) -> int:
        """Handle what starts with `<` at `start`; returns where reading resumes."""
        source = self.source
        after = source[start + 1 : start + 4]
        if after.startswith("!--"):
            close = self.finder("-->").find(start + 4)
            return len(source) if close == -1 else close + 3
        if after[:1] in ("!", "?"):
            close = self.finder(">").find(start + 2)
            return len(source) if close == -1 else close + 1
        match = _NAME.match(source, start + 1)
        if match is None:
            self.data("<")
            return start + 1
        close = self.tag_end(match.end())
        if close == -1:
            self.data(source[start:])  # no `>` anywhere after: the rest is text
            return len(source)
        name = match.group(1).lower()
        if source[start + 1] == "/":
            self.end_tag(name)
            return close + 1
        attributes = source[match.end() : close]
        if name in _RAW_TEXT:
            return self.raw_text(name, attributes, close + 1)
        self.start_tag(name, attributes, self_closing=attributes.rstrip().endswith("/"))
        return close + 1

    def tag_end(self, position: int) -> int:
        """The `>` ending a tag whose attributes start at `position`, skipping quoted values."""
        gt = self.finder(">")
        quotes = (self.finder('"'), self.finder("'"))
        while True:
            close = gt.find(position)
            if close == -1:
                return -1
            opens = [q for q in (quotes[0].find(position), quotes[1].find(position)) if q != -1]
            quote = min(opens) if opens else -1
            if quote == -1 or quote > close:
                return close
            matching = self.finder(self.source[quote]).find(quote + 1)
            if matching == -1:
                return close  # an unterminated quote: end the tag at the first `>`
            position = matching + 1

    def raw_text(self, name: str, attributes: str, body: int) -> int:
        close = self.finder(f"</{name}", lower=True).find(body)
        content = self.source[body : len(self.source) if close == -1 else close]
        if name == "title":
            if self.title is None:
                self.title = _SPACE.sub(" ", html.unescape(content)).strip() or None
        elif name not in _SKIPPED and not self.skipping:
            self.start_tag(name, attributes, self_closing=False)
            self.out.text(html.unescape(content))
            self.end_tag(name)
        if close == -1:
            return len(self.source)
        gt = self.finder(">").find(close)
        return len(self.source) if gt == -1 else gt + 1

    def start_tag(self, name: str, attributes: str, *, self_closing: bool) -> None:
        closes = _CLOSES.get(name)
        if closes is None and (name in _BLOCKS or name in _HEADINGS or name in _LAYOUT):
            closes = _CLOSES_P
        while closes and self.stack and self.stack[-1].name in closes:
            self.pop()
        if name in _VOID or self_closing:
            if not self.skipping:
                self.void(name, attributes)
            return
        if len(self.stack) >= MAX_DEPTH:
            return  # too deep: its text is kept, its structure is not
        frame = _Frame(name, len(self.out.inline), self.out.generation)
        self.stack.append(frame)
        self.open_count[name] = self.open_count.get(name, 0) + 1
        if self.skipping or name in _SKIPPED:
            self.skipping += 1
            return
        self.opened(frame, attributes)

    def end_tag(self, name: str) -> None:
        if not self.open_count.get(name):
            return  # nothing of that name is open: a stray end tag
        while self.stack:
            if self.pop().name == name:
                return

    def pop(self) -> _Frame:
        frame = self.stack.pop()
        self.open_count[frame.name] -= 1
        if self.skipping:
            self.skipping -= 1
        else:
            self.closed(frame)
        return frame

    def void(self, name: str, attributes: str) -> None:
        out = self.out
        if name == "br":
            out.inline.append("\n")
        elif name == "hr":
            out.blank()
            out.emit(["---"])
            out.blank()
        elif name == "img":
            values = _attributes(attributes)
            alt = _SPACE.sub(" ", values.get("alt", "")).strip()
            src = values.get("src", "").strip()
            if src and not src.lower().startswith("data:"):
                out.inline.append(f"![{alt}]({src})")
            elif alt:
                out.inline.append(alt)

    def opened(self, frame: _Frame, attributes: str) -> None:
        out = self.out
        name = frame.name
        if name in ("a", *_EMPHASIS):
            # At most two wrappers open at once, so wrapping stays linear in the page.
            href = _attributes(attributes).get("href", "").strip() if name == "a" else ""
            if self.wraps < 2 and not out.pre and (href or name != "a"):
                frame.data = href if name == "a" else _EMPHASIS[name]
                frame.wraps = True
                self.wraps += 1
            return
        if out.cell is not None:
            # Structure inside a table cell (lists, nested tables) is read as text.
            frame.flat = True
            out.text(" ")
            return
        if name in ("td", "th") and out.row is not None:
            out.flush()
            out.cell = []
        elif name == "tr":
            out.flush()
            out.row = []
        elif name == "table":
            out.blank()
            out.rows_in_table = 0
        elif name in ("thead", "tbody", "tfoot"):
            out.flush()
        elif name in _BLOCKS or name in _LAYOUT:
            out.blank()
        elif name in _HEADINGS:
            out.blank()
            frame.mark, frame.generation = len(out.inline), out.generation
        elif name in ("ul", "ol", "menu"):
            if self.lists:
                out.flush()
            else:
                out.blank()
            self.lists.append([1 if name == "ol" else 0])
        elif name == "li":
            out.flush()
            numbering = self.lists[-1] if self.lists else [0]
            bullet = f"{numbering[0]}. " if numbering[0] else "- "
            if numbering[0]:
                numbering[0] += 1
            out.open_level(bullet, " " * len(bullet))
        elif name == "blockquote":
            out.blank()
            out.open_level("> ", "> ")
        elif name == "pre":
            out.blank()
            out.pre += 1

    def closed(self, frame: _Frame) -> None:
        out = self.out
        name = frame.name
        if frame.wraps:
            self.wraps -= 1
            if frame.generation == out.generation:
                if name == "a":
                    _wrap(out.inline, frame.mark, "[", f"]({frame.data})")
                else:
                    _wrap(out.inline, frame.mark, frame.data, frame.data)
            return
        if frame.flat:
            out.text(" ")
            return
        if name in ("td", "th") and out.cell is not None and out.row is not None:
            out.flush()
            cell = " ".join(part.strip() for part in out.cell if part.strip())
            out.row.append(cell.replace("|", "\\|").replace("\n", " "))
            out.cell = None
        elif name == "tr" and out.row is not None:
            out.flush()
            row, out.row = out.row, None
            if row:
                out.emit(["| " + " | ".join(row) + " |"])
                if out.rows_in_table == 0:
                    out.emit(["| " + " | ".join("---" for _ in row) + " |"])
                out.rows_in_table += 1
        elif name in ("thead", "tbody", "tfoot"):
            out.flush()
        elif name in _BLOCKS or name in _LAYOUT:
            out.blank()
        elif name in _HEADINGS:
            text = ""
            if frame.generation == out.generation:
                text = _SPACE.sub(" ", "".join(out.inline[frame.mark :])).strip()
                del out.inline[frame.mark :]
            out.flush()
            if text:
                out.emit(["#" * _HEADINGS[name] + " " + text])
            out.blank()
        elif name in ("ul", "ol", "menu"):
            if self.lists:
                self.lists.pop()
            if self.lists:
                out.flush()
            else:
                out.blank()
        elif name == "li":
            out.flush()
            out.close_level()
        elif name == "blockquote":
            out.flush()
            if out.lines and not out.lines[-1].strip(" >") and out.cell is None:
                out.lines.pop()  # the blank line ending its last paragraph
            out.close_level()
            out.blank()
        elif name == "pre":
            out.flush()
            out.pre = max(out.pre - 1, 0)
            out.blank()


_LAYOUT = frozenset({"table", "tr", "td", "th", "thead", "tbody", "tfoot", "caption"})


def _wrap(inline: list[str], mark: int, before: str, after: str) -> None:
    """Wrap the inline text from `mark` on, keeping its outer spaces outside the markers."""
    text = "".join(inline[mark:])
    del inline[mark:]
    core = text.strip()
    if not core:
        inline.append(text)
        return
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()) :]
    inline.append(f"{lead}{before}{core}{after}{trail}")


def _attributes(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        name = match.group(1).lower()
        if name not in values:
            value = next((g for g in match.groups()[1:] if g is not None), "")
            values[name] = html.unescape(value)
    return values


def convert(source: str, *, deadline: float) -> tuple[str | None, str]:
    """The page's title (if any) and its content as Markdown.

    Raises `ConversionTimeout` once `time.monotonic()` passes `deadline`.
    """
    return _Converter(source, deadline).run()
