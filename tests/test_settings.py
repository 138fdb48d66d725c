"""CmbSettings: one section per concern, each field read from one CMB_* variable, with where each value came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cmb.settings import SECTIONS, CmbSettings, KubernetesSettings

# Every variable cmb read before the sections existed, and the setting that reads it now.
EXISTING = {
    "CMB_ROOT": "root",
    "CMB_HOME": "store.home",
    "CMB_MANUALS": "sandbox.manuals",
    "CMB_MLFLOW_URI": "store.mlflow_uri",
    "CMB_GATEWAY_URL": "gateway.url",
    "CMB_GATEWAY_CONFIG": "gateway.config",
    "CMB_GATEWAY_ADMIN_KEY": "gateway.admin_key",
    "CMB_AGENTS_FILE": "agents.files",
    "CMB_K8S_NAMESPACE": "kubernetes.namespace",
    "CMB_K8S_CONTEXT": "kubernetes.context",
    "CMB_K8S_SCHEDULE_TIMEOUT_S": "kubernetes.schedule_timeout_s",
    "CMB_K8S_START_TIMEOUT_S": "kubernetes.start_timeout_s",
    "CMB_K8S_TTL_S": "kubernetes.ttl_s",
    "CMB_K8S_PRIORITY_SINGLE": "kubernetes.priority_single",
    "CMB_K8S_PRIORITY_WORKFLOW": "kubernetes.priority_workflow",
    "CMB_K8S_WORKFLOW_POOL": "kubernetes.workflow_pool",
    "CMB_K8S_PULL_POLICY": "kubernetes.pull_policy",
    "CMB_K8S_SERVICE_ACCOUNT": "kubernetes.service_account",
    "CMB_K8S_POLL_S": "kubernetes.poll_s",
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in EXISTING:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_every_existing_variable_still_sets_its_setting(clean_env: pytest.MonkeyPatch) -> None:
    variables = {row.env: row.name for row in CmbSettings().effective()}
    assert {v: variables[v] for v in EXISTING} == EXISTING


def test_every_setting_has_a_description_and_a_cmb_variable() -> None:
    rows = CmbSettings().effective()
    assert len({r.env for r in rows}) == len(rows)
    assert all(r.description and r.env.startswith("CMB_") for r in rows)
    assert {r.name.split(".")[0] for r in rows} == {"root", *SECTIONS}


def test_values_come_from_variables_and_say_so(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setenv("CMB_HOME", str(tmp_path / "h"))
    clean_env.setenv("CMB_K8S_NAMESPACE", "lab")
    clean_env.setenv("CMB_K8S_SCHEDULE_TIMEOUT_S", "30")
    clean_env.setenv("CMB_AGENTS_FILE", f"{tmp_path}/a.yaml:{tmp_path}/b.yaml")
    clean_env.setenv("CMB_GATEWAY_ADMIN_KEY", "s3cret")
    settings = CmbSettings(store={"mlflow_uri": "none"})
    assert settings.store.home == tmp_path / "h" and settings.store.mlflow_uri == "none"
    assert (settings.kubernetes.namespace, settings.kubernetes.schedule_timeout_s) == ("lab", 30.0)
    assert settings.agents.files == (tmp_path / "a.yaml", tmp_path / "b.yaml")
    rows = {r.name: r for r in settings.effective()}
    assert rows["store.home"].source == "CMB_HOME" and rows["store.mlflow_uri"].source == "argument"
    assert rows["kubernetes.namespace"].source == "CMB_K8S_NAMESPACE"
    assert rows["kubernetes.ttl_s"].source == "default" and rows["kubernetes.ttl_s"].value == 600
    assert rows["gateway.admin_key"].value == "***"  # a secret is never printed
    assert settings.gateway.admin_key is not None and settings.gateway.admin_key.get_secret_value() == "s3cret"


def test_an_empty_variable_is_none_where_none_is_allowed_else_the_default(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CMB_K8S_PRIORITY_SINGLE", "")  # drop the priority class
    clean_env.setenv("CMB_K8S_TTL_S", " ")
    kube = CmbSettings().kubernetes
    assert kube.priority_single is None and kube.ttl_s == KubernetesSettings().ttl_s


def test_a_bad_value_is_refused_naming_the_setting(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CMB_K8S_POLL_S", "often")
    with pytest.raises(ValueError, match="poll_s"):
        CmbSettings()


def test_sections_are_never_read_whole_from_one_variable(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("CMB_AGENTS", "oracle,null")  # not a setting: a sweep's agents live in CMB_SWEEP_AGENTS
    clean_env.setenv("CMB_STORE", "{not json")
    assert CmbSettings().agents.files == ()


def test_the_kubernetes_backend_takes_its_section_from_the_settings(clean_env: pytest.MonkeyPatch) -> None:
    from cmb.sandbox import KubernetesSandbox

    clean_env.setenv("CMB_K8S_NAMESPACE", "from-env")
    assert KubernetesSandbox.kube.namespace == "cmb-agents"  # the class reads no environment of its own
    bound = KubernetesSandbox.configured(CmbSettings())
    assert issubclass(bound, KubernetesSandbox) and bound.kube.namespace == "from-env" and bound.backend == "kubernetes"


def test_settings_travel_to_other_processes() -> None:
    import pickle

    settings = CmbSettings(store={"home": Path("/x")})
    again = pickle.loads(pickle.dumps(settings))
    assert again == settings and {r.name: r.source for r in again.effective()}["store.home"] == "argument"


def test_config_show_prints_every_setting_with_its_source(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from cmb.cli import cli

    env = {"CMB_K8S_CONTEXT": "kind-cmb", "CMB_HOME": str(tmp_path)}
    res = CliRunner().invoke(cli, ["--root", str(tmp_path), "config", "show", "--json"], env=env)
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)}
    assert (
        rows["kubernetes.context"]["value"] == "kind-cmb" and rows["kubernetes.context"]["source"] == "CMB_K8S_CONTEXT"
    )
    assert rows["root"]["source"] == "argument" and rows["store.home"]["source"] == "CMB_HOME"
    assert len(rows) == len(CmbSettings().effective())
    table = CliRunner().invoke(cli, ["config", "show"], env={"CMB_ROOT": str(tmp_path)})
    assert table.exit_code == 0 and "CMB_K8S_NAMESPACE" in table.output
    root = next(line.split() for line in table.output.splitlines() if line.startswith("root "))
    assert root[1:4] == [str(tmp_path), "CMB_ROOT", "CMB_ROOT"]  # value, source, variable
