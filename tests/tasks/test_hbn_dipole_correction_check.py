"""hbn-dipole-correction-check (study hbn-sliding-ferroelectricity, step vacuum-check): the relaxed AB bilayer of
the sliding path in pw.x with and without the dipole correction, at 25 and 35 A.

The staged structure is the path's relaxed AB bilayer and the pseudopotentials are the relax-inputs task's; every
numeric check is probed at its tolerance edges around the reference; the traps fail their checks. The oracle runs
pw.x (three SCF runs, about 75 s on 2 cores): its tests are `slow` and skipped where pw.x is not installed.
"""

from __future__ import annotations

import filecmp
import shutil

import pytest

from tests.tasks._helpers import (
    CATALOG,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
    with_field,
)

STUDY = "hbn-sliding-ferroelectricity"
TASK = "hbn-dipole-correction-check"
PATH = "hbn-sliding-potential-step"
INPUTS = "hbn-sliding-relax-inputs"
RY_MEV = 13605.693123
needs_pw = pytest.mark.skipif(
    not all(shutil.which(x) for x in ("pw.x", "pp.x", "average.x")), reason="Quantum ESPRESSO not installed"
)


def ref(key: str) -> float:
    return entry(TASK).reference().values[key].value


def test_entry_is_consistent_and_reduced_prompt_drops_only_the_method():
    assert entry(TASK).has_reduced
    assert_entry_is_consistent(TASK, STUDY, extra_reference_files=["reproduce/values.py", "solution/dipole_check.py"])


def test_task_sits_on_the_vacuum_check_step_of_the_path():
    study = CATALOG.studies[STUDY].spec
    steps = {s.id: s for s in study.steps}
    assert TASK in steps["vacuum-check"].tasks
    assert study.upstream("vacuum-check") == {"sliding-path"}


def test_staged_structure_is_the_paths_relaxed_ab_bilayer():
    ws, path = entry(TASK).workspace_dir, entry(PATH).workspace_dir / "path"
    assert filecmp.cmp(ws / "ab.relax.out", path / "s1.00.relax.out", shallow=False)
    assert filecmp.cmp(ws / "ab.relax.in", path / "s1.00.relax.in", shallow=False)
    assert "bfgs converged" in (ws / "ab.relax.out").read_text()


def test_staged_pseudopotentials_are_the_relax_inputs_tasks():
    ws, inputs = entry(TASK).workspace_dir / "pseudo", entry(INPUTS).workspace_dir / "pseudo"
    for name in ("B.pbe-n-rrkjus_psl.1.0.0.UPF", "N.pbe-n-rrkjus_psl.1.0.0.UPF"):
        assert filecmp.cmp(ws / name, inputs / name, shallow=False), name


def test_reduced_prompt_states_every_target():
    e = entry(TASK)
    reduced = e.prompt(e.conditions()[1])
    for text in ("35 Ry", "280 Ry", "6×6×1", "1e-8", "emaxpos = 0.95", "35 Å", "4 Å", "plot_num = 11", "meV/Å"):
        assert text in reduced, text
    for key in ("delta_V_corrected_meV", "field_meV_per_angstrom", "delta_V_naive_meV", "naive_relative_error"):
        assert key in reduced, key
    for check in e.grader().checks:
        for sentence in getattr(check, "states", None) or []:
            assert " ".join(sentence.split()) in " ".join(reduced.split()), check.id


def test_reference_physics():
    """Without the correction the images' field tilts the vacuum and shrinks the naive step, less so in the taller
    cell; the field is stronger than the unscreened -dV/c; the lighter settings move the step by under 1 %."""
    step = ref("delta_V_corrected_meV")
    f25, f35 = ref("field_c25_meV_per_angstrom"), ref("field_c35_meV_per_angstrom")
    assert 80 < step < 90
    assert f25 < f35 < 0 and f25 < -step / 25 and f35 < -step / 35
    assert ref("naive_rel_error_c25") < ref("naive_rel_error_c35") < 0
    assert ref("naive_rel_error_c25") == pytest.approx(ref("naive_c25_meV") / step - 1, abs=1e-4)
    assert ref("naive_rel_error_c35") == pytest.approx(ref("naive_c35_meV") / step - 1, abs=1e-4)
    path_ab = entry(PATH).reference().values["delta_V_AB_meV"].value
    assert step == pytest.approx(path_ab, rel=0.01)


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_reference_answer_passes(tmp_path):
    assert grade_answer(TASK, reference_answer(TASK), tmp_path).passed


def test_tolerance_edges(tmp_path):
    assert_tolerance_edges(TASK, reference_answer(TASK), tmp_path)


def _trap(r: dict) -> list:
    step = ref("delta_V_corrected_meV")
    return [
        ("potential-amp", "delta_V_corrected_meV", 0.0059 * RY_MEV, {"step-corrected"}),
        ("ry-read-as-ev", "delta_V_corrected_meV", step / 13.605693, {"step-corrected"}),
        ("field-sign", "field_meV_per_angstrom.c25", -ref("field_c25_meV_per_angstrom"), {"field-25"}),
        ("cells-swapped", "field_meV_per_angstrom.c35", ref("field_c25_meV_per_angstrom"), {"field-35"}),
        ("unscreened-ideal", "field_meV_per_angstrom.c25", -step / 25, {"field-25"}),
        ("cell-ends", "delta_V_naive_meV.c25", 0.09, {"naive-25"}),
        ("naive-swapped", "delta_V_naive_meV.c35", ref("naive_c25_meV"), {"naive-35"}),
        ("percent", "naive_relative_error.c25", 100 * ref("naive_rel_error_c25"), {"relerr-25"}),
        ("relerr-swapped", "naive_relative_error.c35", ref("naive_rel_error_c25"), {"relerr-35"}),
    ]


@pytest.mark.parametrize("case", range(9))
def test_traps_fail_their_check_alone(case, tmp_path):
    base = reference_answer(TASK)
    name, field, value, expected = _trap(base)[case]
    assert failed(grade_answer(TASK, with_field(base, field, value), tmp_path)) == expected, name


@pytest.mark.slow
@needs_pw
def test_oracle_passes_and_reproduces_the_reference(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
    answer = read_answer(oracle_dirs[TASK])
    assert answer["delta_V_corrected_meV"] == pytest.approx(ref("delta_V_corrected_meV"), rel=2e-3)
    assert answer["field_meV_per_angstrom"]["c35"] == pytest.approx(ref("field_c35_meV_per_angstrom"), rel=2e-3)
    out = (oracle_dirs[TASK] / "runs" / "a" / "pw.out").read_text()
    assert "no symmetry" in out and "DFT-D3 Dispersion" in out
