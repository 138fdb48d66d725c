"""The analysis benchmark's pandas twin computes the same tables as cmb.analysis (on a small store): the speed
figures it prints compare like with like only while that holds. Its --json figures feed the README's table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_pandas_twin_agrees_with_cmb_analysis_and_the_figures_are_data(tmp_path):
    proc = subprocess.run(
        [sys.executable, "bench/bench_analysis.py", "--attempts", "20000", "--n-boot", "200", "--keep",
         str(tmp_path / "store"), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "all tables agree" in proc.stderr
    run = json.loads(proc.stdout)
    figures = run["figures"]
    assert set(figures) == {"analysis_all_tables", "analysis_load", "analysis_peak_memory"}
    tables = figures["analysis_all_tables"]
    assert tables["unit"] == "s" and tables["value"] > 0 and tables["baseline"] > 0
    assert tables["ratio"] == pytest.approx(tables["value"] / tables["baseline"])
    assert figures["analysis_peak_memory"]["baseline"] is None and figures["analysis_peak_memory"]["ratio"] is None
    (tmp_path / "analysis.json").write_text(proc.stdout)
    made = subprocess.run(
        [sys.executable, "bench/readme_figures.py", str(tmp_path / "analysis.json"), "--print"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert "`analysis.analysis_all_tables`" in made and f"{tables['ratio']:.2f}×" in made


def test_the_readme_table_of_figures_is_the_generated_block():
    text = (ROOT / "README.md").read_text()
    start, end = text.index("<!-- bench:begin -->"), text.index("<!-- bench:end -->")
    block = text[start:end]
    assert "| figure | value | baseline (same run) | ratio |" in block and "Measured " in block
