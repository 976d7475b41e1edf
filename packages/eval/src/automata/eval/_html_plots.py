"""Inline SVG plots for the HTML report, drawn in Python (no script, no network).

Each function returns one complete `<svg>` element as `Markup` (inserted into a page as
HTML), sized by its `viewBox` so it scales with the page; every text part it draws is
escaped here (`markupsafe.escape`), which is what makes it safe to mark. With no data a
plot is still an `<svg>`, holding a short "no data" note, so a page's layout never
depends on what the run produced.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = ["Bar", "bar_plot", "histogram"]

_HIST_WIDTH = 520
_BAR_WIDTH = 1000
_PASS = "#2f7d46"
_FAIL = "#c0392b"
_NEUTRAL = "#3d6fb0"
_BAND = "#3d6fb0"
_AXIS = "#8a94a3"
_TEXT = "#2b3340"
_MARK = "#1f2733"


@dataclass(frozen=True)
class Bar:
    """One bar of `bar_plot`: a label, a value in [0, 1], whether it counts as passing,
    and the page it links to (relative; None for no link)."""

    label: str
    value: float
    passed: bool
    href: str | None = None


def _svg(width: int, height: int, title: str, body: str, css_class: str) -> Markup:
    return Markup(
        f'<svg class="plot {escape(css_class)}" viewBox="0 0 {width} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg" preserveAspectRatio="xMidYMid meet">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )


def _no_data(width: int, title: str, css_class: str) -> Markup:
    body = (
        f'<text x="{width / 2}" y="40" text-anchor="middle" fill="{_AXIS}" '
        f'font-size="14">no data</text>'
    )
    return _svg(width, 80, title, body, css_class)


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _nice_bins(low: float, high: float, target: int) -> tuple[float, float, int]:
    """Start, width and count of bins covering [low, high] with round edges."""
    span = high - low
    if span <= 0:
        width = 1.0
        start = math.floor(low)
        return start, width, 1
    raw = span / target
    magnitude = 10 ** math.floor(math.log10(raw))
    width = next(step * magnitude for step in (1, 2, 2.5, 5, 10) if step * magnitude >= raw)
    start = math.floor(low / width) * width
    count = max(1, math.ceil((high - start) / width + 1e-9))
    if start + count * width <= high:
        count += 1
    return start, width, count


def histogram(
    values: Sequence[float],
    *,
    title: str,
    x_label: str,
    fixed_range: tuple[float, float] | None = None,
    bins: int = 10,
    interval: tuple[float, float] | None = None,
    marker: tuple[str, float] | None = None,
    percent: bool = False,
    css_class: str = "histogram",
) -> Markup:
    """A histogram of `values`. With `fixed_range` the bins split that range evenly
    (`bins` of them, the last one closed); otherwise round bins cover the data.
    `interval`, when given, is shaded behind the bars; `marker` (a label and a value)
    draws a dashed line at the value. `percent` labels the x axis as
    percentages of values in [0, 1]."""
    if not values:
        return _no_data(_HIST_WIDTH, title, css_class)
    if fixed_range is not None:
        start, stop = fixed_range
        width = (stop - start) / bins
        count = bins
    else:
        start, width, count = _nice_bins(min(values), max(values), bins)
        stop = start + width * count
    counts = [0] * count
    for value in values:
        index = min(count - 1, max(0, math.floor((value - start) / width)))
        counts[index] += 1
    tallest = max(counts)
    left, right, top, bottom = 48, 16, 16, 44
    height = 220
    plot_w, plot_h = _HIST_WIDTH - left - right, height - top - bottom

    def x_of(value: float) -> float:
        return left + (value - start) / (stop - start) * plot_w

    parts: list[str] = []
    if interval is not None:
        low, high = max(start, interval[0]), min(stop, interval[1])
        if high >= low:
            parts.append(
                f'<rect class="interval" x="{x_of(low):.1f}" y="{top}" '
                f'width="{max(1.0, x_of(high) - x_of(low)):.1f}" height="{plot_h}" '
                f'fill="{_BAND}" fill-opacity="0.12"><title>95% interval '
                f"{_fmt(interval[0])} to {_fmt(interval[1])}</title></rect>"
            )
    bar_w = plot_w / count
    for index, number in enumerate(counts):
        if not number:
            continue
        bar_h = number / tallest * plot_h
        low_edge = start + index * width
        label = (
            f"{_fmt(low_edge * 100)}% to {_fmt((low_edge + width) * 100)}%"
            if percent
            else f"{_fmt(low_edge)} to {_fmt(low_edge + width)}"
        )
        parts.append(
            f'<rect class="bin" x="{left + index * bar_w + 1:.1f}" y="{top + plot_h - bar_h:.1f}" '
            f'width="{bar_w - 2:.1f}" height="{bar_h:.1f}" fill="{_NEUTRAL}">'
            f"<title>{escape(label)}: {number}</title></rect>"
            f'<text x="{left + (index + 0.5) * bar_w:.1f}" y="{top + plot_h - bar_h - 4:.1f}" '
            f'text-anchor="middle" font-size="11" fill="{_TEXT}">{number}</text>'
        )
    axis_y = top + plot_h
    parts.append(
        f'<line x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}" stroke="{_AXIS}"/>'
    )
    ticks = count if count <= 10 else 5
    for tick in range(ticks + 1):
        value = start + (stop - start) * tick / ticks
        shown = f"{_fmt(value * 100)}%" if percent else _fmt(value)
        x = x_of(value)
        parts.append(
            f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" stroke="{_AXIS}"/>'
            f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle" font-size="11" '
            f'fill="{_TEXT}">{escape(shown)}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle" font-size="12" '
        f'fill="{_TEXT}">{escape(x_label)}</text>'
        f'<text x="14" y="{top + plot_h / 2}" text-anchor="middle" font-size="12" '
        f'fill="{_TEXT}" transform="rotate(-90 14 {top + plot_h / 2})">count</text>'
    )
    if marker is not None and start <= marker[1] <= stop:
        x = x_of(marker[1])
        parts.append(
            f'<line class="marker" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_y}" '
            f'stroke="{_MARK}" stroke-width="2" stroke-dasharray="5 3"/>'
            f'<text x="{x + 4:.1f}" y="{axis_y - 6}" font-size="11" fill="{_MARK}" '
            f'stroke="#fff" stroke-width="3" paint-order="stroke">'
            f"{escape(marker[0])}</text>"
        )
    return _svg(_HIST_WIDTH, height, title, "".join(parts), css_class)


def _clip(label: str, limit: int = 38) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def bar_plot(bars: Sequence[Bar], *, title: str, css_class: str = "bars") -> Markup:
    """Horizontal bars, one per item, for values in [0, 1] shown as percentages; a
    passing bar is green, a failing one red; a bar with `href` links to its page."""
    if not bars:
        return _no_data(_BAR_WIDTH, title, css_class)
    left, right, top, row = 260, 56, 8, 24
    plot_w = _BAR_WIDTH - left - right
    height = top * 2 + row * len(bars) + 18
    parts: list[str] = []
    for index, bar in enumerate(bars):
        y = top + index * row
        value = min(1.0, max(0.0, bar.value))
        color = _PASS if bar.passed else _FAIL
        shown = f"{value * 100:.0f}%"
        item = (
            f'<text x="{left - 8}" y="{y + row / 2 + 4:.1f}" text-anchor="end" font-size="12" '
            f'fill="{_TEXT}">{escape(_clip(bar.label))}</text>'
            f'<rect x="{left}" y="{y + 3}" width="{plot_w}" height="{row - 6}" fill="#eef1f5"/>'
            f'<rect class="bar" x="{left}" y="{y + 3}" width="{max(0.0, value * plot_w):.1f}" '
            f'height="{row - 6}" fill="{color}"><title>{escape(bar.label)}: {shown}</title></rect>'
            f'<text x="{left + plot_w + 6}" y="{y + row / 2 + 4:.1f}" font-size="12" '
            f'fill="{_TEXT}">{shown}</text>'
        )
        if bar.href is not None:
            item = f'<a href="{escape(bar.href)}">{item}</a>'
        parts.append(item)
    axis_y = top + row * len(bars) + 2
    for tick in range(5):
        x = left + plot_w * tick / 4
        parts.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_y}" stroke="{_AXIS}" '
            f'stroke-opacity="0.35" stroke-dasharray="2 3"/>'
            f'<text x="{x:.1f}" y="{axis_y + 13}" text-anchor="middle" font-size="10" '
            f'fill="{_TEXT}">{tick * 25}%</text>'
        )
    return _svg(_BAR_WIDTH, height, title, "".join(parts), css_class)
