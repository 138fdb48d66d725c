"""The HTML report: self-contained, every figure present, and drawn by a real browser without console errors."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

from cmb.analysis import Analysis, AnalysisOptions, render_report, synthetic_sweep, write_report
from tests.analysis.chromium import Browser, find_chromium
from tests.analysis.helpers import analysis, known_sweep, run

PLOTS = ["pass-by-kind", "conditions", "repeat-distribution", "pass-at-k", "failures", "cost-scatter", "grid"]


@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory) -> Path:
    runs, checks = synthetic_sweep(n_single=24, n_workflows=4, trials=3, seed=3)
    frame = pl.from_arrow(runs)
    assert isinstance(frame, pl.DataFrame)
    checks_frame = pl.from_arrow(checks)
    assert isinstance(checks_frame, pl.DataFrame)
    a = Analysis(frame.lazy(), checks_frame.lazy(), AnalysisOptions(n_boot=300))
    return write_report(a, tmp_path_factory.mktemp("report") / "report.html")


def test_report_has_every_section_table_and_figure():
    runs, checks = known_sweep()
    html = render_report(analysis(runs, checks, n_boot=200, seed=9))
    for name in PLOTS:
        assert f'<figure data-plot="{name}">' in html
    for name in ("pass", "conditions", "repeat", "failures", "cost", "shared-errors"):
        assert f'data-table="{name}"' in html
    assert "26 of 29 attempts kept" in html
    assert "seed 9," in html and f"seed {AnalysisOptions().seed}" not in html  # the seed actually used


def test_report_escapes_names():
    runs = [run("<b>evil</b>", "t1", "SF", i, "P") for i in range(2)]
    html = render_report(analysis(runs, n_boot=200))
    assert "<b>evil</b>" not in html and "&lt;b&gt;evil&lt;/b&gt;" in html


def test_large_grids_show_pass_fractions(monkeypatch):
    runs, checks = known_sweep()
    monkeypatch.setattr("cmb.analysis._report.MAX_GRID_CELLS", 10)
    html = render_report(analysis(runs, checks, n_boot=200))
    assert "Pass fraction over trials" in html and "Every attempt: rows" not in html


def test_report_renders_in_headless_chromium(synthetic_report, tmp_path):
    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: scripts/setup.sh installs the Debian package 'chromium'")
        pytest.skip("chromium not installed (apt-get install chromium)")
    with Browser(binary) as browser:
        browser.open(synthetic_report.as_uri())
        assert browser.evaluate("document.readyState") == "complete"
        figures = browser.evaluate(
            """[...document.querySelectorAll('figure[data-plot]')].map(f => {
                 const svgs = [...f.querySelectorAll('svg')];
                 const boxes = svgs.map(s => s.getBoundingClientRect());
                 return {name: f.dataset.plot, svgs: svgs.length,
                         drawn: boxes.every(b => b.width > 100 && b.height > 50),
                         marks: f.querySelectorAll('rect, circle, path, line').length};
               })"""
        )
        assert [f["name"] for f in figures] == PLOTS
        for f in figures:
            assert f["svgs"] >= 1 and f["drawn"] and f["marks"] > 5, f
        tables = browser.evaluate("document.querySelectorAll('table[data-table]').length")
        assert tables == 6
        # nothing fetched from anywhere: the file is the whole report
        assert browser.evaluate("performance.getEntriesByType('resource').length") == 0
        shot = tmp_path / "shot.png"
        browser.screenshot(shot)
        assert shot.stat().st_size > 50_000
        assert browser.problems() == []


def test_long_tables_are_cut_and_say_so(monkeypatch):
    runs, checks = known_sweep()
    monkeypatch.setattr("cmb.analysis._report.MAX_TABLE_ROWS", 2)
    html = render_report(analysis(runs, checks, n_boot=200))
    assert "more rows: cmb results SWEEP --table pass" in html
    assert "more rows: cmb results SWEEP --table shared-errors" not in html  # one row only
