"""`cmb run` end to end on the example tasks: the oracle passes and the null agent fails, on both backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cmb.catalog import Catalog, validate
from cmb.cli import cli
from cmb.models import FailureClass, RunRecord
from tests.sandbox._support import build_image, require_backend

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = ("si-eos-analysis", "si-pw-scf-inputs", "cu-eam-elastic")
NEEDS_CODES = {"cu-eam-elastic"}  # its oracle runs LAMMPS: the full image on docker


def _valid_examples() -> list[str]:
    catalog = Catalog.load(REPO)
    present = [t for t in EXAMPLES if t in catalog.entries]
    return [t for t in present if not validate(catalog, [t])]


CASES = [
    pytest.param(backend, task, id=f"{backend}-{task}", marks=[pytest.mark.docker] if backend == "docker" else [])
    for backend in ("local", "docker")
    for task in _valid_examples()
]


def _run(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["--root", str(REPO), "run", *args], env={"CMB_HOME": str(tmp_path / "home")}, catch_exceptions=False
    )
    return result.exit_code, result.output


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "task"), CASES)
def test_oracle_passes_and_null_fails(tmp_path: Path, backend: str, task: str) -> None:
    require_backend(backend)
    extra = ["--cpus", "1", "--memory-gib", "2", "--time-limit", "600"]
    if backend == "docker":
        extra += ["--image", build_image("full" if task in NEEDS_CODES else "slim")]
    code, out = _run(tmp_path, task, "--agent", "oracle", "--backend", backend, "--json", *extra)
    record = RunRecord.model_validate_json(out[out.index("{") :])
    assert code == 0 and record.passed, record.audit_messages + [record.error or ""]
    assert record.backend == backend and record.audit_passed and record.gated_score == 1.0

    code, out = _run(tmp_path, task, "--agent", "null", "--backend", backend, "--json", *extra)
    record = RunRecord.model_validate_json(out[out.index("{") :])
    assert code == 1 and not record.passed
    assert record.failure_class is FailureClass.FORMAT, record.audit_messages
    art = tmp_path / "home" / "artifacts" / "adhoc" / record.key.slug
    assert json.loads((art / "record.json").read_text())["passed"] is False


def test_human_output_and_exit_codes(tmp_path: Path) -> None:
    require_backend("local")
    code, out = _run(tmp_path, "si-eos-analysis", "--agent", "null", "--backend", "local", "--time-limit", "60")
    assert code == 1
    assert "FAILED (operational/format)" in out and "audit passed" in out and "artifacts:" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["si-eos-analysis", "--agent", "nobody"], "unknown agent 'nobody'"),
        (["si-eos-analysis", "--agent", "null", "--backend", "nowhere"], "'nowhere' is not one of"),
        (["si-eos-analysis", "--agent", "null", "--condition", "XX"], "unknown condition 'XX'"),
        (["si-eos-analysis", "--agent", "null", "--condition", "WF"], "runs under SF, SR only"),
        (["no-such-task", "--agent", "null"], "unknown task"),
        (["si-eos-analysis", "--agent", "null", "--agent-option", "oops"], "KEY=VALUE"),
    ],
)
def test_bad_requests_are_explained(tmp_path: Path, args: list[str], message: str) -> None:
    code, out = _run(tmp_path, *args)
    assert code == 2 and message in out, out  # refused before anything starts
    assert not (tmp_path / "home").exists()
