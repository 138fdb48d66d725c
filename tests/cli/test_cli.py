"""The CLI contract: tasks list/show/validate and grade, with their exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cmb.cli import cli
from tests.catalog.test_catalog import make_suite
from tests.conftest import write_files

REPO = Path(__file__).resolve().parents[2]


def _run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_tasks_list_json(tmp_path):
    root = make_suite(tmp_path)
    res = _run("--root", str(root), "tasks", "list", "--json")
    assert res.exit_code == 0
    rows = json.loads(res.output)
    assert rows == [
        {
            "id": "demo-eos",
            "study": "demo",
            "kind": "output-analysis",
            "codes": ["qe"],
            "n_checks": 2,
            "has_reduced": True,
            "step": "ev-scan",
        }
    ]


def test_tasks_list_table_and_env_root(tmp_path, monkeypatch):
    monkeypatch.setenv("CMB_ROOT", str(make_suite(tmp_path)))
    res = _run("tasks", "list")
    assert res.exit_code == 0 and "demo-eos" in res.output and "1 entries" in res.output


def test_tasks_show_hides_reference_values(tmp_path):
    res = _run("--root", str(make_suite(tmp_path)), "tasks", "show", "demo-eos")
    assert res.exit_code == 0 and "numeric.scalar" in res.output and "5.4687" not in res.output


def test_tasks_show_unknown_suggests(tmp_path):
    res = _run("--root", str(make_suite(tmp_path)), "tasks", "show", "demo-eso")
    assert res.exit_code == 1 and "did you mean demo-eos" in res.output


def test_tasks_validate_exit_codes(tmp_path):
    root = make_suite(tmp_path)
    assert _run("--root", str(root), "tasks", "validate").exit_code == 0
    (root / "graders" / "demo-eos.yaml").write_text("task: demo-eos\nchecks: []\n")
    res = _run("--root", str(root), "tasks", "validate")
    assert res.exit_code == 1 and "demo-eos.yaml:2 [checks]" in res.output


def test_grade_pass_fail_and_json(tmp_path):
    root = make_suite(tmp_path / "suite")
    good = write_files(tmp_path / "good", {"answer.json": {"a0": 5.47}})
    res = _run("--root", str(root), "grade", "demo-eos", str(good), "--json")
    assert res.exit_code == 0 and json.loads(res.output)["passed"] is True
    empty = tmp_path / "empty"
    empty.mkdir()
    res = _run("--root", str(root), "grade", "demo-eos", str(empty), "--json")
    report = json.loads(res.output)
    assert res.exit_code == 1 and not report["passed"]
    assert {c["category"] for c in report["checks"] if not c["passed"]} == {"format", "scientific"}
    assert report["failure_category"] == "format"
    off = write_files(tmp_path / "off", {"answer.json": {"a0": 5.4687 * 1.0051}})
    res = _run("--root", str(root), "grade", "demo-eos", str(off))
    assert res.exit_code == 1 and "FAIL a0" in res.output and "ok   file" in res.output


def test_grade_with_broken_grader_is_exit_2(tmp_path):
    root = make_suite(tmp_path / "suite")
    (root / "references" / "demo-eos" / "reference.yaml").write_text("task: demo-eos\nvalues: {}\n")
    res = _run("--root", str(root), "grade", "demo-eos", str(tmp_path))
    assert res.exit_code == 2 and "grader of demo-eos is broken" in res.output


def test_tasks_verify_runs_oracle_and_empty_submission(tmp_path):
    root = make_suite(tmp_path)
    res = _run("--root", str(root), "tasks", "verify", "--json")
    lines = [json.loads(x) for x in res.output.splitlines() if x.startswith("{")]
    assert res.exit_code == 0, res.output
    assert [(r["condition"], r["ok"], r["null_passed"]) for r in lines] == [("SF", True, False), ("SR", True, False)]


def test_tasks_verify_reports_a_failing_oracle(tmp_path):
    root = make_suite(tmp_path)
    (root / "references" / "demo-eos" / "solution" / "solve.sh").write_text("echo '{\"a0\": 6.0}' > answer.json\n")
    res = _run("--root", str(root), "tasks", "verify", "demo-eos", "--conditions", "SF")
    assert res.exit_code == 1 and "oracle FAIL" in res.output and "FAIL a0" in res.output


def test_tasks_verify_reports_a_crashing_oracle(tmp_path):
    root = make_suite(tmp_path)
    (root / "references" / "demo-eos" / "solution" / "solve.sh").write_text("echo boom >&2; exit 3\n")
    res = _run("--root", str(root), "tasks", "verify", "--conditions", "SR")
    assert res.exit_code == 1 and "oracle exited 3: boom" in res.output


def test_readme_task_table_is_the_generated_one() -> None:
    # The README's Table A is pasted from `cmb tasks list --markdown`; a grader or task change must update it.
    generated = _run("--root", str(REPO), "tasks", "list", "--markdown")
    assert generated.exit_code == 0, generated.output
    assert generated.output.strip() in (REPO / "README.md").read_text(), "regenerate the README's task table"


def test_agents_backends_and_checks_list_what_is_registered():
    agents = json.loads(_run("agents", "list", "--json").output)
    by_name = {a["name"]: a for a in agents}
    assert {"oracle", "null", "replay", "codeact", "react", "codex"} <= set(by_name)
    assert by_name["codeact"]["needs_gateway"] and not by_name["null"]["needs_gateway"]
    assert by_name["codex"]["origin"] == "cmb (external.yaml)" and by_name["oracle"]["origin"] == "cmb"
    backends = {b["name"]: b for b in json.loads(_run("backends", "list", "--json").output)}
    assert {"local", "docker", "kubernetes"} <= set(backends) and backends["local"]["origin"] == "cmb"
    checks = {c["name"]: c for c in json.loads(_run("checks", "list", "--json").output)}
    assert checks["numeric.scalar"]["family"] == "numeric" and "schema.fields" in checks
    table = _run("checks", "list").output
    assert table.splitlines()[0].split() == ["check", "type", "from", "params", "description"]


def test_agents_list_includes_the_agents_files_of_the_settings(tmp_path):
    spec = tmp_path / "agents.yaml"
    spec.write_text("agents:\n  lab-cli:\n    description: Our lab's CLI.\n    install: '-'\n    api: openai-chat\n"
                    "    command: lab-cli\n")  # fmt: skip
    from cmb.agents import AGENTS

    try:
        res = CliRunner().invoke(cli, ["agents", "list"], env={"CMB_AGENTS_FILE": str(spec)})
        line = next(line for line in res.output.splitlines() if line.startswith("lab-cli"))
        assert str(spec) in line and "Our lab's CLI." in line
    finally:
        AGENTS.pop("lab-cli", None)


def test_backends_cleanup_removes_what_a_dead_harness_left_and_nothing_of_a_live_one(tmp_path, monkeypatch):
    import subprocess

    from cmb.sandbox import LocalSandbox
    from cmb.sandbox._owner import owner_tag

    monkeypatch.setattr(LocalSandbox, "base_dir", tmp_path)
    gone = subprocess.Popen(["true"])
    gone.wait()
    host = owner_tag().partition(":")[0]
    for name, owner in (("cmbpool-dead", f"{host}:{gone.pid}"), ("cmbpool-live", owner_tag())):
        (tmp_path / name).mkdir()
        (tmp_path / name / "owner").write_text(owner)
    removed = json.loads(_run("backends", "cleanup", "--json").output)
    assert "cmbpool-dead" in removed["local"] and "cmbpool-live" not in removed["local"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmbpool-live"]
