"""`cmb results`, `cmb report` and `cmb compare` on a store found through CMB_HOME."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cmb.cli import cli
from tests.analysis.helpers import known_sweep, run, write_store


@pytest.fixture
def home(tmp_path, monkeypatch):
    runs, checks = known_sweep()
    write_store(tmp_path / "data", runs, checks)
    monkeypatch.setenv("CMB_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def _run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("name", ["pass", "repeat", "conditions", "failures", "shared-errors", "cost", "grid"])
def test_results_every_table_as_json_and_text(home, name):
    res = _run("results", "s", "--table", name, "--json", "--n-boot", "200")
    assert res.exit_code == 0, res.output
    payload = json.loads(res.output)
    assert payload["table"] == name and payload["meta"]["epoch"]["dropped"]["infrastructure"] == 1
    assert payload["meta"]["bootstrap"]["n_boot"] == 200
    text = _run("results", "s", "--table", name, "--n-boot", "200")
    assert text.exit_code == 0 and payload["title"] in text.output


def test_results_pass_numbers_and_options(home):
    payload = json.loads(_run("results", "s", "--json", "--n-boot", "200").output)
    b = next(r for r in payload["rows"] if r["agent"] == "B@n")
    assert (b["passes"], b["attempts"], b["model_cost_usd"]) == (5, 9, None)
    raw = json.loads(_run("results", "s", "--json", "--raw", "--n-boot", "200").output)
    assert next(r for r in raw["rows"] if r["agent"] == "B@n")["passes"] == 6
    every = json.loads(_run("results", "s", "--json", "--all-epochs", "--agents", "A@m", "--n-boot", "200").output)
    assert every["meta"]["epoch"]["kept"] == 28 and {r["agent"] for r in every["rows"]} == {"A@m"}
    priced = json.loads(_run("results", "s", "--table", "cost", "--json", "--cpu-hour-usd", "1").output)
    a_sf = next(r for r in priced["rows"] if r["agent"] == "A@m" and r["condition"] == "SF")
    assert a_sf["compute_cost_usd"] == pytest.approx(9 * 4 * 0.5 * 1.0)


def test_results_unknown_sweep_and_table(home):
    res = _run("results", "nope")
    assert res.exit_code == 1 and "no results for sweep nope" in res.output and "sweeps there: s" in res.output
    assert _run("results", "s", "--table", "nope").exit_code == 2


def test_report_writes_one_self_contained_file(home, tmp_path):
    out = tmp_path / "out" / "report.html"
    res = _run("report", "s", "--out", str(out), "--n-boot", "200")
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count('<figure data-plot="') == 7
    for needle in ("<script", "<link", "src=", "@import", "url("):
        assert needle not in html


def test_compare_sweeps_and_agents(home, tmp_path, monkeypatch):
    data = tmp_path / "two"
    s1 = [run("x", f"t{i}", "SF", 0, "scientific", sweep="s1") for i in range(5)]
    s2 = [run("x", f"t{i}", "SF", 0, "P", sweep="s2") for i in range(5)]
    write_store(data, s1 + s2)
    monkeypatch.setenv("CMB_HOME", str(data))
    payload = json.loads(_run("compare", "s1", "s2", "--json").output)
    assert payload["rows"][0]["p_permutation"] == pytest.approx(2 / 32) and payload["meta"]["family"] == 1
    text = _run("compare", "s1", "s2")
    assert text.exit_code == 0 and "+100.0" in text.output and "Bonferroni over 1 cell" in text.output
    res = _run("compare", "s1", "s1")
    assert res.exit_code == 2 and "two agents" in res.output
    monkeypatch.setenv("CMB_HOME", str(home))
    agents = json.loads(_run("compare", "s", "s", "--agent-a", "A@m", "--agent-b", "B@n", "--json").output)
    assert [r["condition"] for r in agents["rows"]] == ["SF"] and agents["rows"][0]["tasks"] == 3
