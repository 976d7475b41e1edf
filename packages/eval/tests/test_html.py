"""The HTML report as files: one overview and one page per case, every page
self-contained and escaped, plots as well-formed inline SVG, safe unique slugs."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from automata.eval import (
    Case,
    CaseResult,
    Grade,
    RunReport,
    Scorecard,
    TrialResult,
    wilson_interval,
    write_html,
)
from automata.eval._html import case_slugs
from automata.eval._html_plots import histogram

SVG = "{http://www.w3.org/2000/svg}"


def load_sample_report() -> RunReport:
    """The sample report of `_sample_report.py` (loaded by path: importlib mode)."""
    path = Path(__file__).with_name("_sample_report.py")
    spec = importlib.util.spec_from_file_location("_eval_sample_report", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    build: Callable[[], RunReport] = module.sample_report
    return build()


def empty_report() -> RunReport:
    card = Scorecard(
        total=0.0, l1=0.0, l2=0.0, l3=0.0, compliance=0.0, tool_call_accuracy=0.0, pass_at_1=0.0
    )
    return RunReport(
        run_id="empty",
        started_at="2026-12-01T00:00:00Z",
        trials_per_case=3,
        cases=(),
        scorecard=card,
    )


def svgs(html: str) -> list[ET.Element]:
    """Every inline <svg> of a page, parsed as XML (so each must be well-formed)."""
    return [ET.fromstring(match) for match in re.findall(r"<svg\b.*?</svg>", html, re.S)]


def test_the_site_has_an_overview_and_one_page_per_case(tmp_path: Path) -> None:
    report = load_sample_report()
    index = write_html(report, tmp_path / "site")
    assert index == tmp_path / "site" / "index.html"
    pages = sorted((tmp_path / "site" / "cases").glob("*.html"))
    assert len(pages) == len(report.cases) == 8
    html = index.read_text()
    links = re.findall(r'href="(cases/[^"]+)"', html)
    assert set(links) == {f"cases/{page.name}" for page in pages}
    for page in pages:
        assert 'href="../index.html"' in page.read_text()


def test_pages_load_nothing_and_run_no_script(tmp_path: Path) -> None:
    write_html(load_sample_report(), tmp_path)
    for page in [tmp_path / "index.html", *(tmp_path / "cases").glob("*.html")]:
        html = page.read_text()
        assert "<script" not in html
        assert not re.search(r'(src|href)="(https?:)?//', html), page.name
        assert '<link rel="icon" href="data:,">' in html  # no favicon request either


def test_every_string_from_the_report_is_escaped(tmp_path: Path) -> None:
    nasty = "<img src=x onerror=alert(1)> & \"quoted\" 'single'"
    case = Case(name=nasty, task=nasty, tags=(nasty,))
    trial = TrialResult(
        case=nasty,
        trial=0,
        passed=False,
        output=nasty,
        error=nasty,
        transcript_summary=(nasty,),
        grades=(Grade(grader=nasty, passed=False, detail=nasty),),
    )
    report = empty_report().model_copy(
        update={"run_id": nasty, "model": nasty, "cases": (CaseResult(case=case, trials=(trial,)),)}
    )
    write_html(report, tmp_path)
    pages = [tmp_path / "index.html", *(tmp_path / "cases").glob("*.html")]
    assert len(pages) == 2
    for page in pages:
        html = page.read_text()
        assert "<img" not in html
        assert "&lt;img src=x onerror=alert(1)&gt; &amp;" in html
        for svg in svgs(html):
            assert svg.tag == f"{SVG}svg"


def test_slugs_are_safe_and_unique_even_for_odd_names() -> None:
    names = [
        "Weather / Paris",
        "weather-paris",
        "weather paris",
        "",
        "   ",
        "../../etc/passwd",
        "con",
        "日本語",
        "日本語",
        "a" * 300,
        "weather-paris",
    ]
    slugs = case_slugs(names)
    assert len(set(slugs)) == len(names)
    for slug in slugs:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), slug
        assert len(slug) <= 80
    assert slugs[0] == "weather-paris"  # the first claimant keeps the plain slug
    assert slugs[5] == "etc-passwd"
    assert slugs[6] != "con"  # a reserved device name on Windows
    assert case_slugs(names) == slugs  # stable


def test_the_overview_shows_the_scorecard_and_reliability(tmp_path: Path) -> None:
    html = write_html(load_sample_report(), tmp_path).read_text()
    for shown in (
        "76.4",
        "95% CI [73.1, 79.6]",
        "95.8%",
        "72.2%",
        "71.2%",
        "79.2%",
        "[59.5%, 90.8%]",
        "[30.0%, 90.3%]",
        "Provider errors",
        "Timeouts",
        "Judge agreement",
        "87.5%",
        "5/8 cases passed",
    ):
        assert shown in html, shown


def test_the_overview_plots_pass_rates_and_repeat_totals(tmp_path: Path) -> None:
    html = write_html(load_sample_report(), tmp_path).read_text()
    plots = {svg.get("class"): svg for svg in svgs(html)}
    assert set(plots) == {
        "plot histogram pass-rates",
        "plot histogram repeat-totals",
        "plot bars case-pass-rates",
    }
    # 5 cases at 100%, 2 at 33%, 1 at 67%: three bins hold 5, 2 and 1.
    bins = plots["plot histogram pass-rates"].iter(f"{SVG}rect")
    counts = sorted(
        int((rect.findtext(f"{SVG}title") or "").rsplit(": ", 1)[1])
        for rect in bins
        if rect.get("class") == "bin"
    )
    assert counts == [1, 2, 5]
    bars = [
        rect
        for rect in plots["plot bars case-pass-rates"].iter(f"{SVG}rect")
        if rect.get("class") == "bar"
    ]
    assert len(bars) == 8
    colours = [bar.get("fill") for bar in bars]
    assert colours.count("#c0392b") == 3  # the failing cases are red


def test_without_repeats_there_is_no_repeat_plot(tmp_path: Path) -> None:
    sample = load_sample_report()
    card = sample.scorecard.model_copy(update={"total_interval": None})
    report = sample.model_copy(update={"repeat_totals": (), "scorecard": card})
    html = write_html(report, tmp_path).read_text()
    assert "repeat-totals" not in html
    assert "run with --repeats" in html


def test_an_empty_report_still_makes_a_whole_page(tmp_path: Path) -> None:
    index = write_html(empty_report(), tmp_path)
    html = index.read_text()
    assert "no cases ran" in html
    assert len(svgs(html)) == 2  # both plots, each saying "no data"
    assert html.count("no data") == 2
    assert list((tmp_path / "cases").glob("*.html")) == []


def test_a_case_page_shows_each_trial_and_why_it_failed(tmp_path: Path) -> None:
    report = load_sample_report()
    write_html(report, tmp_path)
    slug = case_slugs([result.case.name for result in report.cases])[6]
    html = (tmp_path / "cases" / f"{slug}.html").read_text()
    assert html.count('<details class="trial') == 3
    assert html.count('<details class="trial failed"') == 2
    for shown in (
        "provider_error",
        "ProviderError: 529 overloaded",
        "timeout",
        "trial exceeded 30 s",
        "calendar",
        "Transcript summary",
        "retries 2",
    ):
        assert shown in html, shown
    research = (tmp_path / "cases" / "research-eu-ai-act.html").read_text()
    assert "Judge scores" in research
    assert "faithfulness" in research
    assert "Every date is backed by a fetched page." in research


def test_a_case_without_trials_says_so(tmp_path: Path) -> None:
    report = empty_report().model_copy(
        update={"cases": (CaseResult(case=Case(name="idle", task="t"), trials=()),)}
    )
    write_html(report, tmp_path)
    assert "ran no trials" in (tmp_path / "cases" / "idle.html").read_text()


def test_a_histogram_puts_the_top_edge_in_the_last_bin() -> None:
    svg = ET.fromstring(
        histogram(
            [0.0, 1.0, 1.0], title="t", x_label="x", fixed_range=(0.0, 1.0), bins=10, percent=True
        )
    )
    titles = [rect.findtext(f"{SVG}title") for rect in svg.iter(f"{SVG}rect")]
    assert titles == ["0% to 10%: 1", "90% to 100%: 2"]


def test_writing_again_overwrites_the_site(tmp_path: Path) -> None:
    write_html(load_sample_report(), tmp_path)
    html = write_html(empty_report(), tmp_path).read_text()
    assert "no cases ran" in html


def test_the_failures_column_says_why_each_failed_case_failed(tmp_path: Path) -> None:
    """A trial that ran to its end is named by its failed graders, one that did not by
    its failure; a passing case's cell stays empty."""
    missed = Grade(grader="contains", passed=False, detail="missing 'rain'")
    forbidden = Grade(grader="forbidden_tools", passed=False, kind="compliance")
    kept = Grade(grader="completes", passed=True)
    results = (
        CaseResult(
            case=Case(name="graded", task="t"),
            trials=(
                TrialResult(case="graded", trial=1, passed=False, grades=(missed, kept)),
                TrialResult(case="graded", trial=2, passed=False, grades=(forbidden, missed)),
                TrialResult(case="graded", trial=3, passed=True, grades=(kept,)),
            ),
        ),
        CaseResult(
            case=Case(name="crashed", task="t"),
            trials=(
                TrialResult(
                    case="crashed",
                    trial=1,
                    passed=False,
                    failure="agent_error",
                    error="RuntimeError: down",
                    grades=(Grade(grader="completes", passed=False),),
                ),
            ),
        ),
        CaseResult(
            case=Case(name="fine", task="t"),
            trials=(TrialResult(case="fine", trial=1, passed=True, grades=(kept,)),),
        ),
    )
    report = empty_report().model_copy(update={"cases": results})
    html = write_html(report, tmp_path / "site").read_text()
    rows = re.findall(r'<tr class="(?:passed|failed)">(.*?)</tr>', html, re.S)
    cells = {
        re.search(r'class="case-link"[^>]*>([^<]+)<', row).group(1): re.findall(  # type: ignore[union-attr]
            r"<td[^>]*>(.*?)</td>", row
        )[-1]
        for row in rows
    }
    assert cells == {
        "graded": "contains, forbidden_tools",
        "crashed": "agent_error",
        "fine": "",
    }


def test_the_overview_tables_reliability_per_model_and_per_case_with_intervals(
    tmp_path: Path,
) -> None:
    """E21: each model and each case has its counts, rates and Wilson intervals."""
    report = load_sample_report()
    html = write_html(report, tmp_path).read_text()
    tables = {
        key: re.search(rf'<table class="reliability {key}">(.*?)</table>', html, re.S)
        for key in ("by-model", "by-case")
    }
    by_model, by_case = (match.group(1) if match else "" for match in tables.values())
    assert by_model.count("<tr>") == 2  # the header and one model
    assert "<td>gpt-4o-mini</td>" in by_model
    assert by_case.count("<tr>") == 1 + len(report.cases)
    flaky = next(g for g in report.reliability_by_case if g.reliability.provider_errors)
    low, high = wilson_interval(1, 3)
    row = re.search(rf"<tr><td>{re.escape(flaky.name)}</td>(.*?)</tr>", by_case, re.S)
    assert row is not None
    assert f"33.3% [{low * 100:.1f}%, {high * 100:.1f}%]" in row.group(1)
    attempts = report.reliability.attempts
    assert f"of {attempts:,} attempts" in html
