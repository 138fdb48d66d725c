"""Task cu-qha-versus-md (study cu-eam): classical QHA lattice constants against the staged NPT MD logs.

The staged logs are those of cu-npt-expansion-analysis and the potential that of cu-qha, byte for byte. The MD
side of every trap is recomputed here from the logs; the QHA side comes from the fairness record (numbers of
reproduce/alternatives.py). The oracle runs LAMMPS and phonopy (about 5 s of CPU) and is `slow`.
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
from tests.tasks._helpers import (
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
    run_oracle,
    set_field,
    task_dir,
)

TASK = "cu-qha-versus-md"
TEMPS = [100, 200, 300, 400, 500]
LOGS = [entry(TASK).workspace_dir / f"npt_{t}K.log" for t in TEMPS]
N = 864
needs_codes = pytest.mark.skipif(
    shutil.which("lmp") is None or __import__("importlib").util.find_spec("phonopy") is None,
    reason="LAMMPS or phonopy not installed",
)


def _blocks(path: Path) -> list[np.ndarray]:
    """Box volumes of each thermo block of a log."""
    out: list[np.ndarray] = []
    header: list[str] | None = None
    rows: list[float] = []
    for line in path.read_text().splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            header, rows = words, []
        elif header is not None and line.startswith("Loop time"):
            out.append(np.array(rows))
            header = None
        elif header is not None:
            rows.append(float(words[header.index("Volume")]))
    return out


BLOCKS = [_blocks(log) for log in LOGS]


def _a(volumes: np.ndarray) -> float:
    return float(np.mean((4 * volumes / N) ** (1 / 3)))


def _fairness() -> dict[str, dict[str, Any]]:
    """Each fairness case's answer: the reference answer with the case's fields set."""
    doc = yaml.safe_load((entry(TASK).reference_dir / "fairness.yaml").read_text())
    out = {}
    for case in doc["cases"]:
        answer = copy.deepcopy(reference_answer(TASK))
        for key, value in case["answer"].items():
            set_field(answer, key, value)
        out[case["id"]] = answer
    return out


def _with_delta(delta: list[float]) -> dict[str, Any]:
    answer = copy.deepcopy(reference_answer(TASK))
    answer["delta_a_angstrom"] = [round(d, 5) for d in delta]
    return answer


# ------------------------------------------------------------------------------------------------ files


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(
        TASK, "cu-eam", ("fairness.yaml", "recall.yaml", "reproduce/qvm_reference.py", "reproduce/alternatives.py")
    )


def test_staged_files_are_the_upstream_tasks_byte_for_byte():
    ours = entry(TASK)
    for sibling, names in (("cu-npt-expansion-analysis", [p.name for p in LOGS]), ("cu-qha", ["Cu_u3.eam"])):
        for name in names:
            theirs = entry(sibling).workspace_dir / name
            assert (ours.workspace_dir / name).read_bytes() == theirs.read_bytes(), name


def test_task_sits_on_the_step_that_joins_qha_and_md():
    study = yaml.safe_load((task_dir("cu-eam", TASK).parent / "study.yaml").read_text())
    step = next(s for s in study["steps"] if TASK in s.get("tasks", []))
    assert step["id"] == "qha-versus-md" and set(step["consumes"]) == {"quasi-harmonic", "npt-md"}
    assert entry(TASK).spec.required_codes == ["lmp"]


def test_both_prompts_state_the_classical_convention_and_the_sign():
    e = entry(TASK)
    for condition in e.conditions():
        text = re.sub(r"\s+", " ", e.prompt(condition))
        assert "k_B T ln(ħω / k_B T), with no zero-point energy" in text
        assert "a_MD(T) − a_QHA(T)" in text and "(conventional, four-atom)" in text


# ------------------------------------------------------------------------------------------------ baseline gates


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_staged_workspace_alone_fails(tmp_path):
    e = entry(TASK)
    stage_bundle(e, e.conditions()[0], tmp_path)
    assert not grade_dir(TASK, tmp_path).passed


def test_reference_passes_with_sharp_tolerance_edges(tmp_path):
    ref = reference_answer(TASK)
    assert grade_answer(TASK, ref, tmp_path / "ref").passed
    assert_tolerance_edges(TASK, ref, tmp_path)


def _offset(check_id: str, answer: dict[str, Any]) -> float:
    """Largest element distance of an answer from the reference, in units of the check's tolerance."""
    check = next(c for c in entry(TASK).grader().checks if c.id == check_id)
    ref = np.atleast_1d(entry(TASK).reference().values[check.reference].value)
    got = np.atleast_1d(answer[check.target.field])
    tol = check.effective_tolerance
    width = tol.width * np.abs(ref) if tol.is_relative else tol.width
    return float(np.max(np.abs(got - ref) / width))


def test_valid_routes_and_traps_clear_the_tolerances():
    answers = _fairness()
    valid = ["smallest-supercell", "murnaghan-eos", "narrower-grid", "md-second-half", "md-first-half-3x3x3"]
    traps = {"quantum-occupation": {"a-qha", "delta-a", "alpha-l-qha"}, "every-md-row-averaged": {"delta-a"},
             "reversed-sign": {"delta-a"}, "md-coefficient": {"alpha-l-qha"}}  # fmt: skip
    for check_id in ("a-qha", "delta-a", "alpha-l-qha"):
        assert max(_offset(check_id, answers[case]) for case in valid) < 0.9, check_id
    for case, checks in traps.items():
        for check_id in checks:
            assert _offset(check_id, answers[case]) > 1.3, (case, check_id)


# ------------------------------------------------------------------------------------------------ physics and traps


def test_reference_difference_is_the_production_average_minus_the_qha():
    ref = reference_answer(TASK)
    a_md = [_a(b[-1]) for b in BLOCKS]
    upstream = entry("cu-npt-expansion-analysis").reference().values["a_angstrom"].value
    assert a_md == pytest.approx(upstream, abs=1e-5)
    delta = [m - q for m, q in zip(a_md, ref["a_QHA_classical_angstrom"], strict=True)]
    assert delta == pytest.approx(ref["delta_a_angstrom"], abs=1.5e-5)


def test_classical_qha_has_no_zero_point_offset_and_grows_quadratically():
    ref = reference_answer(TASK)
    a = np.array(ref["a_QHA_classical_angstrom"])
    # classical expansion is linear in T at low T: a(100 K) - a0 is a fifth of a(500 K) - a0 to within 15%
    assert (a[0] - 3.615) / (a[-1] - 3.615) == pytest.approx(0.2, rel=0.15)
    # the quantum QHA of cu-qha lies above by the zero-point expansion, about 0.0011 A at 300 K
    quantum_300 = entry("cu-qha").reference().values["a_300K_angstrom"].value
    assert 0.0008 < quantum_300 - a[2] < 0.0015
    # the anharmonic difference is small at 100 K and grows in magnitude monotonically, roughly as T^2
    d = np.array(ref["delta_a_angstrom"])
    assert abs(d[0]) < 1e-4 and np.all(np.diff(d) < 0)
    assert d[-1] / d[2] == pytest.approx((500 / 300) ** 2, rel=0.3)
    alpha = ref["alpha_L_QHA_classical_300K_per_K"]
    assert alpha == pytest.approx(np.gradient(a, 100.0)[2] / a[2], rel=0.02)


def test_every_row_average_from_the_logs_fails_delta(tmp_path):
    ref = reference_answer(TASK)
    a_all = [_a(np.concatenate(b)) for b in BLOCKS]
    delta = [m - q for m, q in zip(a_all, ref["a_QHA_classical_angstrom"], strict=True)]
    assert failed(grade_answer(TASK, _with_delta(delta), tmp_path)) == {"delta-a"}


def test_box_length_from_the_logs_fails_delta(tmp_path):
    ref = reference_answer(TASK)
    edge = [float(np.mean(b[-1] ** (1 / 3))) for b in BLOCKS]
    delta = [m - q for m, q in zip(edge, ref["a_QHA_classical_angstrom"], strict=True)]
    assert failed(grade_answer(TASK, _with_delta(delta), tmp_path)) == {"delta-a"}


@pytest.mark.parametrize("delta", [[0.0] * 5, [0.0, 1e-4, 3e-4, 6e-4, 1e-3]], ids=["harmonic", "positive-excess"])
def test_no_or_positive_anharmonic_difference_fails(delta, tmp_path):
    assert failed(grade_answer(TASK, _with_delta(delta), tmp_path)) == {"delta-a"}


# ------------------------------------------------------------------------------------------------ oracle


@pytest.mark.slow
@needs_codes
def test_oracle_passes_with_sharp_edges(oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    report = grade_answer(TASK, answer, tmp_path / "oracle")
    assert report.passed, [c.message for c in report.checks if not c.passed]
    assert_tolerance_edges(TASK, answer, tmp_path, every_element=False)
    assert (oracle_dirs[TASK] / "runs").is_dir()


@pytest.mark.slow
@needs_codes
def test_oracle_passes_under_the_reduced_prompt_too(tmp_path):
    e = entry(TASK)
    report = grade_dir(TASK, run_oracle(TASK, tmp_path, e.conditions()[1]))
    assert report.passed, [c.message for c in report.checks if not c.passed]
