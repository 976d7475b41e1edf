"""The HTML report in a real headless Chromium (Debian's package, driven by
Playwright): served over loopback HTTP, its pages load with no console errors and no
failed requests, the plots render, and the links lead to the case pages.

Without Chromium these tests skip outside CI and fail in CI. The screenshot test also
writes the docs' screenshots when `AUTOMATA_DOCS_SCREENSHOTS` names a folder:

    AUTOMATA_DOCS_SCREENSHOTS=docs/images uv run pytest packages/eval/tests/test_html_browser.py
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from automata_browser_testing import (
    ChromiumUnavailable,
    PageWatch,
    headless_chromium,
    require_chromium,
    serve_directory,
)
from playwright.sync_api import BrowserContext, Page

from automata.eval import (
    Case,
    CaseResult,
    Expect,
    Grade,
    JudgeDimension,
    JudgeScore,
    RunReport,
    Scorecard,
    ToolCallRecord,
    TrialResult,
    write_html,
)

SCREENSHOTS_ENV = "AUTOMATA_DOCS_SCREENSHOTS"
FAILING_CASE = "list-files (no <shell> & co)"


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


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    try:
        with headless_chromium(viewport=(1280, 900)) as context:
            yield context
    except ChromiumUnavailable as missing:
        require_chromium(missing)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sample report's site, served; the empty report's site under `/empty/`."""
    root = tmp_path_factory.mktemp("site")
    write_html(load_sample_report(), root)
    card = Scorecard(
        total=0.0, l1=0.0, l2=0.0, l3=0.0, compliance=0.0, tool_call_accuracy=0.0, pass_at_1=0.0
    )
    idle = CaseResult(case=Case(name="idle", task="nothing"), trials=())
    empty = RunReport(
        run_id="empty", started_at="now", trials_per_case=3, cases=(idle,), scorecard=card
    )
    write_html(empty, root / "empty")
    with serve_directory(root) as url:
        yield url


@pytest.fixture(scope="module")
def unencodable_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site of a report whose task and output hold lone surrogates, served."""
    root = tmp_path_factory.mktemp("unencodable")
    card = Scorecard(
        total=0.0, l1=0.0, l2=0.0, l3=0.0, compliance=0.0, tool_call_accuracy=0.0, pass_at_1=0.0
    )
    broken = CaseResult(
        case=Case(name="broken", task="look up \ud800"),
        trials=(TrialResult(case="broken", trial=0, passed=False, output="half \ud83d"),),
    )
    report = RunReport(
        run_id="broken", started_at="now", trials_per_case=1, cases=(broken,), scorecard=card
    )
    write_html(report, root)
    with serve_directory(root) as url:
        yield url


HOSTILE = (
    "</textarea></pre></code><script>window.ran = 'script'</script>"
    "\"><img src=x onerror=\"window.ran = 'img'\">' onmouseover='window.ran = 1'"
)
"""Model or tool text that would run, or break out of an element or an attribute,
were it inserted as HTML."""

AS_TEXT_ON_THE_CASE_PAGE = 17
"""Places on the case page that show report text as it is: the heading, the run id,
task, agent, tier, tags, the judge dimension's name and rubric, the error, the grade's
grader and detail, the tool's name, the judge score's dimension and rationale, the
output and two transcript lines."""

AS_JSON_ON_THE_CASE_PAGE = 3
"""Places that show it inside JSON (quotes escaped): the expectation, the tool call's
argument name and value."""


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site of a report holding `HOSTILE` in every text field the pages show."""
    root = tmp_path_factory.mktemp("hostile")
    card = Scorecard(
        total=0.0, l1=0.0, l2=0.0, l3=0.0, compliance=0.0, tool_call_accuracy=0.0, pass_at_1=0.0
    )
    case = Case(
        name=HOSTILE,
        task=HOSTILE,
        agent=HOSTILE,
        tier=HOSTILE,
        tags=(HOSTILE,),
        expect=Expect(contains=(HOSTILE,)),
        judge=(JudgeDimension(name=HOSTILE, rubric=HOSTILE),),
    )
    trial = TrialResult(
        case=HOSTILE,
        trial=0,
        passed=False,
        grades=(Grade(grader=HOSTILE, passed=False, detail=HOSTILE),),
        tool_calls=(ToolCallRecord(name=HOSTILE, arguments={HOSTILE: HOSTILE}),),
        error=HOSTILE,
        output=HOSTILE,
        transcript_summary=(HOSTILE, HOSTILE),
        judge=(JudgeScore(dimension=HOSTILE, score=1, rationale=HOSTILE),),
    )
    report = RunReport(
        run_id=HOSTILE,
        started_at=HOSTILE,
        model=HOSTILE,
        judge_model=HOSTILE,
        trials_per_case=1,
        cases=(CaseResult(case=case, trials=(trial,)),),
        scorecard=card,
    )
    write_html(report, root)
    with serve_directory(root) as url:
        yield url


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    opened = browser.new_page()
    yield opened
    opened.close()


def test_the_overview_loads_cleanly_with_its_plots(page: Page, base_url: str) -> None:
    watch = PageWatch.attach(page)
    page.goto(f"{base_url}/index.html", wait_until="load")
    assert page.title() == "Evaluation report"
    plots = page.locator("svg.plot")
    assert plots.count() == 3
    for index in range(3):
        box = plots.nth(index).bounding_box()
        assert box is not None
        assert box["width"] > 300
        assert box["height"] > 60
    assert page.locator("svg.case-pass-rates rect.bar").count() == 8
    assert page.locator("svg.pass-rates rect.bin").count() == 3
    assert page.locator("#scorecard .card.total .value").inner_text() == "76.4"
    watch.assert_clean()


def test_a_case_link_opens_the_case_page_and_leads_back(page: Page, base_url: str) -> None:
    watch = PageWatch.attach(page)
    page.goto(f"{base_url}/index.html", wait_until="load")
    page.get_by_role("link", name=FAILING_CASE, exact=True).click()
    page.wait_for_url("**/cases/*.html")
    assert page.locator("h1").inner_text() == f"Case: {FAILING_CASE}"
    assert page.locator("details.trial").count() == 3
    failed = page.locator("details.trial.failed")
    assert failed.count() == 1
    assert failed.get_attribute("open") is not None  # failures are shown unfolded
    assert "called run_shell (forbidden)" in failed.inner_text()
    page.get_by_role("link", name="← overview").click()
    page.wait_for_url("**/index.html")
    watch.assert_clean()


def test_a_bar_of_the_pass_rate_plot_links_to_its_case(page: Page, base_url: str) -> None:
    watch = PageWatch.attach(page)
    page.goto(f"{base_url}/index.html", wait_until="load")
    page.locator("svg.case-pass-rates a").nth(6).locator("rect.bar").click()
    page.wait_for_url("**/cases/calendar-next-free-slot.html")
    assert "provider_error" in page.locator("main").inner_text()
    watch.assert_clean()


def test_an_empty_report_loads_cleanly(page: Page, base_url: str) -> None:
    watch = PageWatch.attach(page)
    page.goto(f"{base_url}/empty/index.html", wait_until="load")
    assert page.locator("svg.plot").count() == 2
    page.get_by_role("link", name="idle", exact=True).click()
    page.wait_for_url("**/empty/cases/idle.html")
    assert "ran no trials" in page.locator("main").inner_text()
    watch.assert_clean()


def test_lone_surrogates_render_as_visible_escapes(page: Page, unencodable_url: str) -> None:
    """Text UTF-8 cannot encode (lone surrogates) shows as `\\udxxx` escapes."""
    watch = PageWatch.attach(page)
    page.goto(f"{unencodable_url}/index.html", wait_until="load")
    page.get_by_role("link", name="broken", exact=True).click()
    page.wait_for_url("**/cases/broken.html")
    text = page.locator("main").inner_text()
    assert "look up \\ud800" in text
    assert "half \\ud83d" in text
    assert "\ufffd" not in text
    watch.assert_clean()


def test_hostile_model_and_tool_text_shows_as_text_and_never_runs(
    page: Page, hostile_url: str
) -> None:
    """Every place text from the report lands (run facts, case facts, grades, tool
    calls, judge scores, error, output, transcript, the plot's labels) shows it
    verbatim: no script runs, no element or attribute is broken out of, nothing loads."""
    watch = PageWatch.attach(page)
    page.goto(f"{hostile_url}/index.html", wait_until="load")
    overview = page.locator("main").inner_text()
    # run id, started, model, judge, case name, title, and the failed grader in Failures
    assert overview.count(HOSTILE) == 7
    assert page.locator("svg.plot title", has_text=HOSTILE).count() == 1
    assert page.locator("svg.plot text", has_text=HOSTILE[:37]).count() == 1
    page.locator("a.case-link").click()
    page.wait_for_load_state("load")
    text = page.locator("main").inner_text()
    assert text.count(HOSTILE) == AS_TEXT_ON_THE_CASE_PAGE
    assert text.count(HOSTILE.replace('"', '\\"')) == AS_JSON_ON_THE_CASE_PAGE
    assert page.locator("script, img, textarea").count() == 0
    assert page.evaluate("typeof window.ran") == "undefined"
    page.locator("main").hover()
    assert page.evaluate("typeof window.ran") == "undefined"
    watch.assert_clean()


def _is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_screenshots_of_the_overview_and_a_case_page(
    page: Page, base_url: str, tmp_path: Path
) -> None:
    target = Path(os.environ.get(SCREENSHOTS_ENV) or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    watch = PageWatch.attach(page)
    page.goto(f"{base_url}/index.html", wait_until="load")
    page.screenshot(path=target / "eval-report.png", full_page=True)
    page.goto(f"{base_url}/cases/calendar-next-free-slot.html", wait_until="load")
    page.screenshot(path=target / "eval-report-case.png", full_page=True)
    watch.assert_clean()
    for name in ("eval-report.png", "eval-report-case.png"):
        assert _is_png(target / name)
        assert (target / name).stat().st_size > 20_000
