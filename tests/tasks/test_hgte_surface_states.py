"""Study hgte-surface-states (topological surface states of a thick HgTe layer, kdotpy): the study graph, the
task's files, its oracle (a real kdotpy run) and the physics the reference must obey.

Tasks: hgte-layer-subbands, hgte-gated-subbands and hgte-landau-levels (run-and-analyze, kdotpy: the flat-band
layer, the layer with a linear potential drop, and the Landau levels of the flat-band layer). Oracles run at most
once per module; the generic gates (fairness cases, recall, tolerance edges) are in test_gates.py.
"""

from __future__ import annotations

import filecmp
import math
import shutil

import pytest

from cmb.catalog import validate
from tests.tasks._helpers import (
    CATALOG,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
)

STUDY = "hgte-surface-states"
TASK = "hgte-layer-subbands"
GATED = "hgte-gated-subbands"
LANDAU = "hgte-landau-levels"
TASKS = [TASK, GATED, LANDAU]
H_OVER_E = 4.135667696e-15  # T m^2

pytestmark = pytest.mark.skipif(shutil.which("kdotpy") is None, reason="kdotpy is not installed")


def ref(key: str, task: str = TASK):
    return entry(task).reference().values[key].value


def test_study_validates_without_problems():
    problems = validate(CATALOG, TASKS)
    assert problems == [], "\n".join(map(str, problems))


def test_study_graph_keeps_the_costly_step_upstream_of_the_sdh_step():
    study = CATALOG.studies[STUDY].spec
    assert {t for s in study.steps for t in s.tasks} == set(TASKS)
    assert study.upstream("sdh-densities") == {"hartree", "gated-subbands", "subbands"}


@pytest.mark.parametrize("task", TASKS)
def test_files_are_consistent_and_reduced_prompt_drops_only_the_method(task):
    assert entry(task).has_reduced
    assert_entry_is_consistent(task, STUDY)


def test_the_tasks_share_one_analysis_tool():
    """Each solution folder is self-contained, so each holds the tool; the copies must not drift apart."""
    first, second = (entry(t).reference_dir / "solution" / "hgte_fermi.py" for t in (TASK, GATED))
    assert filecmp.cmp(first, second, shallow=False)


@pytest.mark.parametrize("task", TASKS)
def test_empty_submission_fails(task, tmp_path):
    assert_empty_submission_fails(task, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_oracle_runs_kdotpy_and_passes(task, oracle_dirs):
    folder = oracle_dirs[task]
    assert list((folder / "kdotpy-run").glob("dispersion-*.byband.csv"))
    report = grade_dir(task, folder)
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_reference_physics_is_consistent():
    """Densities and frequencies follow from k_F; the surface pair starts at the CNP; the bulk pairs are below E_F."""
    total = 0.0
    for band in ("H1", "E2", "E3"):
        kf = ref(f"kF_{band}_per_nm")
        assert ref(f"density_{band}_1e11_cm2") == pytest.approx(2 * kf**2 / (4 * math.pi) * 1e3, rel=1e-4)
        assert ref(f"sdh_{band}_T") == pytest.approx(H_OVER_E * kf**2 / (4 * math.pi) * 1e18, rel=1e-4)
        total += ref(f"density_{band}_1e11_cm2")
    assert ref("density_total_1e11_cm2") == pytest.approx(total, rel=1e-4)
    assert ref("surface_fraction") == pytest.approx(ref("density_H1_1e11_cm2") / total, rel=1e-4)
    # the surface branch holds the largest k_F (steepest dispersion, lowest start) of the occupied pairs
    assert ref("kF_H1_per_nm") > ref("kF_E2_per_nm") > ref("kF_E3_per_nm")
    assert ref("cnp_below_meV") < ref("cnp_above_meV") < 0 < 30


@pytest.mark.slow
def test_oracle_answer_is_within_a_quarter_percent_of_the_finer_reference(oracle_dirs):
    answer = read_answer(oracle_dirs[TASK])
    for band in ("H1", "E2", "E3"):
        assert answer["kF_per_nm"][band] == pytest.approx(ref(f"kF_{band}_per_nm"), rel=0.0025)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        ("surface pair missed", {"occupied_subbands": ["E2", "E3"]}, {"occupied"}),
        ("E4 counted as occupied", {"occupied_subbands": ["E2", "E3", "E4", "H1"]}, {"occupied"}),
        ("kF one and a half percent long", {"kF_per_nm.H1": 0.1801509 * 1.016}, {"kf-h1"}),
    ],
)
def test_errors_fail_their_checks(name, edit, expected, oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    for key, value in edit.items():
        node = answer
        *path, last = key.split(".")
        for part in path:
            node = node[part]
        node[last] = value
    assert failed(grade_answer(TASK, answer, tmp_path)) == expected, name


def test_gated_reference_physics():
    """Each branch's frequency is (h/e) k_F^2/(4 pi); the surface pair splits most; the drop lifts every pair."""
    total = 0.0
    splits = {}
    for band in ("H1", "E2", "E3"):
        kf = ref(f"kF_{band}_per_nm", GATED)
        f = ref(f"sdh_{band}_T", GATED)
        assert kf[0] < kf[1]
        for k, x in zip(kf, f, strict=True):
            assert x == pytest.approx(H_OVER_E * k**2 / (4 * math.pi) * 1e18, rel=1e-4)
            total += k**2 / (4 * math.pi) * 1e3
        splits[band] = f[1] - f[0]
        # the flat layer's degenerate k_F lies between the two gated branches
        assert kf[0] < ref(f"kF_{band}_per_nm") < kf[1]
    assert max(splits, key=splits.get) == ref("most_split_pair", GATED) == "H1"
    assert ref("density_total_1e11_cm2", GATED) == pytest.approx(total, rel=1e-4)
    assert ref("cnp_above_meV", GATED) > ref("cnp_above_meV")  # the drop moves the CNP states


@pytest.mark.slow
def test_gated_oracle_takes_the_last_charge_neutrality_point(oracle_dirs):
    log = (oracle_dirs[GATED] / "kdotpy-run" / "kdotpy.log").read_text()
    assert log.count("Charge neutrality point") == 2  # the flat-band alignment run first, the gated layer last
    assert read_answer(oracle_dirs[GATED])["cnp_above_meV"] == pytest.approx(ref("cnp_above_meV", GATED), abs=0.05)


def test_landau_reference_physics():
    """The density is N eB/h; the Onsager estimate scales as 1/B and agrees with the zero-field SdH frequencies of
    hgte-layer-subbands; the level count follows it at 3.6 T and falls below it at 4.5 T."""
    assert ref("density_4p5T_1e11_cm2", LANDAU) == pytest.approx(
        ref("levels_below_EF_4p5T", LANDAU) * 4.5 / H_OVER_E * 1e-15, rel=1e-6
    )
    total_f = ref("onsager_levels_3p6T", LANDAU) * 3.6
    assert ref("onsager_levels_4p5T", LANDAU) * 4.5 == pytest.approx(total_f, rel=1e-5)
    # six non-degenerate branches: each pair's frequency twice
    assert total_f == pytest.approx(2 * sum(ref(f"sdh_{b}_T") for b in ("H1", "E2", "E3")), rel=0.01)
    assert abs(ref("levels_below_EF_3p6T", LANDAU) - ref("onsager_levels_3p6T", LANDAU)) < 1
    assert ref("levels_below_EF_4p5T", LANDAU) < ref("onsager_levels_4p5T", LANDAU) - 1
    low, second = ref("lowest_levels_4p5T_meV", LANDAU)
    assert 0 < low < second < 30


def _levels(folder, field):
    """(E, llindex, bindex) of every level at the field, from the oracle's kdotpy ll table, sorted by energy."""
    import csv

    with (folder / "kdotpy-run" / "bdependence-ll.csv").open() as fh:
        rows = list(csv.reader(fh))
    head = rows[0]
    ib, ie, il, ix = (head.index(c) for c in ("bz", "E", "llindex", "bindex"))
    out = [(float(r[ie]), int(r[il]), int(r[ix])) for r in rows[2:] if r and abs(float(r[ib]) - field) < 1e-6]
    return sorted(out)


@pytest.mark.slow
def test_landau_oracle_count_is_robust_and_kdotpy_indices_are_not_counts(oracle_dirs):
    """The levels nearest E_F are more than 1 meV away at both fields, so grid changes cannot move the count; the
    traps: kdotpy's bindex > 0 (electron side at B = 0) and its distinct LL indices give other numbers."""
    folder = oracle_dirs[LANDAU]
    answer = read_answer(folder)
    for field, key in ((3.6, "levels_below_EF_3p6T"), (4.5, "levels_below_EF_4p5T")):
        levels = _levels(folder, field)
        assert min(abs(e - 30.0) for e, _, _ in levels) > 1.0
        by_bindex = sum(1 for e, _, b in levels if b > 0 and e < 30.0)
        assert by_bindex > answer[key] + 5
    counted = [lv for lv in _levels(folder, 4.5) if answer["lowest_levels_4p5T_meV"][0] - 1e-6 <= lv[0] < 30.0]
    assert len(counted) == answer["levels_below_EF_4p5T"] == ref("levels_below_EF_4p5T", LANDAU)
    assert len({ll for _, ll, _ in counted}) != len(counted)  # several levels share a Landau-level index
    lowest = answer["lowest_levels_4p5T_meV"]
    assert lowest == pytest.approx(ref("lowest_levels_4p5T_meV", LANDAU), abs=0.1)
