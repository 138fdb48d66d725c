"""Loading the suite: located errors for malformed files, validation, leakage scan, bundles."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from cmb.catalog import Catalog, CatalogError, load_model, number_leaks, stage_bundle, validate
from cmb.models import Condition, TaskSpec

TASK = {
    "id": "demo-eos",
    "study": "demo",
    "kind": "output-analysis",
    "codes": ["qe"],
    "title": "Fit an equation of state",
    "answer_files": ["answer.json"],
    "workspace": ["data/ev.dat"],
}
GRADER = {
    "task": "demo-eos",
    "checks": [
        {"id": "file", "type": "schema.file", "category": "format", "target": {"file": "answer.json"}},
        {
            "id": "a0",
            "type": "numeric.scalar",
            "category": "scientific",
            "target": {"file": "answer.json", "field": "a0"},
            "reference": "a0",
            "tolerance": {"rel": 0.005},
            "unit": "angstrom",
        },
    ],
}
REFERENCE = {"task": "demo-eos", "values": {"a0": {"value": 5.4687, "unit": "angstrom"}}, "files": []}
STUDY = {
    "id": "demo",
    "title": "Equation of state of a demo crystal",
    "material": "demo crystal",
    "question": "What is its equilibrium lattice constant?",
    "follows": {"authors": "Doe et al.", "journal": "Phys. Rev. B", "year": 2026},
    "reduction": "A toy stand-in for the catalog tests.",
    "steps": [
        {
            "id": "ev-scan",
            "title": "Energies at several volumes",
            "cost": "heavy",
            "precomputed": {"reproduce": "demo-eos", "codes": ["pw.x 6.7"]},
        },
        {"id": "eos-fit", "title": "Fit the EOS", "cost": "light", "consumes": ["ev-scan"], "tasks": []},
    ],
}
RECALL = {"task": "demo-eos", "values": [{"field": "a0", "value": 5.43, "source": "experiment, room temperature"}]}
FAIRNESS = {
    "task": "demo-eos",
    "cases": [
        {"id": "vinet-fit", "expect": "pass", "what": "a Vinet fit instead", "covers": ["a0"], "answer": {"a0": 5.47}},
        {
            "id": "bohr-left",
            "expect": "fail",
            "what": "the lattice constant left in bohr",
            "covers": ["a0"],
            "answer": {"a0": 10.33},
        },
    ],
}
QC = "# QC: demo-eos\n\n**Fairness record.** vinet-fit passes; bohr-left fails.\n"


def make_suite(root: Path, task=TASK, grader=GRADER, reference=REFERENCE, ev="10.0 -15.80\n10.2 -15.82\n") -> Path:
    tdir = root / "tasks" / task["study"] / task["id"]
    (tdir / "workspace" / "data").mkdir(parents=True)
    (tdir / "task.yaml").write_text(yaml.safe_dump(task))
    (tdir / "prompt.full.md").write_text("Fit the Birch-Murnaghan EOS to data/ev.dat; write answer.json {a0}.\n")
    (tdir / "prompt.reduced.md").write_text("Find a0 from data/ev.dat; write answer.json {a0}.\n")
    (tdir / "workspace" / "data" / "ev.dat").write_text(ev)
    (root / "graders").mkdir()
    (root / "graders" / f"{task['id']}.yaml").write_text(yaml.safe_dump(grader))
    rdir = root / "references" / task["id"]
    (rdir / "solution").mkdir(parents=True)
    (rdir / "solution" / "solve.sh").write_text("#!/bin/bash\necho '{\"a0\": 5.4687}' > answer.json\n")
    (rdir / "reference.yaml").write_text(yaml.safe_dump(reference))
    (rdir / "reproduce").mkdir()  # the study's precomputed step names it; tests add a script where they need one
    cost = {"core_minutes": 42.0, "wall_minutes": 21.0, "cores": 2, "machine": "test machine", "measured": "2026-12-01"}
    (rdir / "reproduce" / "cost.yaml").write_text(yaml.safe_dump(cost))
    study = {**STUDY, "id": task["study"]}
    study["steps"] = [dict(s) for s in STUDY["steps"]]
    study["steps"][0]["tasks"] = [task["id"]]
    study["steps"][0]["precomputed"] = {**STUDY["steps"][0]["precomputed"], "reproduce": task["id"]}
    (tdir.parent / "study.yaml").write_text(yaml.safe_dump(study))
    (rdir / "recall.yaml").write_text(yaml.safe_dump({**RECALL, "task": task["id"]}))
    (rdir / "fairness.yaml").write_text(yaml.safe_dump({**FAIRNESS, "task": task["id"]}))
    (rdir / "QC.md").write_text(QC)
    return root


def test_valid_suite_has_no_problems(tmp_path):
    catalog = Catalog.load(make_suite(tmp_path))
    assert list(catalog.entries) == ["demo-eos"]
    assert validate(catalog) == []


def test_malformed_yaml_error_names_file_and_line(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text("id: demo\nstudy: [unclosed\nkind: x\n")
    with pytest.raises(CatalogError) as err:
        load_model(path, TaskSpec)
    problem = err.value.problems[0]
    assert problem.path == path and problem.line == 3 and "YAML syntax error" in problem.message


def test_schema_error_names_field_and_line(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump({**TASK, "kind": "simulation"}, sort_keys=False))
    with pytest.raises(CatalogError) as err:
        load_model(path, TaskSpec)
    problem = err.value.problems[0]
    assert problem.field == "kind" and problem.line == 3
    assert "task.yaml:3 [kind]" in str(problem)


def test_unknown_field_is_an_error(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump({**TASK, "answer_file": "x"}))
    with pytest.raises(CatalogError, match="answer_file"):
        load_model(path, TaskSpec)


def test_non_mapping_top_level(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text("- just\n- a list\n")
    with pytest.raises(CatalogError, match="expected a mapping"):
        load_model(path, TaskSpec)


def test_workspace_path_escaping_task_is_rejected(tmp_path):
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump({**TASK, "workspace": ["../../references/demo-eos/reference.yaml"]}))
    with pytest.raises(CatalogError, match="relative path inside the task folder"):
        load_model(path, TaskSpec)


def test_malformed_task_is_reported_not_dropped(tmp_path):
    root = make_suite(tmp_path)
    bad = root / "tasks" / "demo" / "broken"
    bad.mkdir()
    (bad / "task.yaml").write_text("id: broken\n")
    catalog = Catalog.load(root)
    problems = validate(catalog)
    assert any("broken" in str(p.path) and p.field == "study" for p in problems)


def test_unknown_check_type_and_missing_reference_key(tmp_path):
    grader = {
        "task": "demo-eos",
        "checks": [
            {**GRADER["checks"][1], "id": "typo", "type": "numeric.scalr"},
            {**GRADER["checks"][1], "id": "noref", "reference": "b0"},
        ],
    }
    problems = validate(Catalog.load(make_suite(tmp_path, grader=grader)))
    text = "\n".join(map(str, problems))
    assert "unknown check type 'numeric.scalr'" in text and "did you mean" not in text
    assert "reference value 'b0' not in reference.yaml" in text


def test_bad_check_params_are_located(tmp_path):
    grader = {"task": "demo-eos", "checks": [{**GRADER["checks"][1], "params": {"absolute": True}}]}
    problems = validate(Catalog.load(make_suite(tmp_path, grader=grader)))
    assert any("params" in p.message and p.field == "checks[a0]" for p in problems)


def test_target_outside_answer_files(tmp_path):
    check = {**GRADER["checks"][1], "target": {"file": "other.json", "field": "a0"}}
    problems = validate(Catalog.load(make_suite(tmp_path, grader={"task": "demo-eos", "checks": [check]})))
    assert any("not among the task's answer_files" in p.message for p in problems)


def test_leak_of_reference_value_in_workspace_file(tmp_path):
    problems = validate(Catalog.load(make_suite(tmp_path, ev="# fitted a0 = 5.4687\n10.0 -15.8\n")))
    assert any("writes reference value a0" in p.message for p in problems)


def test_public_reference_values_are_not_leaks(tmp_path):
    reference = {**REFERENCE, "values": {"a0": {"value": 5.4687, "public": True}}}
    root = make_suite(tmp_path, reference=reference, ev="# a0 = 5.4687\n")
    assert validate(Catalog.load(root)) == []


def test_leak_of_reference_file(tmp_path):
    reference = {**REFERENCE, "files": ["pw.in"]}
    ref_text = "&control\n  calculation = 'scf'\n/\n&system\n  ibrav = 2, celldm(1) = 10.26\n  ecutwfc = 30\n/\n"
    root = make_suite(tmp_path, reference=reference, ev=ref_text)
    (root / "references" / "demo-eos" / "pw.in").write_text(ref_text)
    problems = validate(Catalog.load(root))
    assert any("identical to reference file pw.in" in p.message for p in problems)


def test_number_leak_respects_written_precision():
    assert number_leaks("a = 5.469 A", 5.4687) == "5.469"
    assert number_leaks("a = 5.47 A", 5.4687) is None  # 3 significant digits: too common to call a leak
    assert number_leaks("E = -1.5870D+01", -15.87) == "-1.5870D+01"
    assert number_leaks("T = 300 K, mesh 6 6 6", 300.0) is None
    assert number_leaks("x = 1.2e3, y = 12.34e2", 1234.4) == "12.34e2"  # the exponent sets the precision
    assert number_leaks("x = 1.2e3, y = 12.34e2", 1234.6) is None
    # the first token that writes the value, in text order; a token past float range writes nothing
    assert number_leaks("1.0000e400 or 5.4690 then 5.469", 5.4687) == "5.469"
    assert number_leaks("1.0000e400 or 5.4690 then 5.469", 5.469) == "5.4690"


def test_bundle_contains_only_prompt_and_workspace(tmp_path):
    root = make_suite(tmp_path / "suite")
    entry = Catalog.load(root).get("demo-eos")
    written = stage_bundle(entry, Condition.SR, tmp_path / "bundle")
    names = sorted(str(p.relative_to(tmp_path / "bundle")) for p in written)
    assert names == ["PROMPT.md", "data/ev.dat"]
    assert "Find a0" in (tmp_path / "bundle" / "PROMPT.md").read_text()
    all_files = {p.name for p in (tmp_path / "bundle").rglob("*") if p.is_file()}
    assert "reference.yaml" not in all_files and "demo-eos.yaml" not in all_files


def test_condition_must_fit_the_entry(tmp_path):
    entry = Catalog.load(make_suite(tmp_path)).get("demo-eos")
    with pytest.raises(ValueError, match="does not apply"):
        entry.prompt(Condition.WF)


def test_select_by_study_and_unknown_id(tmp_path):
    catalog = Catalog.load(make_suite(tmp_path))
    assert [e.id for e in catalog.select(["study:demo"])] == ["demo-eos"]
    with pytest.raises(KeyError, match="did you mean demo-eos"):
        catalog.select(["demo-eo"])


def test_task_hash_changes_with_prompt(tmp_path):
    root = make_suite(tmp_path)
    before = Catalog.load(root).get("demo-eos").task_hash()
    (root / "tasks" / "demo" / "demo-eos" / "prompt.full.md").write_text("changed")
    assert Catalog.load(root).get("demo-eos").task_hash() != before


def _with_reproduce(root: Path, script: str) -> Path:
    rdir = root / "references" / "demo-eos" / "reproduce"
    rdir.mkdir(parents=True, exist_ok=True)
    (rdir / "reproduce.sh").write_text(script)
    return root


def test_reproduce_within_the_grader_tolerance(tmp_path):
    from cmb.catalog import reproduce_entry

    script = (
        'mkdir -p "$1/workspace/data"\n'
        'printf "10.0 -15.80\\n10.2 -15.82\\n" > "$1/workspace/data/ev.dat"\n'
        'echo \'{"a0": 5.47}\' > "$1/values.json"\n'
    )
    entry = Catalog.load(_with_reproduce(make_suite(tmp_path), script)).get("demo-eos")
    result = reproduce_entry(entry)
    assert result.ok, result
    assert result.files[0].identical_layout and result.files[0].max_rel_diff == 0.0


def test_reproduce_outside_tolerance_fails(tmp_path):
    from cmb.catalog import reproduce_entry

    script = 'echo \'{"a0": 5.60}\' > "$1/values.json"\n'  # 2.4% off, tolerance 0.5%
    entry = Catalog.load(_with_reproduce(make_suite(tmp_path), script)).get("demo-eos")
    result = reproduce_entry(entry)
    assert not result.ok and "outside" in result.values[0].message


def test_reproduce_without_script_says_so(tmp_path):
    from cmb.catalog import reproduce_entry

    result = reproduce_entry(Catalog.load(make_suite(tmp_path)).get("demo-eos"))
    assert not result.ok and "no expensive step" in (result.error or "")


def test_reproduced_outputs_compare_numbers_not_clocks(tmp_path):
    from cmb.catalog._reproduce import compare_files

    body = "     the Fermi energy is     6.2345 ev\n!    total energy              =     -15.84920 Ry\n"
    a, b, c = tmp_path / "a.out", tmp_path / "b.out", tmp_path / "c.out"
    a.write_text(
        "     Program PWSCF v.6.7MaX starts on 29Nov2026 at 19: 2:11 \n"
        + body
        + "   This run was terminated on:  19: 8:12  29Nov2026\n"
    )
    b.write_text(
        "     Program PWSCF v.6.7MaX starts on 30Nov2026 at  7:41:55 \n"
        + body
        + "   This run was terminated on:   7:42:01  30Nov2026\n"
    )
    c.write_text(b.read_text().replace("-15.84920", "-15.84990"))
    same, moved = compare_files(a, b), compare_files(a, c)
    assert same.identical_layout and same.max_rel_diff == 0.0
    assert moved.max_rel_diff > 1e-5
