"""Task hbn-undulated-stacking (study hbn-sliding-ferroelectricity): the sliding part of the potential step along a
rippled BA bilayer of h-BN, a model on the staged sliding table of the precomputed path.

What is particular to it: the staged table is the potential-step task's own count of the precomputed path; the
reference follows from the model the prompts state (their parameters, the sign of the shift checked on explicit
offset curves); the traps fail the checks they should; every tolerance holds at its edges. The generic gates
(fairness cases, recall) are in test_gates.py.
"""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

from cmb.catalog import validate
from tests.tasks._helpers import (
    CATALOG,
    ROOT,
    assert_empty_submission_fails,
    assert_entry_is_consistent,
    assert_tolerance_edges,
    entry,
    failed,
    grade_answer,
    grade_dir,
    read_answer,
    set_field,
)

STUDY = "hbn-sliding-ferroelectricity"
TASK = "hbn-undulated-stacking"
STEP = "hbn-sliding-potential-step"
BOND = 2.504 / math.sqrt(3)


def ref(key: str, task: str = TASK):
    return entry(task).reference().values[key].value


def load_values_module():
    """references/hbn-undulated-stacking/reproduce/values.py, imported by path (it is not a package)."""
    path = entry(TASK).reference_dir / "reproduce" / "values.py"
    spec = importlib.util.spec_from_file_location("hbn_undulated_values", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def staged_table() -> dict[float, float]:
    lam, dv = load_values_module().read_table(entry(TASK).workspace_dir / "sliding_step.csv")
    return dict(zip(lam.tolist(), dv.tolist(), strict=True))


# ------------------------------------------------------------------------------------------------ files and graph


def test_task_validates_without_problems():
    problems = validate(CATALOG, [TASK])
    assert problems == [], "\n".join(map(str, problems))


def test_task_is_the_undulated_bilayer_step_on_the_sliding_path():
    study = CATALOG.studies[STUDY].spec
    steps = {s.id: s for s in study.steps}
    assert steps["undulated-bilayer"].tasks == [TASK]
    assert steps["undulated-bilayer"].cost == "light"
    assert study.upstream("undulated-bilayer") == {"sliding-path"}
    assert entry(TASK).spec.kind == "run-and-analyze"


def test_files_are_consistent_and_reduced_prompt_drops_only_the_method():
    assert entry(TASK).has_reduced
    assert_entry_is_consistent(TASK, STUDY, ["reproduce/values.py", "reproduce/alternatives.py"])


def test_both_prompts_state_the_model_and_its_parameters():
    """The reference's parameters and the conventions every answer depends on are targets, kept in both prompts."""
    e = entry(TASK)
    values = load_values_module()
    assert (values.AMPLITUDE, values.WAVELENGTH, values.D, values.A_LAT, values.LAM_FLAT) == (
        4.0,
        100.0,
        3.45,
        2.504,
        2,
    )
    for condition in e.conditions():
        text = " ".join(e.prompt(condition).split())
        for phrase in (
            "h(x) = A sin(2πx/L)",
            "A = 4 Å and L = 10 nm",
            "d = 3.45 Å apart along the local normal",
            "a = 2.504 Å",
            "keep the BA registry of the flat bilayer",
            "Work to first order in the slope",
            "u > 0 towards +x",
            "λ(x) = 2 + u(x)/(a/√3)",
            "x = 0 (a node of h, where the ripple rises)",
            '"at_x0"',
            '"reversed_fraction"',
        ):
            assert phrase in text, (condition, phrase)


# ------------------------------------------------------------------------------------------------ the staged table


def test_staged_table_is_the_potential_step_reference():
    """The table's AB, SP, BA and 1.25 rows are hbn-sliding-potential-step's reference values to 0.001 meV."""
    table = staged_table()
    assert sorted(table) == [0.0, 0.5, 1.0, 1.25, 1.5, 1.75, 2.0]
    for lam, key in (
        (1.0, "delta_V_AB_meV"),
        (1.5, "delta_V_SP_meV"),
        (2.0, "delta_V_BA_meV"),
        (1.25, "delta_V_125_meV"),
    ):
        assert table[lam] == pytest.approx(ref(key, STEP), abs=5e-4), lam


def test_staged_table_is_recounted_from_the_staged_path():
    """values.py regenerates the whole table, byte for byte, from the potential-step task's staged path files."""
    staged = (entry(TASK).workspace_dir / "sliding_step.csv").read_text()
    assert load_values_module().table_from_path(entry(STEP).workspace_dir / "path") == staged


def test_staged_table_obeys_the_path_symmetries():
    """Odd about AA and SP with period 3: AA and SP vanish, BA mirrors AB and 1.75 mirrors 1.25, to 0.1 meV."""
    t = staged_table()
    assert abs(t[0.0]) < 0.1 and abs(t[1.5]) < 0.1
    assert t[2.0] == pytest.approx(-t[1.0], abs=0.11)
    assert t[1.75] == pytest.approx(-t[1.25], abs=0.1)


# ------------------------------------------------------------------------------------------------ the reference


def test_reproduce_values_give_the_reference():
    values = load_values_module()
    produced = values.reference_values(*values.read_table(entry(TASK).workspace_dir / "sliding_step.csv"))
    for key, value in produced.items():
        assert value == pytest.approx(ref(key), abs=6e-4, rel=1e-5), key


def test_reference_geometry_follows_in_closed_form():
    """u_max = 2 pi A d / L; the range is symmetric about BA; SP lies inside it and AA (3) outside; the reversed
    share of the wavelength is arccos(0.5 / delta) / pi."""
    delta = 3.45 * 2 * math.pi * 4.0 / 100.0 / BOND
    assert ref("max_shift_angstrom") == pytest.approx(3.45 * 2 * math.pi * 4.0 / 100.0, rel=1e-5)
    assert ref("lambda_min") == pytest.approx(2 - delta, abs=1e-5)
    assert ref("lambda_max") == pytest.approx(2 + delta, abs=1e-5)
    assert ref("lambda_at_x0") == ref("lambda_max")
    assert ref("lambda_min") < 1.5 < 2 < ref("lambda_max") <= 3 - 0.4
    assert ref("reversed_fraction") == pytest.approx(math.acos(0.5 / delta) / math.pi, abs=1e-4)
    assert ref("delta_V_max_meV") > 0 > ref("delta_V_mean_meV") > ref("delta_V_min_meV")


def test_top_layer_slides_forward_where_the_ripple_rises():
    """The sign convention of the reference, on explicit geometry: the two layers as offset curves d/2 either side
    of h(x), arc lengths counted from a crest where they are in registry; at the rising node x = 0 the bottom
    layer's material coordinate leads the top's by d theta, i.e. the top layer has moved by +d theta along +x."""
    amp, wave, d = 4.0, 100.0, 3.45
    x = np.linspace(-wave / 4, wave / 4, 200_001)  # trough, node x = 0, crest
    slope = 2 * np.pi * amp / wave * np.cos(2 * np.pi * x / wave)
    theta = np.arctan(slope)
    mid = np.stack([x, amp * np.sin(2 * np.pi * x / wave)])
    normal = np.stack([-np.sin(theta), np.cos(theta)])

    def arc_from_crest(curve: np.ndarray) -> np.ndarray:
        s = np.r_[0.0, np.cumsum(np.hypot(*np.diff(curve, axis=1)))]
        return s - s[-1]

    top, bottom = arc_from_crest(mid + d / 2 * normal), arc_from_crest(mid - d / 2 * normal)
    node = np.argmin(np.abs(x))
    shift = bottom[node] - top[node]
    assert shift == pytest.approx(d * theta[node], rel=1e-6)
    assert shift > 0 and 2 + shift / BOND > 2
    assert ref("lambda_at_x0") > 2


def test_oracle_answer_agrees_with_the_reference(oracle_dirs):
    answer = read_answer(oracle_dirs[TASK])
    assert answer["max_shift_angstrom"] == pytest.approx(ref("max_shift_angstrom"), rel=1e-5)
    assert answer["lambda"]["at_x0"] == pytest.approx(ref("lambda_at_x0"), abs=1e-5)
    assert answer["delta_V_meV"]["mean"] == pytest.approx(ref("delta_V_mean_meV"), abs=1e-3)
    assert answer["delta_V_meV"]["min"] == pytest.approx(ref("delta_V_min_meV"), abs=1e-3)
    assert answer["reversed_fraction"] == pytest.approx(ref("reversed_fraction"), abs=1e-3)


# ------------------------------------------------------------------------------------------------ grading


def test_empty_submission_fails(tmp_path):
    assert_empty_submission_fails(TASK, tmp_path)


def test_oracle_passes(oracle_dirs):
    report = grade_dir(TASK, oracle_dirs[TASK])
    assert report.passed, [f"{c.id}: {c.message}" for c in report.checks if not c.passed]


def test_tolerance_edges(oracle_dirs, tmp_path):
    """Each check's value just inside its tolerance passes and just outside (either side) fails it alone."""
    assert_tolerance_edges(TASK, read_answer(oracle_dirs[TASK]), tmp_path)


def _linear_route(lam0: float = 2.0, sign: float = 1.0, clamp: bool = False, n: int = 4000) -> dict:
    """An independent evaluation: linear interpolation of the table extended by its symmetries (or numpy's
    interp on the bare table, held at BA beyond it)."""
    t = staged_table()
    nodes = np.array([*sorted(t), 2.5, 3.0])
    vals = np.array([*(t[k] for k in sorted(t)), -t[0.5], t[0.0]])
    x = np.arange(n) / n * 100.0
    lam = lam0 + sign * 3.45 * (2 * np.pi * 4.0 / 100.0) * np.cos(2 * np.pi * x / 100.0) / BOND
    if clamp:
        dv = np.interp(lam, nodes[:-2], vals[:-2])
    else:
        dv = np.interp(np.mod(lam, 3), nodes, vals)
    return {
        "max_shift_angstrom": float(np.abs(lam - lam0).max() * BOND),
        "lambda": {"min": float(lam.min()), "max": float(lam.max()), "at_x0": float(lam[0])},
        "delta_V_meV": {"max": float(dv.max()), "min": float(dv.min()), "mean": float(dv.mean())},
        "reversed_fraction": float(np.mean(dv > 0)),
    }


def test_independent_linear_route_passes(tmp_path):
    report = grade_answer(TASK, _linear_route(), tmp_path)
    assert report.passed, failed(report)


@pytest.mark.parametrize(
    ("name", "answer", "expected"),
    [
        ("reversed-sign-of-the-shift", lambda: _linear_route(sign=-1.0), {"lambda-x0"}),
        ("interp-held-at-ba", lambda: _linear_route(clamp=True), {"dv-mean"}),
    ],
)
def test_route_errors_fail_their_checks(name, answer, expected, tmp_path):
    assert failed(grade_answer(TASK, answer(), tmp_path)) == expected, name


@pytest.mark.parametrize(
    ("name", "edits", "expected"),
    [
        (
            "flat-ba-step-everywhere",
            {
                "delta_V_meV.max": -84.593,
                "delta_V_meV.min": -84.593,
                "delta_V_meV.mean": -84.593,
                "reversed_fraction": 0.0,
            },
            {"dv-max", "dv-mean", "reversed-fraction"},
        ),
        ("shift-with-twice-d", {"max_shift_angstrom": 2 * 0.86708}, {"max-shift"}),
        ("shift-without-d", {"max_shift_angstrom": 0.86708 / 3.45}, {"max-shift"}),
        (
            "lambda-in-units-of-a",
            {"lambda.min": 2 - 0.86708 / 2.504, "lambda.max": 2 + 0.86708 / 2.504},
            {"lambda-min", "lambda-max"},
        ),
        (
            "share-of-the-lambda-range",
            {"reversed_fraction": (1.5 - 1.40023) / (2.59977 - 1.40023)},
            {"reversed-fraction"},
        ),
        ("ab-step-everywhere", {"delta_V_meV.min": 84.494}, {"dv-min"}),
    ],
)
def test_answer_errors_fail_their_checks(name, edits, expected, oracle_dirs, tmp_path):
    answer = read_answer(oracle_dirs[TASK])
    for field, value in edits.items():
        set_field(answer, field, value)
    assert failed(grade_answer(TASK, answer, tmp_path)) == expected, name


def test_reproduce_script_lives_with_the_task():
    """reproduce.sh needs nothing but numpy and the potential-step task's staged path (no expensive code)."""
    script = (entry(TASK).reference_dir / "reproduce" / "reproduce.sh").read_text()
    assert "values.py" in script and "alternatives.py" in script
    assert (ROOT / "references" / STEP / "reproduce" / "values.py").is_file()
