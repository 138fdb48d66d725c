"""The chaos campaign at CI size: bench/chaos.py with one round (one fault of each kind) of a smaller sweep.

The full campaign (four rounds of 60 attempts, 24 faults) is the benchmark's default run; its figures are in the
README. Here as there: nothing lost, nothing recorded twice, no infrastructure fault charged to the agent, no
orphan container, volume or network, and every attempt in MLflow after the replay.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.docker, pytest.mark.ray]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs and restarts dockerd")
@pytest.mark.skipif(shutil.which("dockerd") is None, reason="needs a Docker engine")
def test_one_round_of_every_fault_loses_and_misclassifies_nothing() -> None:
    from tests.sandbox._support import build_image

    build_image("slim")
    proc = subprocess.run(
        [sys.executable, str(REPO / "bench" / "chaos.py"), "--rounds", "1", "--trials", "3", "--seed", "7", "--json"],
        capture_output=True, text=True, timeout=2400, check=False,
    )  # fmt: skip
    assert proc.stdout.strip(), proc.stderr[-4000:]
    out = json.loads(proc.stdout)
    assert out["attempts"] == 36 and out["faults"] == 6, out["details"][0]["faults"]
    assert set(out["by_kind"]) == {"driver-kill", "launcher-kill", "dockerd-restart", "mlflow-outage",
                                   "gateway-kill", "results-full"}  # fmt: skip
    assert out["retries"] >= 1 and out["driver_sessions"] >= 2  # the faults bit
    for figure in ("lost", "doubled", "misclassified", "orphans", "mlflow_missing", "mlflow_doubled"):
        assert out[figure] == 0, (figure, out["details"])
    assert out["ok"] and proc.returncode == 0
