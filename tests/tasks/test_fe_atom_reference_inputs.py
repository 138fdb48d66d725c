"""Task fe-atom-reference-inputs (study fe-bcc-magnetism): the pw.x input of the isolated spin-polarised Fe atom.

The fairness cases and the recall baseline run in tests/tasks/test_gates.py as well; this module grades every
fairness case with the exact set of checks it is recorded to fail, the edges of each bound (box faces 12 A
apart, a width of 0.01 Ry, the bulk cutoffs exactly), the reduced-prompt rule, and that the staged bulk output
is the study's own precomputed run with the cutoffs the grader asks for.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from cmb.catalog import stage_bundle
from cmb.models import Condition
from tests.tasks._helpers import (
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    entry,
    failed,
    grade_dir,
)

TASK = "fe-atom-reference-inputs"
STUDY = "fe-bcc-magnetism"
BULK = "fe_pbe_bcc_fm_08.out"


def _fairness() -> list[dict]:
    return yaml.safe_load((ROOT / "references" / TASK / "fairness.yaml").read_text())["cases"]


def _edited(oracle: Path, tmp_path: Path, edits: list[tuple[str, str]], name: str = "sub") -> Path:
    sub = shutil.copytree(oracle, tmp_path / name)
    text = (sub / "pw.in").read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    (sub / "pw.in").write_text(text)
    return sub


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert_entry_is_consistent(TASK, STUDY)
    full, reduced = entry(TASK).prompt(Condition.SF), entry(TASK).prompt(Condition.SR)
    assert reduced == re.sub(r"\n## Method\n.*?(?=\n## )", "", full, flags=re.S)
    assert "## Method" in full and "## Method" not in reduced


def test_reduced_prompt_states_every_graded_target():
    """Every `states` sentence is in the reduced prompt, and so are the targets of the checks without a bound."""
    reduced = " ".join(entry(TASK).prompt(Condition.SR).split())
    for check in entry(TASK).grader().checks:
        for sentence in check.states or []:
            assert " ".join(sentence.split()) in reduced, (check.id, sentence)
    for phrase in (
        "same pseudopotential",
        "plane-wave and charge-density cutoffs",
        BULK,
        "12 Å",
        "Γ point only",
        "spin-polarised",
        "Hund's rules",
        "constraining the total magnetization",
        "0.01 Ry",
        "self-consistent field (SCF)",
        "pseudo_dir",
        "`pw.in`",
    ):
        assert phrase in reduced, phrase
    assert "3d⁶" not in reduced and "tot_magnetization" not in reduced  # the spin count is the agent's


def test_empty_submission_and_staged_workspace_fail(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path / "empty")
    stage_bundle(entry(TASK), Condition.SF, tmp_path / "staged")
    assert not grade_dir(TASK, tmp_path / "staged").passed


def test_oracle_and_reference_input_pass(oracle_dirs, tmp_path):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
    ref = tmp_path / "ref"
    ref.mkdir()
    shutil.copyfile(entry(TASK).reference_dir / "pw.in", ref / "pw.in")
    assert grade_dir(TASK, ref).passed


def test_staged_bulk_run_is_the_precomputed_one_with_the_graded_cutoffs():
    staged = ROOT / "tasks" / STUDY / TASK / "workspace" / BULK
    precomputed = ROOT / "tasks" / STUDY / "fe-eos-analysis" / "workspace" / BULK
    assert staged.read_bytes() == precomputed.read_bytes()
    text = staged.read_text()
    checks = {c.id: c for c in entry(TASK).grader().checks}
    ref = entry(TASK).reference().values
    for key, label in (("ecutwfc", "kinetic-energy cutoff"), ("ecutrho", "charge density cutoff")):
        printed = float(re.search(label + r"\s*=\s*([\d.]+)", text).group(1))
        assert checks[key].params["min"] == checks[key].params["max"] == printed == ref[f"{key}_ry"].value
    assert "./pseudo/Fe.pbe-nd-rrkjus.UPF" in text and "PBE" in text
    pseudo = ROOT / "tasks" / STUDY / TASK / "workspace" / "pseudo" / "Fe.pbe-nd-rrkjus.UPF"
    sibling = ROOT / "tasks" / STUDY / "fe-pw-spin-inputs" / "workspace" / "pseudo" / "Fe.pbe-nd-rrkjus.UPF"
    assert pseudo.read_bytes() == sibling.read_bytes()


def test_box_bound_is_twelve_angstrom():
    checks = {c.id: c for c in entry(TASK).grader().checks}
    assert checks["box-size"].type == "qe.box"
    assert checks["box-size"].params["min_height"] == 12.0


@pytest.mark.parametrize("case", _fairness(), ids=lambda c: c["id"])
def test_fairness_case_grades_as_recorded(case, oracle_dirs, tmp_path):
    edits = [(e["old"], e["new"]) for e in case["edits"]]
    report = grade_dir(TASK, _edited(oracle_dirs[TASK], tmp_path, edits))
    if case["expect"] == "pass":
        assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]
    else:
        assert set(case["covers"]) <= failed(report), (case["id"], failed(report))
        # Nothing outside the recorded checks (and the readability of what pw.x refuses) fails.
        assert failed(report) <= {*case["covers"], "input-readable"}, (case["id"], failed(report))


@pytest.mark.parametrize(
    ("edge", "passes"),
    [("12.0", True), ("11.99", False), ("12.01", True)],
)
def test_box_edge_at_the_bound(edge, passes, oracle_dirs, tmp_path):
    sub = _edited(oracle_dirs[TASK], tmp_path, [("  A = 12.0\n", f"  A = {edge}\n")])
    assert ("box-size" not in failed(grade_dir(TASK, sub))) is passes


def test_box_bound_holds_on_every_axis(oracle_dirs, tmp_path):
    for i, (old, new) in enumerate((("  B = 12.5\n", "  B = 11.9\n"), ("  C = 13.0\n", "  C = 11.9\n"))):
        sub = _edited(oracle_dirs[TASK], tmp_path, [(old, new)], name=f"sub{i}")
        assert failed(grade_dir(TASK, sub)) == {"box-size"}


@pytest.mark.parametrize(("width", "passes"), [("0.01", True), ("0.0101", False), ("0.001", True), ("0.02", False)])
def test_smearing_width_at_the_bound(width, passes, oracle_dirs, tmp_path):
    sub = _edited(oracle_dirs[TASK], tmp_path, [("degauss = 0.005", f"degauss = {width}")])
    assert ("degauss" not in failed(grade_dir(TASK, sub))) is passes


@pytest.mark.parametrize(
    ("ecutwfc", "ecutrho", "bad"),
    [
        ("45.0", "360.0", set()),
        ("44.9", "360.0", {"ecutwfc"}),
        ("45.1", "360.0", {"ecutwfc"}),
        ("45.0", "359.0", {"ecutrho"}),
        ("45.0", "361.0", {"ecutrho"}),
    ],
)
def test_cutoffs_are_exactly_the_bulk_ones(ecutwfc, ecutrho, bad, oracle_dirs, tmp_path):
    sub = _edited(
        oracle_dirs[TASK],
        tmp_path,
        [("ecutwfc = 45.0", f"ecutwfc = {ecutwfc}"), ("ecutrho = 360.0", f"ecutrho = {ecutrho}")],
    )
    assert failed(grade_dir(TASK, sub)) == bad


@pytest.mark.parametrize(
    ("moment", "passes"), [("4.0", True), ("4.0000005", True), ("4.00001", False), ("3", False), ("5", False)]
)
def test_total_magnetization_is_the_ground_term(moment, passes, oracle_dirs, tmp_path):
    sub = _edited(oracle_dirs[TASK], tmp_path, [("tot_magnetization = 4", f"tot_magnetization = {moment}")])
    assert ("tot-magnetization" not in failed(grade_dir(TASK, sub))) is passes


def test_cubic_box_is_not_graded(oracle_dirs, tmp_path):
    """A 12 A cube passes: the grader has no check of the box's symmetry (see QC.md); the Method advises against it."""
    sub = _edited(oracle_dirs[TASK], tmp_path, [("  B = 12.5\n  C = 13.0\n", "  B = 12.0\n  C = 12.0\n")])
    assert grade_dir(TASK, sub).passed


def test_recall_fails_on_the_cutoffs(tmp_path):
    recall = yaml.safe_load((ROOT / "references" / TASK / "recall.yaml").read_text())
    sub = tmp_path / "recall"
    sub.mkdir()
    for f in recall["files"]:
        (sub / f["path"]).write_text(f["text"])
    assert failed(grade_dir(TASK, sub)) == {"ecutwfc", "ecutrho"}
