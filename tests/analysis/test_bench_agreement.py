"""The analysis benchmark's pandas twin computes the same tables as cmb.analysis (on a small store): the speed
figures it prints compare like with like only while that holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_pandas_twin_agrees_with_cmb_analysis(tmp_path):
    proc = subprocess.run(
        [sys.executable, "bench/bench_analysis.py", "--attempts", "20000", "--n-boot", "200", "--keep", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "all tables agree" in proc.stdout
