"""Study nio-hubbard-u (AFM-II NiO with DFT+U): traps, physics of the references, oracles.

Tasks: nio-vasp-afm-u-inputs (input preparation, VASP, graded statically), nio-u-analysis (output analysis of a
staged pw.x U scan with an equation of state at each U) and nio-u-stiffness-magnetovolume (bulk modulus and
magnetovolume slope of the Ni moment from the same scan). The fairness cases, the recall baseline and the tolerance
edges on the oracle's answer run in tests/tasks/test_gates.py; this module adds the study's own traps (those that
need the staged outputs to build) and physics. Both oracles are quick Python scripts.
"""

from __future__ import annotations

import copy
import re
import shutil

import numpy as np
import pytest
import yaml

from cmb.catalog import stage_bundle
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    reference_answer,
)

STUDY = "nio-hubbard-u"
ALL = ["nio-vasp-afm-u-inputs", "nio-u-analysis", "nio-vasp-optics-inputs", "nio-u-stiffness-magnetovolume"]
NIO, NU = ALL[:2]
SERIES = ["U0", "U2", "U4", "U6", "U8"]


@pytest.mark.parametrize("task", ALL)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert_entry_is_consistent(task, STUDY)


@pytest.mark.parametrize("task", ALL)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.parametrize("task", ALL)
def test_staged_workspace_alone_fails(task, tmp_path):
    stage_bundle(entry(task), Condition.SF, tmp_path)
    assert not grade_dir(task, tmp_path).passed


@pytest.mark.parametrize("task", ALL)
def test_oracle_passes(task, oracle_dirs):
    report = grade_dir(task, oracle_dirs[task])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_study_graph_and_cost():
    study = yaml.safe_load((ROOT / "tasks" / STUDY / "study.yaml").read_text())
    assert sorted(t for s in study["steps"] for t in s.get("tasks", [])) == sorted(ALL)
    cost = yaml.safe_load((ROOT / "references" / NU / "reproduce" / "cost.yaml").read_text())
    assert cost["core_minutes"] >= 10


# ------------------------------------------------------------------------------------------------ nio-vasp-afm-u-inputs


def test_nio_reference_input_set_passes(tmp_path):
    for name in ("INCAR", "KPOINTS", "POSCAR", "POTCAR.spec"):
        shutil.copyfile(entry(NIO).reference_dir / name, tmp_path / name)
    assert grade_dir(NIO, tmp_path).passed


def test_nio_reduced_prompt_states_every_bound():
    """The bounds the grader enforces (cutoff, EDIFF, steps, smearing, k spacing) are in both prompts."""
    for condition in (Condition.SF, Condition.SR):
        text = re.sub(r"\s+", " ", entry(NIO).prompt(condition))
        for phrase in (
            "1.3 times the largest ENMAX",
            "10⁻⁵ eV or better",
            "at least 10 ionic steps",
            "at most 0.1 eV",
            "at most 0.35 Å⁻¹",
        ):
            assert phrase in text, (condition, phrase)


# ------------------------------------------------------------------------------------------------ nio-u-analysis


def _out(name: str) -> str:
    return (entry(NU).workspace_dir / f"{name}.out").read_text()


def _vbm(text: str) -> float:
    final = text[text.rindex("End of self-consistent calculation") :]
    occupied = []
    for block in final.split("bands (ev):")[1:]:
        eig, _, rest = block.partition("occupation numbers")
        occ = re.findall(r"-?\d+\.\d+", re.split(r"\n\s*\n\s*(?:k =|-+ SPIN|the Fermi)", rest, maxsplit=1)[0])
        occupied += [float(e) for e, f in zip(re.findall(r"-?\d+\.\d+", eig), occ, strict=False) if float(f) > 0.5]
    return max(occupied)


def test_nio_u_outputs_show_the_ignored_hubbard_card():
    decoy = _out("nio_U7_a4.17")
    assert "card HUBBARD {ATOMIC} ignored" in decoy and "Simplified LDA+U" not in decoy
    assert all("Simplified LDA+U" in _out(f"nio_{s}_a4.17") for s in SERIES[1:])
    assert "Simplified LDA+U" not in _out("nio_U0_a4.17")
    # the decoy is a second plain-PBE run: the same energy as nio_U0 at 4.17 A
    energy = [re.findall(r"^!\s+total energy\s+=\s+(\S+)", _out(n), re.M)[-1] for n in ("nio_U7_a4.17", "nio_U0_a4.17")]
    assert abs(float(energy[0]) - float(energy[1])) < 1e-6


def test_nio_u_reference_physics():
    """The gap opens and the Ni moment and lattice constant grow with U; a0 lies inside every scanned range."""
    ref = {k: v.value for k, v in entry(NU).reference().values.items()}
    gaps = [ref[f"gap_{s}"] for s in SERIES]
    moments = [ref[f"ni_moment_{s}"] for s in SERIES]
    a0 = [ref[f"a0_{s}"] for s in SERIES]
    assert gaps == sorted(gaps) and moments == sorted(moments) and a0 == sorted(a0)
    assert all(4.09 < a < 4.29 for a in a0)
    assert ref["U_applied_U7"] == 0.0 and abs(ref["gap_U7"] - ref["gap_U0"]) < 1e-3


def test_nio_u_traps(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[NU])
    # U taken from the file name: nio_U7 ran without U (its HUBBARD card was ignored by pw.x 6.7)
    answer = copy.deepcopy(base)
    answer["series"]["nio_U7"]["U_applied_eV"] = 7.0
    assert failed(grade_answer(NU, answer, tmp_path / "a")) == {"u-u7"}
    # ... and fitted at U = 7 eV
    runs = [(7.0 if k == "nio_U7" else r["U_applied_eV"], r["gap_eV"]) for k, r in base["series"].items()]
    with_u = [(u, g) for u, g in runs if u > 0]
    answer["dgap_dU"] = float(np.polyfit(*zip(*with_u, strict=True), 1)[0])
    assert "dgap-du" in failed(grade_answer(NU, answer, tmp_path / "b"))
    # U = 0 runs included in the fit
    answer = copy.deepcopy(base)
    us = [r["U_applied_eV"] for r in base["series"].values()]
    answer["dgap_dU"] = float(np.polyfit(us, [r["gap_eV"] for r in base["series"].values()], 1)[0])
    assert failed(grade_answer(NU, answer, tmp_path / "c")) == {"dgap-du"}
    # smeared Fermi energy taken as a band edge (CBM - E_F)
    answer = copy.deepcopy(base)
    for key in answer["series"]:
        text = _out(f"{key}_a4.17")
        ef = float(re.findall(r"the Fermi energy is\s+(\S+)", text)[-1])
        answer["series"][key]["gap_eV"] = _vbm(text) + base["series"][key]["gap_eV"] - ef
    assert failed(grade_answer(NU, answer, tmp_path / "d")) == {
        f"gap-{k.split('_')[1].lower()}" for k in base["series"]
    }
    # half the absolute magnetization taken as the Ni moment
    answer = copy.deepcopy(base)
    for key in answer["series"]:
        text = _out(f"{key}_a4.17")
        answer["series"][key]["ni_moment_muB"] = float(re.findall(r"absolute magnetization\s+=\s+(\S+)", text)[-1]) / 2
    assert failed(grade_answer(NU, answer, tmp_path / "e")) == {
        f"moment-{k.split('_')[1].lower()}" for k in base["series"]
    }
    # a0 read off as V^(1/3) of the 4-atom cell, as if it were the cube
    answer = copy.deepcopy(base)
    for s in SERIES:
        answer["series"][f"nio_{s}"]["a0_angstrom"] = (base["series"][f"nio_{s}"]["a0_angstrom"] ** 3 / 2) ** (1 / 3)
    assert failed(grade_answer(NU, answer, tmp_path / "f")) == {f"a0-{s.lower()}" for s in SERIES}


def test_nio_u_tolerance_edges_around_the_reference(tmp_path):
    base = reference_answer(NU)
    base["series"]["nio_U0"]["U_applied_eV"] = 0.0  # a required field without a check: plain PBE has no U to misread
    assert grade_answer(NU, base, tmp_path / "ref").passed
    assert_tolerance_edges(NU, base, tmp_path)


# ------------------------------------------------------------------------------------- nio-u-stiffness-magnetovolume

NS = "nio-u-stiffness-magnetovolume"


def _ns_values():
    import importlib.util

    path = ROOT / "references" / NS / "reproduce" / "values.py"
    spec = importlib.util.spec_from_file_location("nio_ns_values", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_nio_ns_staged_outputs_are_the_u_scan():
    """The 30 staged outputs are those of nio-u-analysis (same precomputed step), without the mislabelled run."""
    names = [p.name for p in sorted(entry(NS).workspace_dir.glob("*.out"))]
    assert len(names) == 30 and not any(n.startswith("nio_U7") for n in names)
    for n in names:
        assert (entry(NS).workspace_dir / n).read_bytes() == (entry(NU).workspace_dir / n).read_bytes()


def test_nio_ns_reference_physics():
    """B0 falls with U as the lattice expands, B0' < 4, the moment grows with volume in every series, and the
    committed values (and nio-u-analysis's a0) come out of the reference script."""
    mod = _ns_values()
    vals = mod.values(entry(NS).workspace_dir)
    ref = {k: v.value for k, v in entry(NS).reference().values.items()}
    for key, value in ref.items():
        assert vals[key] == pytest.approx(value, rel=1e-4, abs=1e-5)
    b0 = [vals[f"B0_{s}"] for s in SERIES]
    assert b0 == sorted(b0, reverse=True) and ref["dB0_dU"] < 0
    assert all(3.0 < vals[f"Bprime_{s}"] < 4.0 for s in SERIES)
    assert all(vals[f"dm_dlnV_{s}"] > 0.3 for s in SERIES)
    nu = {k: v.value for k, v in entry(NU).reference().values.items()}
    assert all(vals[f"a0_{s}"] == pytest.approx(nu[f"a0_{s}"], abs=1e-4) for s in SERIES)


def test_nio_ns_traps(oracle_dirs, tmp_path):
    base = read_answer(oracle_dirs[NS])
    # energy per 4-atom cell against volume per formula unit: every B0 and the slope doubled
    answer = copy.deepcopy(base)
    for s in SERIES:
        answer["series"][f"nio_{s}"]["B0_GPa"] *= 2
    answer["dB0_dU"] *= 2
    assert failed(grade_answer(NS, answer, tmp_path / "a")) == {f"b0-{s.lower()}" for s in SERIES[1:]} | {"db0-du"}
    # slope of the moment against ln a instead of ln V
    answer = copy.deepcopy(base)
    for s in SERIES:
        answer["series"][f"nio_{s}"]["dm_dlnV_muB"] *= 3
    assert failed(grade_answer(NS, answer, tmp_path / "b")) == {f"dm-dlnv-{s.lower()}" for s in SERIES}
    # the B0 slope without the plain-PBE series
    b0 = [base["series"][f"nio_{s}"]["B0_GPa"] for s in SERIES[1:]]
    answer = {**copy.deepcopy(base), "dB0_dU": float(np.polyfit([2, 4, 6, 8], b0, 1)[0])}
    assert failed(grade_answer(NS, answer, tmp_path / "c")) == {"db0-du"}


def test_nio_ns_tolerance_edges_around_the_oracle_answer(oracle_dirs, tmp_path):
    assert_tolerance_edges(NS, read_answer(oracle_dirs[NS]), tmp_path)
