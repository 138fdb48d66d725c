"""The main job, as `make demo` runs it: oracle, null and recall over every task and condition, on Ray with docker
sandboxes. The oracle passes everything, null and recall fail everything (gated), and the README's baseline table
is the one this sweep produces."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cmb.models import ComputePriceSheet, RunRecord
from tests.sandbox._support import require_backend

pytestmark = [pytest.mark.slow, pytest.mark.docker, pytest.mark.ray]
ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- baselines:begin -->", "<!-- baselines:end -->"
EXPECTED = {"oracle": 1.0, "null": 0.0, "recall": 0.0}


def _cmb(home: Path, *args: str, timeout: float = 3600) -> str:
    env = {**os.environ, "CMB_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-m", "cmb", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def readme_baselines() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), text, flags=re.S)
    assert match, "the README has no generated baseline table"
    return match.group(1).strip()


def test_demo_sweep_on_docker(tmp_path):
    require_backend("docker")
    home = tmp_path / "cmb-data"
    _cmb(home, "tasks", "validate")
    _cmb(
        home, "sweep", "--agents", "oracle,null,recall", "--tasks", "all", "--conditions", "SF,SR,WF,WR",
        "--trials", "1", "--sweep-id", "demo", "--backend", "docker",
    )  # fmt: skip
    rows = json.loads(_cmb(home, "results", "demo", "--json"))["rows"]
    seen = {(r["agent"], r["condition"]): r for r in rows}
    for agent, rate in EXPECTED.items():
        for condition in ("SF", "SR", "WF", "WR"):
            row = seen[(agent, condition)]
            assert row["pass_rate"] == rate, (agent, condition, row)
    assert _cmb(home, "results", "demo", "--markdown").strip() == readme_baselines()
    assert_compute_is_metered(home)


def assert_compute_is_metered(home: Path) -> None:
    """Every docker attempt's record carries the engine's CPU seconds and peak memory, priced at the pinned sheet."""
    sheet = ComputePriceSheet.pinned()
    records = [
        RunRecord.model_validate_json(text)
        for text in pl.read_parquet(sorted((home / "results" / "runs").rglob("*.parquet")))["record_json"]
    ]
    assert records
    for r in records:
        c = r.compute
        assert c.source == "docker" and c.price_sheet == sheet.version, (r.key, c)
        assert c.cpu_s is not None and c.cpu_s > 0 and c.peak_memory_bytes and c.peak_memory_bytes > 2**20, (r.key, c)
        assert r.compute_cost_usd == pytest.approx(sheet.cost(r.resources, c)) and r.compute_cost_usd > 0
    table = json.loads(_cmb(home, "results", "demo", "--table", "cost", "--json"))
    total = next(row for row in table["rows"] if row["agent"] == "sweep total (kept)")
    assert total["metered_attempts"] == total["attempts"] and total["estimated_attempts"] == 0, total
    assert total["cpu_hours_used"] > 0 and total["peak_memory_gib"] > 0 and total["compute_cost_usd"] > 0
    assert table["meta"]["compute_price_sheets"] == [sheet.version]
