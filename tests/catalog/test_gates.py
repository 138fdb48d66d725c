"""The gates every task must pass: leakage scan v2, the reduced-prompt rule, the recall baseline, the fairness
record and the study graph. Each rule is shown to fail on a planted violation, named after the exploit."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from cmb.catalog import CaseError, Catalog, apply_case, assemble_solution, render_study, study_mermaid, validate
from cmb.models import FairnessCase, RecallSpec, StudySpec
from tests.catalog.test_catalog import GRADER, STUDY, TASK, make_suite


def _problems(root: Path) -> list[str]:
    return [str(p) for p in validate(Catalog.load(root))]


def _edit_yaml(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


def _task_dir(root: Path) -> Path:
    return root / "tasks" / "demo" / "demo-eos"


# ------------------------------------------------------------------------------------------------ leakage scan v2


def test_starting_guess_within_tolerance_is_a_leak(tmp_path):
    root = make_suite(tmp_path)
    (_task_dir(root) / "prompt.full.md").write_text("Start the scan around 5.47 A; write answer.json {a0}.\n")
    problems = _problems(root)
    assert any("prompt.full.md" in p and "'5.47'" in p and "check 'a0'" in p for p in problems), problems


def test_leak_in_the_reduced_prompt_alone_is_found(tmp_path):
    root = make_suite(tmp_path)
    (_task_dir(root) / "prompt.reduced.md").write_text("a0 is near 5.45; write answer.json {a0}.\n")
    problems = _problems(root)
    assert any("prompt.reduced.md" in p and "'5.45'" in p for p in problems), problems


def test_number_outside_the_tolerance_is_not_a_leak(tmp_path):
    root = make_suite(tmp_path)
    (_task_dir(root) / "prompt.full.md").write_text("Scan from 5.2 to 5.8 A; write answer.json {a0}.\n")
    assert _problems(root) == []


def test_declared_given_input_is_accepted_and_needs_a_reason(tmp_path):
    root = make_suite(tmp_path)
    (_task_dir(root) / "prompt.full.md").write_text("Use the lattice constant 5.47 A; write answer.json {a0}.\n")
    given = {"value": 5.47, "unit": "angstrom", "reason": "the experimental cell the agent must start from"}
    _edit_yaml(_task_dir(root) / "task.yaml", lambda t: t.update(given=[given]))
    assert _problems(root) == []
    _edit_yaml(_task_dir(root) / "task.yaml", lambda t: t.update(given=[{**given, "reason": ""}]))
    assert any("reason" in p for p in _problems(root))


def test_public_reference_value_in_prompt_is_not_a_v2_leak(tmp_path):
    root = make_suite(tmp_path)
    (_task_dir(root) / "prompt.full.md").write_text("The answer is about 5.47 A; write answer.json {a0}.\n")
    ref = root / "references" / "demo-eos" / "reference.yaml"
    _edit_yaml(ref, lambda r: r["values"]["a0"].update(public=True))
    assert _problems(root) == []


# ------------------------------------------------------------------------------------------------ reduced-prompt rule


def _with_threshold_check(root: Path, states: list[str] | None) -> None:
    check = {
        "id": "ev-points",
        "type": "schema.csv",
        "category": "scientific",
        "target": {"file": "ev.csv"},
        "params": {"columns": ["V", "E"], "min_rows": 7},
    }
    if states is not None:
        check["states"] = states
    _edit_yaml(root / "graders" / "demo-eos.yaml", lambda g: g["checks"].append(check))
    _edit_yaml(_task_dir(root) / "task.yaml", lambda t: t.update(answer_files=["answer.json", "ev.csv"]))

    def cover(f):
        f["cases"][0]["covers"].append("ev-points")
        f["cases"][1]["covers"].append("ev-points")

    _edit_yaml(root / "references" / "demo-eos" / "fairness.yaml", cover)


def test_threshold_without_its_sentence_fails(tmp_path):
    root = make_suite(tmp_path)
    _with_threshold_check(root, states=None)
    problems = _problems(root)
    assert any("[checks[ev-points]]" in p and "sets min_rows" in p for p in problems), problems


def test_reduced_prompt_that_drops_a_checked_target_fails(tmp_path):
    root = make_suite(tmp_path)
    sentence = "Compute at least seven points."
    (_task_dir(root) / "prompt.full.md").write_text(f"Fit the EOS. {sentence} Write answer.json {{a0}}.\n")
    _with_threshold_check(root, states=[sentence])
    problems = _problems(root)
    assert len(problems) == 1 and "prompt.reduced.md" in problems[0] and "ev-points" in problems[0], problems
    (_task_dir(root) / "prompt.reduced.md").write_text("Find a0.\nCompute at least\n  seven points.\nWrite it.\n")
    assert _problems(root) == []  # the sentence matches however the prompt wraps it


# ------------------------------------------------------------------------------------------------ recall baseline


def test_task_without_recall_baseline_fails(tmp_path):
    root = make_suite(tmp_path)
    (root / "references" / "demo-eos" / "recall.yaml").unlink()
    assert any("no recall baseline" in p for p in _problems(root))


def test_recall_that_skips_a_quoted_quantity_fails(tmp_path):
    root = make_suite(tmp_path)
    recall = {"task": "demo-eos", "values": [{"field": "b0", "value": 98, "source": "experiment, textbook"}]}
    (root / "references" / "demo-eos" / "recall.yaml").write_text(yaml.safe_dump(recall))
    assert any("recalls no value for answer.json:a0" in p for p in _problems(root))


def test_input_preparation_recall_must_write_its_inputs(tmp_path):
    root = make_suite(tmp_path, task={**TASK, "kind": "input-preparation"})
    _edit_yaml(root / "tasks" / "demo" / "study.yaml", lambda s: s["steps"][0].update(precomputed=None))
    assert any("writes the input files from habit" in p for p in _problems(root))


def test_recall_submission_assembles_json_and_whole_files():
    spec = RecallSpec(
        task="t",
        values=[
            {"field": "a.b", "value": 1.5, "source": "textbook value"},
            {"file": "out/x.json", "field": "c", "value": [1, 2], "source": "textbook value"},
        ],
        files=[{"path": "INCAR", "text": "ENCUT = 520\n", "source": "the usual habit"}],
    )
    files = spec.submission()
    assert json.loads(files["answer.json"]) == {"a": {"b": 1.5}}
    assert json.loads(files["out/x.json"]) == {"c": [1, 2]}
    assert files["INCAR"] == "ENCUT = 520\n"
    with pytest.raises(ValueError, match="relative path"):
        RecallSpec(task="t", files=[{"path": "../escape", "text": "", "source": "habit, nothing more"}])


# ------------------------------------------------------------------------------------------------ fairness record


def test_task_without_fairness_record_fails(tmp_path):
    root = make_suite(tmp_path)
    (root / "references" / "demo-eos" / "fairness.yaml").unlink()
    assert any("no fairness record" in p for p in _problems(root))


@pytest.mark.parametrize(("dropped", "missing"), [(0, "an alternative valid route"), (1, "a common error")])
def test_check_without_alternative_or_error_fails(tmp_path, dropped, missing):
    root = make_suite(tmp_path)
    path = root / "references" / "demo-eos" / "fairness.yaml"
    extra = {"id": "spare", "expect": "pass", "what": "something unrelated", "covers": ["file"], "answer": {"x": 1}}
    _edit_yaml(path, lambda f: f["cases"].__setitem__(dropped, extra))
    (root / "references" / "demo-eos" / "QC.md").write_text("vinet-fit bohr-left spare\n")
    problems = _problems(root)
    assert any(f"check 'a0' has no case with {missing}" in p for p in problems), problems


def test_case_not_recorded_in_qc_fails(tmp_path):
    root = make_suite(tmp_path)
    (root / "references" / "demo-eos" / "QC.md").write_text("# QC\nvinet-fit passes.\n")
    assert any("does not mention case 'bohr-left'" in p for p in _problems(root))


def test_case_covering_an_unknown_check_fails(tmp_path):
    root = make_suite(tmp_path)
    path = root / "references" / "demo-eos" / "fairness.yaml"
    _edit_yaml(path, lambda f: f["cases"][0]["covers"].append("nope"))
    assert any("covers unknown checks ['nope']" in p for p in _problems(root))


def test_apply_case_edits_the_oracle_submission(tmp_path):
    base = tmp_path / "oracle"
    base.mkdir()
    (base / "answer.json").write_text(json.dumps({"a0": 5.47, "fit": {"form": "BM3"}}))
    (base / "pw.in").write_text("K_POINTS automatic\n 8 8 8 0 0 0\n")
    (base / "extra.txt").write_text("x")
    case = FairnessCase(
        id="denser-mesh",
        expect="pass",
        what="a denser mesh that still meets the target",
        covers=["kpoints"],
        answer={"fit.form": "Vinet"},
        edits=[{"file": "pw.in", "old": "8 8 8 0 0 0", "new": "10 10 10 1 1 1"}],
        files={"notes/why.txt": "denser"},
        remove=["extra.txt"],
    )
    out = apply_case(case, base, tmp_path / "case")
    assert json.loads((out / "answer.json").read_text()) == {"a0": 5.47, "fit": {"form": "Vinet"}}
    assert "10 10 10 1 1 1" in (out / "pw.in").read_text()
    assert (out / "notes" / "why.txt").read_text() == "denser" and not (out / "extra.txt").exists()
    assert (base / "extra.txt").exists()  # the oracle's own folder is untouched


def test_case_whose_edit_no_longer_applies_is_an_error(tmp_path):
    base = tmp_path / "oracle"
    base.mkdir()
    (base / "pw.in").write_text("K_POINTS automatic\n 6 6 6 0 0 0\n")
    case = FairnessCase(
        id="stale",
        expect="fail",
        what="an edit written for another oracle",
        covers=["k"],
        edits=[{"file": "pw.in", "old": "8 8 8", "new": "2 2 2"}],
    )
    with pytest.raises(CaseError, match="occurs 0 times"):
        apply_case(case, base, tmp_path / "case")


def test_case_that_changes_nothing_is_refused():
    with pytest.raises(ValueError, match="changes nothing"):
        FairnessCase(id="noop", expect="pass", what="the oracle itself again", covers=["a0"])


# ------------------------------------------------------------------------------------------------ studies


def test_study_folder_without_study_yaml_fails(tmp_path):
    root = make_suite(tmp_path)
    (root / "tasks" / "demo" / "study.yaml").unlink()
    assert any("no study.yaml" in p for p in _problems(root))


def test_study_without_citation_is_refused(tmp_path):
    with pytest.raises(ValueError, match="follows"):
        StudySpec.model_validate({k: v for k, v in STUDY.items() if k != "follows"})


def _steps(root: Path, change) -> list[str]:
    _edit_yaml(root / "tasks" / "demo" / "study.yaml", lambda s: change(s["steps"]))
    return _problems(root)


def test_cyclic_step_graph_is_refused(tmp_path):
    root = make_suite(tmp_path)
    problems = _steps(root, lambda steps: steps[0].update(consumes=["eos-fit"]))
    assert any("cycle" in p for p in problems), problems


def test_step_consuming_an_unknown_step_is_refused(tmp_path):
    root = make_suite(tmp_path)
    assert any("unknown steps ['relax']" in p for p in _steps(root, lambda s: s[1].update(consumes=["relax"])))


def test_selected_step_with_unselected_upstream_is_refused(tmp_path):
    root = make_suite(tmp_path)
    problems = _steps(root, lambda s: s[0].update(selected=False, tasks=[]))
    assert any("outside the selection" in p for p in problems), problems


def test_task_under_no_step_fails(tmp_path):
    root = make_suite(tmp_path)
    assert any("'demo-eos' is under no step" in p for p in _steps(root, lambda s: s[0].update(tasks=[])))


def test_analysis_of_a_step_that_was_not_precomputed_fails(tmp_path):
    root = make_suite(tmp_path)
    problems = _steps(root, lambda s: s[0].update(precomputed=None))
    assert any("needs 'precomputed'" in p for p in problems), problems


def test_precomputing_a_cheap_step_fails(tmp_path):
    root = make_suite(tmp_path)
    cost = root / "references" / "demo-eos" / "reproduce" / "cost.yaml"
    _edit_yaml(cost, lambda c: c.update(core_minutes=0.5))
    assert any("costs 0.5 core-minutes" in p for p in _problems(root))
    _edit_yaml(cost, lambda c: c.update(below_floor="too short"))
    assert any("below_floor" in p for p in _problems(root)), "a reason must say something"
    _edit_yaml(cost, lambda c: c.update(below_floor="the production run is reduced here; 4x longer runs would cost 12"))
    assert not any("core-minutes" in p for p in _problems(root))
    cost.unlink()
    assert any("measured cost is not recorded" in p for p in _problems(root))


def test_agent_run_step_marked_heavy_fails(tmp_path):
    root = make_suite(tmp_path, task={**TASK, "kind": "run-and-analyze"})
    assert any("cannot be heavy" in p for p in _problems(root))


def _copy_entry(root: Path, task_id: str, spec_file: str, spec: dict) -> None:
    folder = root / "tasks" / "demo" / task_id
    folder.mkdir()
    (folder / spec_file).write_text(yaml.safe_dump(spec))
    (folder / "prompt.full.md").write_text("Do it; write answer.json {a0}.\n")
    (root / "graders" / f"{task_id}.yaml").write_text(yaml.safe_dump({**GRADER, "task": task_id}))
    shutil.copytree(root / "references" / "demo-eos", root / "references" / task_id)
    for name in ("reference.yaml", "recall.yaml", "fairness.yaml"):
        _edit_yaml(root / "references" / task_id / name, lambda d: d.update(task=task_id))


def _with_workflow(root: Path) -> Path:
    """A second step (a fit run by the agent) and a workflow chaining both steps."""
    _copy_entry(root, "demo-fit", "task.yaml", {**TASK, "id": "demo-fit", "kind": "run-and-analyze", "workspace": []})
    _edit_yaml(root / "tasks" / "demo" / "study.yaml", lambda s: s["steps"][1].update(tasks=["demo-fit"]))
    spec = {
        "id": "demo-workflow",
        "study": "demo",
        "kind": "workflow",
        "codes": ["qe"],
        "title": "Chain it",
        "steps": ["demo-eos", "demo-fit"],
        "answer_files": ["answer.json"],
    }
    _copy_entry(root, "demo-workflow", "workflow.yaml", spec)
    return root / "tasks" / "demo" / "demo-workflow" / "workflow.yaml"


def test_workflow_out_of_dependency_order_fails(tmp_path):
    root = make_suite(tmp_path)
    spec_file = _with_workflow(root)
    assert _problems(root) == []
    _edit_yaml(spec_file, lambda w: w.update(steps=["demo-fit", "demo-eos"]))
    problems = _problems(root)
    assert any("out of the study's dependency order" in p for p in problems), problems


def test_study_renders_its_citation_and_graph(tmp_path):
    catalog = Catalog.load(make_suite(tmp_path))
    study = catalog.studies["demo"]
    text = render_study(study, catalog.study_entries("demo"))
    assert "follows: Doe et al., Phys. Rev. B (2026)" in text and "precomputed: 42 core-min" in text
    assert text.index("ev-scan") < text.index("eos-fit") and "task demo-eos (output-analysis)" in text
    assert "ev_scan --> eos_fit" in study_mermaid(study)


# ------------------------------------------------------------------------------------------------ solutions


def test_workflow_solution_is_staged_with_its_steps_and_nothing_outside(tmp_path):
    root = make_suite(tmp_path)
    _with_workflow(root)
    (root / "references" / "demo-eos" / "solution" / "helper.py").write_text("print(1)\n")
    catalog = Catalog.load(root)
    out = assemble_solution(catalog.get("demo-workflow"), tmp_path / "staged")
    assert (out / "solve.sh").is_file()
    assert (out / "steps" / "demo-eos" / "helper.py").read_text() == "print(1)\n"
    assert all(p.resolve().is_relative_to(out.resolve()) for p in out.rglob("*"))
