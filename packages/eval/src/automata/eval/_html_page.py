"""The frame every page of the HTML report shares, and its formatting helpers.

Pages are rendered from the package's Jinja templates (`templates/`: `page.html`, the
frame with its inline stylesheet `report.css`; `index.html`; `case.html`) by an
environment that escapes every value by default, so text from the report (model output,
tool arguments, case names) is always shown as text; only `Markup` built by this
package (the SVG plots) is inserted as HTML. Pages hold no script and load nothing
(the favicon is an empty data URL, so a browser asks the server for nothing but the
page itself).
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from automata.core import Cost

__all__ = ["fmt_interval", "fmt_number", "fmt_percent", "report_environment", "safe_slug"]


def report_environment() -> Environment:
    """The environment the report's pages render in: autoescaping every value, failing
    on an undefined name rather than printing nothing."""
    environment = Environment(
        loader=PackageLoader("automata.eval", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    environment.filters["percent"] = fmt_percent
    environment.filters["number"] = fmt_number
    environment.filters["interval"] = fmt_interval
    environment.filters["cost"] = fmt_cost
    environment.filters["json"] = _json
    return environment


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def fmt_percent(value: float | None) -> str:
    """A fraction in [0, 1] as a percentage with one decimal; an em dash for None."""
    return "—" if value is None else f"{value * 100:.1f}%"


_COST_DECIMALS = 4


def fmt_number(value: float | None, digits: int = 1) -> str:
    """A number with `digits` decimals; an em dash for None."""
    return "—" if value is None else f"{value:,.{digits}f}"


def fmt_cost(cost: Cost | None) -> str:
    """A cost as its amount, rounded half-up to at most four decimals, and its currency
    (`0.0125 USD`, `0.0069 USD` for 0.0069075); an em dash for None. The JSON report
    keeps the exact amount."""
    if cost is None:
        return "—"
    amount = cost.amount
    exponent = amount.as_tuple().exponent  # a str only for NaN and infinities
    if isinstance(exponent, int) and exponent < -_COST_DECIMALS:
        amount = amount.quantize(Decimal(1).scaleb(-_COST_DECIMALS), rounding=ROUND_HALF_UP)
    return f"{amount} {cost.currency}"


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
