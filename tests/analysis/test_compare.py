"""Paired comparisons with p-values known in closed form."""

from __future__ import annotations

import pytest

from cmb.analysis import Analysis, AnalysisOptions, Metric, PairedTestKind, compare
from tests.analysis.helpers import analysis, run


def _two_sweeps() -> tuple[Analysis, Analysis]:
    """Agent x: s1 fails every task, s2 passes every task. SF: 6 paired tasks + 1 with a new task version in s2;
    SR: 4 paired tasks."""
    s1 = [run("x", f"t{i}", "SF", 0, "scientific", sweep="s1") for i in range(7)]
    s1 += [run("x", f"t{i}", "SR", 0, "scientific", sweep="s1") for i in range(4)]
    s2 = [run("x", f"t{i}", "SF", 0, "P", sweep="s2") for i in range(6)]
    s2 += [run("x", "t6", "SF", 0, "P", sweep="s2", task_hash="h-t6-new")]
    s2 += [run("x", f"t{i}", "SR", 0, "P", sweep="s2") for i in range(4)]
    return analysis(s1, n_boot=300, seed=1), analysis(s2, n_boot=300, seed=1)


def _cell(t, condition):
    return next(r for r in t.rows if r["condition"] == condition)


def test_compare_sweeps_known_p_values_and_bonferroni():
    a, b = _two_sweeps()
    t = compare(a, b)
    sf, sr = _cell(t, "SF"), _cell(t, "SR")
    # all six differences +1: only the all-plus and all-minus sign vectors reach |sum| = 6
    assert sf["tasks"] == 6 and sf["delta"] == 1.0
    assert sf["p_permutation"] == pytest.approx(2 / 2**6) and sf["p_wilcoxon"] == pytest.approx(2 / 2**6)
    assert sr["p_permutation"] == pytest.approx(2 / 2**4)
    assert t.meta["family"] == 2 and t.meta["bonferroni_cutoff"] == pytest.approx(0.025)
    assert sf["p_bonferroni"] == pytest.approx(2 * 2 / 64) and sr["p_bonferroni"] == pytest.approx(2 * 2 / 16)
    assert sf["significant"] is False and sr["significant"] is False  # 0.0625 and 0.25 are above 0.05
    assert sf["ci_low"] == sf["ci_high"] == 1.0
    assert t.meta["version_mismatched_pairs"] == 1  # t6 changed between the sweeps and is left out
    assert sf["agent"] == "x"


def test_compare_any_version_keeps_changed_tasks_and_alpha_decides():
    a, b = _two_sweeps()
    t = compare(a, b, any_version=True, alpha=0.1, test=PairedTestKind.WILCOXON)
    sf = _cell(t, "SF")
    assert sf["tasks"] == 7 and sf["p_wilcoxon"] == pytest.approx(2 / 2**7)
    assert sf["p_bonferroni"] == pytest.approx(2 * 2 / 128) and sf["significant"] is True


def test_compare_two_agents_in_one_sweep_by_score():
    runs = []
    for i in range(5):
        runs.append(run("a", f"t{i}", "SF", 0, "scientific", raw_score=0.5, gated_score=0.5))
        score = 0.5 + 0.1 * (i + 1)
        runs.append(run("b", f"t{i}", "SF", 0, "scientific", raw_score=score, gated_score=score))
    s = analysis(runs, n_boot=300)
    t = compare(s, s, agent_a="a", agent_b="b", metric=Metric.SCORE)
    r = t.rows[0]
    assert r["condition"] == "SF" and "agent" not in r
    assert r["mean_a"] == pytest.approx(0.5) and r["delta"] == pytest.approx(0.3)
    assert r["p_permutation"] == pytest.approx(2 / 32) and r["p_wilcoxon"] == pytest.approx(2 / 32)
    assert "A = " in t.notes[0] and "[a]" in t.notes[0]


def test_compare_by_kind_splits_cells():
    runs = [run("x", t, "SF", 0, "P", sweep="s1") for t in ("t1", "t2", "t3")]
    runs += [run("x", t, "SF", 0, "scientific", sweep="s2") for t in ("t1", "t2", "t3")]
    a = analysis([r for r in runs if r["sweep"] == "s1"], n_boot=200)
    b = analysis([r for r in runs if r["sweep"] == "s2"], n_boot=200)
    t = compare(a, b, by_kind=True)
    assert sorted(r["kind"] for r in t.rows) == ["input-preparation", "output-analysis", "run-and-analyze"]
    assert t.meta["family"] == 3 and all(r["delta"] == -1.0 for r in t.rows)


def test_compare_uses_the_gated_basis_unless_raw():
    s1 = [run("x", f"t{i}", "SF", 0, "P", sweep="s1") for i in range(4)]
    s2 = [run("x", f"t{i}", "SF", 0, "V", sweep="s2") for i in range(4)]  # every pass voided by the audit
    gated = compare(analysis(s1, n_boot=200), analysis(s2, n_boot=200))
    assert gated.rows[0]["delta"] == -1.0
    raw = compare(analysis(s1, n_boot=200, basis="raw"), analysis(s2, n_boot=200, basis="raw"))
    assert raw.rows[0]["delta"] == 0.0 and raw.rows[0]["p_permutation"] == 1.0
    assert isinstance(AnalysisOptions().seed, int)


# `cmb compare` names where both sweeps are seen in the MLflow UI -------------------------------------------------


@pytest.fixture
def two_sweeps_home(tmp_path, monkeypatch):
    from tests.analysis.helpers import write_store

    s1 = [run("x", f"t{i}", "SF", 0, "scientific", sweep="s1") for i in range(4)]
    s2 = [run("x", f"t{i}", "SF", 0, "P", sweep="s2") for i in range(4)]
    home = tmp_path / "data"
    write_store(home, s1 + s2)
    monkeypatch.setenv("CMB_HOME", str(home))
    monkeypatch.delenv("CMB_MLFLOW_URI", raising=False)
    return home


def _compare_cli(*args):
    from click.testing import CliRunner

    from cmb.cli import cli

    res = CliRunner().invoke(cli, ["compare", "s1", "s2", "--n-boot", "200", *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def _mlflow_lines(output):
    return output[output.index("MLflow") :].splitlines()


def test_compare_prints_the_local_mlflow_ui_command_and_both_experiments(two_sweeps_home):
    import json

    pytest.importorskip("mlflow")
    from mlflow.tracking import MlflowClient

    from cmb.store import default_tracking_uri
    from tests.store.mlflow_helpers import migrated_db

    assert _mlflow_lines(_compare_cli()) == [f"MLflow: no tracking database at {two_sweeps_home / 'mlflow.db'} "
                                             "(nothing mirrored there yet)"]  # fmt: skip
    assert not (two_sweeps_home / "mlflow.db").exists()  # looking did not create one
    uri = default_tracking_uri(migrated_db(two_sweeps_home / "mlflow.db").parent)
    s1 = MlflowClient(uri).create_experiment("s1")
    assert _mlflow_lines(_compare_cli()) == [
        f"MLflow UI: mlflow ui --backend-store-uri {uri}, then open",
        f"  A s1: #/experiments/{s1}/runs",
        "  B s2: no experiment named 's2' (run `cmb mlflow-sync s2`)",
    ]
    s2 = MlflowClient(uri).create_experiment("s2")
    meta = json.loads(_compare_cli("--json"))["meta"]["mlflow"]
    assert meta["tracking_uri"] == uri and meta["serve"] == f"mlflow ui --backend-store-uri {uri}"
    assert [(e["sweep"], e["experiment_id"], e["url"]) for e in meta["experiments"]] == [
        ("s1", s1, f"#/experiments/{s1}/runs"),
        ("s2", s2, f"#/experiments/{s2}/runs"),
    ]


def test_compare_says_in_one_line_when_mlflow_is_off_or_does_not_answer(two_sweeps_home, monkeypatch):
    import json

    from tests.processes import free_port

    monkeypatch.setenv("CMB_MLFLOW_URI", "none")
    assert _mlflow_lines(_compare_cli()) == ["MLflow: off (store.mlflow_uri / CMB_MLFLOW_URI is 'none')"]
    assert json.loads(_compare_cli("--json"))["meta"]["mlflow"]["problem"].startswith("off")
    pytest.importorskip("mlflow")
    down = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("CMB_MLFLOW_URI", down)
    lines = _mlflow_lines(_compare_cli())
    assert len(lines) == 1 and lines[0].startswith(f"MLflow: {down} could not be read (")


@pytest.mark.slow
def test_compare_prints_a_servers_experiment_urls(two_sweeps_home, monkeypatch):
    import json

    pytest.importorskip("mlflow")
    from mlflow.tracking import MlflowClient

    from tests.store.mlflow_helpers import shared_server

    server = shared_server()
    client = MlflowClient(server.uri)
    ids = {}
    for name in ("s1", "s2"):
        exp = client.get_experiment_by_name(name)
        ids[name] = exp.experiment_id if exp else client.create_experiment(name)
    monkeypatch.setenv("CMB_MLFLOW_URI", server.uri + "/")
    assert _mlflow_lines(_compare_cli()) == [
        "MLflow UI:",
        f"  A s1: {server.uri}/#/experiments/{ids['s1']}/runs",
        f"  B s2: {server.uri}/#/experiments/{ids['s2']}/runs",
    ]
    meta = json.loads(_compare_cli("--json"))["meta"]["mlflow"]
    assert meta["serve"] is None and meta["experiments"][1]["url"] == f"{server.uri}/#/experiments/{ids['s2']}/runs"
