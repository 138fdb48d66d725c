"""Task nio-vasp-optics-inputs (study nio-hubbard-u, step loss-spectra): VASP inputs for the independent-particle
dielectric function of AFM-II NiO with PBE+U, graded statically.

The fairness cases and the recall baseline also run in tests/tasks/test_gates.py; this module grades every case as
its record says and adds the traps a referee names (each failing exactly its own check), the edges of every bound
the grader applies, the reduced-prompt rule and the physics behind the band bound (reproduce/band_count.py).
"""

from __future__ import annotations

import re
import shutil

import pytest
import yaml

from cmb.catalog import apply_case
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    edited_oracle_inputs,
    entry,
    failed,
    grade_dir,
    incar_dict,
)

STUDY = "nio-hubbard-u"
TASK = "nio-vasp-optics-inputs"
RHOMBOHEDRAL = (
    "NiO AFM-II rhombohedral cell\n1.0\n4.17 2.085 2.085\n2.085 4.17 2.085\n2.085 2.085 4.17\nNi O\n2 2\nDirect\n"
    "0 0 0\n0.5 0.5 0.5\n0.25 0.25 0.25\n0.75 0.75 0.75\n"
)


def _ref(key: str):
    return entry(TASK).reference().values[key].value


def _check(check_id: str):
    return next(c for c in entry(TASK).grader().checks if c.id == check_id)


def _mesh(n: int) -> str:
    return f"Gamma-centred mesh\n0\nGamma\n{n} {n} {n}\n0 0 0\n"


# ------------------------------------------------------------------------------------------------ files and oracle


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(TASK, STUDY, extra_reference_files=("reproduce/band_count.py", "fairness.yaml"))


def test_task_is_the_loss_spectra_step():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    step = next(s for s in study["steps"] if s["id"] == "loss-spectra")
    assert TASK in step["tasks"]
    assert "u-dependence" in step["consumes"]


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_reference_input_set_passes(tmp_path):
    for name in ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"):
        shutil.copyfile(entry(TASK).reference_dir / name, tmp_path / name)
    report = grade_dir(TASK, tmp_path)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_ground_state_inputs_fail(tmp_path):
    """The sibling's relaxation deck is not an optics run: no LOPTICS, default bands, relaxation, SCF mesh."""
    for name in ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"):
        shutil.copyfile(entry("nio-vasp-afm-u-inputs").reference_dir / name, tmp_path / name)
    assert {"loptics", "nbands", "nedos", "nsw", "kpoints"} <= failed(grade_dir(TASK, tmp_path))


# ------------------------------------------------------------------------------------------------ fairness, recall


CASES = entry(TASK).fairness().cases


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_fairness_case_is_graded_as_recorded(case, oracle_dirs, tmp_path):
    report = grade_dir(TASK, apply_case(case, oracle_dirs[TASK], tmp_path / case.id))
    if case.expect == "pass":
        assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
    else:
        assert set(case.covers) <= failed(report), (case.covers, failed(report))


def test_fairness_record_covers_every_scientific_check_both_ways():
    checks = {c.id for c in entry(TASK).grader().checks if c.category != "format"}
    for expect in ("pass", "fail"):
        covered = {cid for c in CASES if c.expect == expect for cid in c.covers}
        assert checks <= covered, (expect, checks - covered)


def test_qc_names_every_fairness_case():
    qc = (entry(TASK).reference_dir / "QC.md").read_text()
    assert all(f"`{c.id}`" in qc for c in CASES), [c.id for c in CASES if f"`{c.id}`" not in qc]


def test_recall_fails_on_the_knowledge_a_generic_optics_deck_lacks(tmp_path):
    for name, text in entry(TASK).recall().submission().items():
        (tmp_path / name).write_text(text)
    assert failed(grade_dir(TASK, tmp_path)) == {"lmaxmix", "lasph", "kpoints"}  # its 48 bands are enough


# ------------------------------------------------------------------------------------------------ the referee's traps


@pytest.mark.parametrize(
    ("set_", "drop", "expected"),
    [
        ({}, ("NBANDS",), {"nbands"}),  # VASP's default band count (about 26, 4 empty)
        ({}, ("LMAXMIX",), {"lmaxmix"}),  # default 2: the d occupancies are not mixed
        ({}, ("LASPH",), {"lasph"}),
        ({"LDAUU": "0 0"}, (), {"ldauu"}),  # U dropped
        ({}, ("LDAU",), {"ldau"}),
        ({"MAGMOM": "2.0 2.0 0.0 0.0"}, (), {"structure-and-order"}),  # ferromagnetic start
        ({}, ("LOPTICS",), {"loptics"}),
        ({"NEDOS": "301"}, (), {"nedos"}),  # tiny grid
        ({"ISMEAR": "1", "SIGMA": "0.2"}, (), {"ismear"}),  # Methfessel-Paxton smears the gap edge
        ({"ALGO": "Eigenval"}, (), {"algo"}),  # needs an earlier WAVECAR
        ({"ALGO": "CHI"}, (), {"algo"}),
        ({"LDAUTYPE": "1", "LDAUJ": "1.0 0.0"}, (), {"ldauj"}),  # Liechtenstein with J: U - J is no longer 6.2
    ],
    ids=[
        "default-nbands",
        "lmaxmix-2",
        "lasph-off",
        "u-zero",
        "ldau-off",
        "fm",
        "no-loptics",
        "nedos-301",
        "mp-smearing",
        "algo-eigenval",
        "algo-chi",
        "liechtenstein-j",
    ],
)
def test_trap_fails_exactly_its_check(set_, drop, expected, oracle_dirs, tmp_path):
    assert failed(edited_oracle_inputs(TASK, oracle_dirs, tmp_path, set_=set_, drop=drop)) == expected


@pytest.mark.parametrize(
    ("set_", "drop"),
    [
        ({"ISMEAR": "-5"}, ()),  # tetrahedron
        ({"ISMEAR": "-4"}, ()),
        ({"ISMEAR": "0", "SIGMA": "0.01"}, ()),
        ({"NBANDS": "120", "NEDOS": "6000"}, ()),
        ({"LDAUTYPE": "1"}, ()),  # Liechtenstein with J = 0 is Dudarev's functional
        ({"ALGO": "Normal"}, ()),
        ({}, ("ALGO", "NSW", "CSHIFT", "LDAUTYPE", "LDAUL", "LDAUJ")),  # VASP's defaults
    ],
    ids=[
        "tetrahedron-bloechl",
        "tetrahedron",
        "gaussian-narrow",
        "more-bands-finer-grid",
        "liechtenstein-j0",
        "algo-normal",
        "defaults",
    ],
)
def test_valid_alternative_passes(set_, drop, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(TASK, oracle_dirs, tmp_path, set_=set_, drop=drop)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


# ------------------------------------------------------------------------------------------------ threshold edges


@pytest.mark.parametrize(
    ("tag", "inside", "outside", "check"),
    [
        ("NEDOS", "2000", "1999", "nedos"),
        ("SIGMA", "0.1", "0.11", "sigma"),
        ("CSHIFT", "0.2", "0.21", "cshift"),
        ("EDIFF", "1E-6", "1.1E-6", "ediff"),
        ("ENCUT", "400", "399", "encut"),
        ("NSW", "0", "1", "nsw"),
    ],
)
def test_bound_edges(tag, inside, outside, check, oracle_dirs, tmp_path):
    assert edited_oracle_inputs(TASK, oracle_dirs, tmp_path / "in", set_={tag: inside}).passed
    assert failed(edited_oracle_inputs(TASK, oracle_dirs, tmp_path / "out", set_={tag: outside})) == {check}


def test_nbands_edge_is_the_measured_band_count(oracle_dirs, tmp_path):
    need = _ref("nbands_min")
    assert _check("nbands").params["min"] == need
    assert edited_oracle_inputs(TASK, oracle_dirs, tmp_path / "in", set_={"NBANDS": str(need)}).passed
    short = edited_oracle_inputs(TASK, oracle_dirs, tmp_path / "out", set_={"NBANDS": str(need - 1)})
    assert failed(short) == {"nbands"}


@pytest.mark.parametrize(("n", "passes"), [(9, False), (10, True), (12, True)])
def test_kpoint_spacing_edge_in_the_rhombohedral_cell(n, passes, oracle_dirs, tmp_path):
    report = edited_oracle_inputs(TASK, oracle_dirs, tmp_path, files={"POSCAR": RHOMBOHEDRAL, "KPOINTS": _mesh(n)})
    assert report.passed is passes
    if not passes:
        assert failed(report) == {"kpoints"}
    spacing = _ref("kpoint_spacing_by_mesh")[str(n)] if isinstance(_ref("kpoint_spacing_by_mesh"), dict) else None
    assert spacing is None or (spacing <= 0.25) is passes


# ------------------------------------------------------------------------------------------------ prompts and physics


def test_reduced_prompt_states_every_target():
    """Every bound the grader enforces is in both prompts; the reduced prompt names no tag value from Method."""
    for condition in (Condition.SF, Condition.SR):
        text = re.sub(r"\s+", " ", entry(TASK).prompt(condition))
        for phrase in (
            "every interband transition below 30 eV",
            "at least 2000 points",
            "at most 0.2 eV",
            "at most 0.25 Å⁻¹",
            "at most 0.1 eV, or the tetrahedron method",
            "10⁻⁶ eV or better",
            "at least the largest ENMAX",
            "without ionic steps",
            "U_eff = U − J = 6.2 eV",
            "22 occupied bands in each spin channel",
            "Ni_pv (16 valence electrons",
            "`LDAUJ = 0` if you write it",
        ):
            assert phrase in text, (condition, phrase)
    reduced = entry(TASK).prompt(Condition.SR)
    assert "LMAXMIX" not in reduced and "NBANDS = " not in reduced


def test_every_bounded_check_names_its_sentence_in_both_prompts():
    prompts = [re.sub(r"\s+", " ", entry(TASK).prompt(c)) for c in (Condition.SF, Condition.SR)]
    for check in entry(TASK).grader().checks:
        params = check.params or {}
        bounded = any(k in params for k in ("min", "max", "max_spacing", "min_kppra"))
        if bounded:
            assert check.states, check.id
        for sentence in check.states or []:
            assert all(re.sub(r"\s+", " ", sentence).strip() in p for p in prompts), (check.id, sentence)


def test_band_bound_physics():
    """The band minima rise with the band index; the bound is the first band 30 eV up, plus the Ni 3p shell."""
    minima = _ref("band_min_above_vbm_eV")
    need_ni = _ref("nbands_min_ni")
    assert all(b >= a - 1e-9 for a, b in zip(minima, minima[1:], strict=False))
    assert minima[need_ni - 1] >= 30.0 > minima[need_ni - 2]
    assert _ref("nbands_min") == need_ni + 6
    assert 2.0 < _ref("gap_pw_eV") < 5.0  # PBE+U opens the NiO gap
    # the Method's rule (at least twice the 22 occupied bands) clears the bound; VASP's default (about 26) does not
    assert 2 * 22 >= _ref("nbands_min") > 26


def test_oracle_nbands_rule(oracle_dirs):
    tags = incar_dict((oracle_dirs[TASK] / "INCAR").read_text())
    assert int(tags["NBANDS"]) >= _ref("nbands_min")
