"""The frame every page of the HTML report shares: one inline stylesheet, a header, and
small formatting helpers. Pages hold no script and load nothing (the favicon is an
empty data URL, so a browser asks the server for nothing but the page itself)."""

from __future__ import annotations

import re
from html import escape

__all__ = ["badge", "fmt_interval", "fmt_number", "fmt_percent", "page", "safe_slug"]

_STYLE = """
:root { --pass: #2f7d46; --fail: #c0392b; --warn: #b7791f; --ink: #1f2733; --muted: #5f6b7a;
  --line: #dde2ea; --soft: #f5f7fa; --accent: #3d6fb0; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: #fff; }
main { max-width: 1120px; margin: 0 auto; padding: 20px 28px 48px; }
header.top { border-bottom: 1px solid var(--line); margin-bottom: 18px; padding-bottom: 10px; }
header.top h1 { font-size: 22px; margin: 0 0 4px; }
.meta { color: var(--muted); font-size: 13px; }
.meta span + span::before { content: " · "; }
h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
h4 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.cards { display: grid; grid-template-columns: .85fr 1fr 1.1fr 1.15fr; gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px;
  background: var(--soft); }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; }
.card .value { font-size: 26px; font-weight: 600; }
.card.total .value { font-size: 34px; color: var(--accent); }
.card .interval { color: var(--muted); font-size: 12px; }
.card .formula { color: var(--muted); font-size: 12px; margin-top: 6px; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); gap: 10px; }
.stat { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.stat .label { color: var(--muted); font-size: 12px; }
.stat .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.stat.nonzero { border-color: var(--fail); }
.stat.nonzero .value { color: var(--fail); }
.card dl { margin: 6px 0 0; display: grid; grid-template-columns: 1fr auto; gap: 2px 10px;
  font-size: 13px; }
.card dt { color: var(--muted); white-space: nowrap; }
.card dd { margin: 0; text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; }
figcaption { font-size: 13px; color: var(--muted); margin-bottom: 4px; }
svg.plot { width: 100%; height: auto; display: block; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px;
  font-weight: 600; color: #fff; }
.badge.pass { background: var(--pass); }
.badge.fail { background: var(--fail); }
.badge.warn { background: var(--warn); }
.badge.muted { background: #8a94a3; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  padding: 8px 10px; white-space: pre-wrap; word-break: break-word; margin: 4px 0 8px;
  font-size: 12.5px; }
details.trial { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0;
  padding: 6px 12px; }
details.trial > summary { cursor: pointer; font-weight: 600; padding: 2px 0; }
details.trial > summary .meta { font-weight: 400; margin-left: 8px; }
details.trial.failed { border-left: 4px solid var(--fail); }
details.trial.passed { border-left: 4px solid var(--pass); }
ol.transcript li, ol.calls li { margin: 2px 0; }
code { font-size: 12.5px; }
.note { color: var(--muted); font-style: italic; }
@media (max-width: 800px) { .cards, .grid2 { grid-template-columns: 1fr; } }
"""


def page(title: str, body: str, *, subtitle: str = "") -> str:
    """A complete HTML document: the shared style inline, `title` escaped here,
    `body` and `subtitle` inserted as given (their callers escape)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>"
        f'<body><main><header class="top"><h1>{escape(title)}</h1>'
        f'<div class="meta">{subtitle}</div></header>{body}</main></body></html>\n'
    )


def badge(text: str, kind: str) -> str:
    """A coloured label (`kind`: pass, fail, warn or muted)."""
    return f'<span class="badge {escape(kind)}">{escape(text)}</span>'


def fmt_percent(value: float | None) -> str:
    """A fraction in [0, 1] as a percentage with one decimal; an em dash for None."""
    return "—" if value is None else f"{value * 100:.1f}%"


def fmt_number(value: float | None, digits: int = 1) -> str:
    """A number with `digits` decimals; an em dash for None."""
    return "—" if value is None else f"{value:,.{digits}f}"


def fmt_interval(interval: tuple[float, float] | None, *, percent: bool = True) -> str:
    """An interval as `[low, high]` (as percentages of fractions when `percent`); an em
    dash for None."""
    if interval is None:
        return "—"
    low, high = interval
    if percent:
        return f"[{low * 100:.1f}%, {high * 100:.1f}%]"
    return f"[{low:.1f}, {high:.1f}]"


_UNSAFE = re.compile(r"[^a-z0-9]+")
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
)


def safe_slug(name: str) -> str:
    """A file-name-safe form of `name`: lowercase ASCII letters, digits and single
    hyphens, at most 60 characters, never empty and never a reserved device name.
    Not unique by itself (see `_html.case_slugs`)."""
    slug = _UNSAFE.sub("-", name.lower()).strip("-")[:60].strip("-")
    if not slug:
        return "case"
    return f"{slug}-case" if slug in _RESERVED else slug
