"""Every manifest under deploy/, validated strictly against the official schemas, and checked for the promises
the backend and the docs make (restricted Pod Security, egress only to the gateway and DNS, names that match).

What cannot be validated against an official Kubernetes schema, and how it is checked instead:
- KubeRay's RayCluster and RayJob are custom resources (kubernetes-validate ships no CRD schemas): every pod
  template inside them is validated as a core v1 PodTemplate, and the KubeRay fields cmb relies on are asserted.
- The Ray cluster-launcher config is not a Kubernetes object: it is validated against Ray's own JSON schema.
- The eksctl node-pool example is not a Kubernetes object: its labels and taints are checked against the backend.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from cmb.sandbox._kube_manifest import MIN_K8S, POOL, ROLE, WORKFLOW_TAINT
from cmb.settings import KubernetesSettings

kubernetes_validate = pytest.importorskip("kubernetes_validate")

REPO = Path(__file__).resolve().parents[2]
K8S = REPO / "deploy" / "k8s"
RAY = REPO / "deploy" / "ray"
VERSIONS = [MIN_K8S, "1.37"]


def docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def kustomize_objects() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    return [d for name in kustomization["resources"] for d in docs(K8S / name)]


def by_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def pod_templates(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Pod template specs (metadata + spec) inside a workload or a KubeRay object."""
    spec = obj.get("spec") or {}
    found = []
    if obj["kind"] in ("Deployment", "StatefulSet", "Job", "DaemonSet", "ReplicaSet"):
        found.append(spec["template"])
    if obj["kind"] == "RayJob":
        found.append(spec["submitterPodTemplate"])
        spec = spec["rayClusterSpec"]
    if obj["kind"] in ("RayCluster", "RayJob"):
        found.append(spec["headGroupSpec"]["template"])
        found += [g["template"] for g in spec["workerGroupSpecs"]]
    return found


def test_kustomization_lists_every_manifest_and_nothing_missing() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml"}
    assert all((K8S / name).is_file() for name in listed)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_k8s_manifest_validates_strictly(version: str) -> None:
    objects = kustomize_objects()
    assert len(objects) >= 20
    for obj in objects:
        kubernetes_validate.validate(obj, version, strict=True)


@pytest.mark.parametrize("version", VERSIONS)
def test_kuberay_pod_templates_validate_strictly(version: str) -> None:
    n = 0
    for path in (RAY / "raycluster.yaml", RAY / "rayjob.yaml"):
        for obj in docs(path):
            if obj["kind"] in ("RayCluster", "RayJob"):
                for template in pod_templates(obj):
                    wrapped = {
                        "apiVersion": "v1",
                        "kind": "PodTemplate",
                        "metadata": {"name": "t"},
                        "template": template,
                    }
                    kubernetes_validate.validate(wrapped, version, strict=True)
                    n += 1
            else:
                kubernetes_validate.validate(obj, version, strict=True)
    assert n == 5  # head + launchers of each, and the RayJob's submitter


def test_namespaces_enforce_restricted_pod_security() -> None:
    for ns in by_kind(kustomize_objects(), "Namespace"):
        labels = ns["metadata"]["labels"]
        for mode in ("enforce", "audit", "warn"):
            assert labels[f"pod-security.kubernetes.io/{mode}"] == "restricted"


def _restricted(pod: dict[str, Any], where: str) -> None:
    """The checks of the restricted Pod Security Standard that a manifest can be held to."""
    spec = pod["spec"]
    psc = spec.get("securityContext") or {}
    assert not spec.get("hostNetwork") and not spec.get("hostPID") and not spec.get("hostIPC"), where
    assert not any("hostPath" in v for v in spec.get("volumes") or []), where
    for c in spec.get("initContainers", []) + spec["containers"]:
        sc = c.get("securityContext") or {}
        assert sc.get("allowPrivilegeEscalation") is False, (where, c["name"])
        assert sc.get("capabilities", {}).get("drop") == ["ALL"], (where, c["name"])
        assert (sc.get("runAsNonRoot") or psc.get("runAsNonRoot")) is True, (where, c["name"])
        seccomp = (sc.get("seccompProfile") or psc.get("seccompProfile") or {}).get("type")
        assert seccomp == "RuntimeDefault", (where, c["name"])
        assert not sc.get("privileged"), (where, c["name"])
        assert c["resources"]["requests"] == c["resources"]["limits"], (where, c["name"])


def test_every_pod_meets_the_restricted_profile() -> None:
    objects = kustomize_objects() + docs(RAY / "raycluster.yaml") + docs(RAY / "rayjob.yaml")
    templates = [(o["metadata"]["name"], t) for o in objects for t in pod_templates(o)]
    assert len(templates) >= 8
    for name, template in templates:
        _restricted(template, name)


def test_agents_reach_only_the_gateway_and_dns() -> None:
    policies = {p["metadata"]["name"]: p for p in by_kind(kustomize_objects(), "NetworkPolicy")}
    deny = policies["default-deny"]["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"} and "egress" not in deny
    allow = policies["agents-to-gateway-and-dns"]["spec"]
    assert allow["podSelector"] == {"matchLabels": {ROLE: "agent"}} and allow["policyTypes"] == ["Egress"]
    gateway, dns = allow["egress"]
    assert gateway["to"][0]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "cmb-gateway"}
    assert [p["port"] for p in gateway["ports"]] == [8765]
    assert dns["to"][0]["podSelector"]["matchLabels"] == {"k8s-app": "kube-dns"}
    assert {(p["protocol"], p["port"]) for p in dns["ports"]} == {("UDP", 53), ("TCP", 53)}
    service = next(s for s in by_kind(kustomize_objects(), "Service") if s["metadata"]["name"] == "cmb-gateway")
    assert service["spec"]["ports"][0]["port"] == 8765


def test_scheduler_rbac_covers_what_the_backend_calls() -> None:
    objects = kustomize_objects()
    role = next(r for r in by_kind(objects, "Role") if r["metadata"]["name"] == "cmb-scheduler")
    assert role["metadata"]["namespace"] == KubernetesSettings().namespace
    grants = {(res, verb) for rule in role["rules"] for res in rule["resources"] for verb in rule["verbs"]}
    needed = {("jobs", v) for v in ("create", "get", "list", "delete")} | {
        ("pods", v) for v in ("get", "list", "watch")
    }
    assert needed | {("pods/exec", "create"), ("pods/exec", "get")} <= grants
    assert not any("*" in rule["verbs"] or "*" in rule["resources"] for rule in role["rules"])
    agent_sa = next(
        s for s in by_kind(objects, "ServiceAccount") if s["metadata"]["name"] == KubernetesSettings().service_account
    )
    assert agent_sa["automountServiceAccountToken"] is False


def test_priority_classes_and_quota_match_the_backend() -> None:
    objects = kustomize_objects()
    classes = {p["metadata"]["name"]: p for p in by_kind(objects, "PriorityClass")}
    settings = KubernetesSettings()
    for name in (settings.priority_single, settings.priority_workflow):
        assert classes[name]["preemptionPolicy"] == "Never"  # an attempt never evicts another
    scopes = {q["metadata"]["name"]: q["spec"].get("scopeSelector") for q in by_kind(objects, "ResourceQuota")}
    assert scopes["single-attempts"]["matchExpressions"][0]["values"] == [settings.priority_single]
    assert scopes["workflow-attempts"]["matchExpressions"][0]["values"] == [settings.priority_workflow]


def test_node_pool_example_matches_the_backend() -> None:
    config = yaml.safe_load((K8S / "nodepools" / "eksctl.yaml").read_text())
    pools = {g["name"]: g for g in config["managedNodeGroups"]}
    workflow = pools["workflow"]
    assert workflow["labels"] == {POOL: KubernetesSettings().workflow_pool}
    assert workflow["taints"] == [{"key": WORKFLOW_TAINT, "value": "true", "effect": "NoSchedule"}]
    assert workflow["minSize"] == 0 and workflow["propagateASGTags"] is True
    assert workflow["tags"]["k8s.io/cluster-autoscaler/enabled"] == "true"


def _sweep_command_parses(entrypoint: str) -> None:
    from cmb.cli._main import cli

    argv = shlex.split(entrypoint)
    assert argv[:2] == ["cmb", "sweep"]
    command = cli.commands["sweep"]
    ctx = command.make_context(
        "sweep", argv[2:], parent=cli.make_context("cmb", ["sweep", "--help"], resilient_parsing=True)
    )
    assert ctx.params["spec_file"] is not None or "--resume" in argv


def test_kuberay_objects_autoscale_and_run_cmb(tmp_path: Path) -> None:
    from cmb.models import SweepSpec

    cluster = docs(RAY / "raycluster.yaml")[0]
    config_map, job = docs(RAY / "rayjob.yaml")
    for spec in (cluster["spec"], job["spec"]["rayClusterSpec"]):
        assert spec["enableInTreeAutoscaling"] is True
        assert spec["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
        launchers = spec["workerGroupSpecs"][0]
        assert launchers["minReplicas"] == 0 and launchers["maxReplicas"] >= 1
        offered = json.loads(json.loads(launchers["rayStartParams"]["resources"]))
        assert offered == {"cmb-launcher": 16}
    sweep = SweepSpec.model_validate(yaml.safe_load(config_map["data"]["sweep.yaml"]))
    assert sweep == SweepSpec.model_validate(yaml.safe_load((RAY / "sweep.kuberay.yaml").read_text()))
    assert sweep.backend == "kubernetes" and set(sweep.launcher_resources["single"]) == {"cmb-launcher"}
    spec_file = tmp_path / "sweep.yaml"
    spec_file.write_text(config_map["data"]["sweep.yaml"])
    _sweep_command_parses(job["spec"]["entrypoint"].replace("/config/sweep.yaml", str(spec_file)))
    head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
    assert {"name": "sweep", "configMap": {"name": config_map["metadata"]["name"]}} in head["volumes"]


def test_cluster_launcher_config_validates_against_rays_schema() -> None:
    import jsonschema
    import ray

    schema = json.loads((Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())
    config = yaml.safe_load((RAY / "cluster-launcher" / "aws.yaml").read_text())
    jsonschema.validate(config, schema)
    from cmb.models import SweepSpec

    sweep = SweepSpec.model_validate(yaml.safe_load((RAY / "cluster-launcher" / "sweep.aws.yaml").read_text()))
    offered = {r for t in config["available_node_types"].values() for r in t["resources"]}
    for profile, wanted in sweep.launcher_resources.items():
        assert set(wanted) <= offered, profile  # every launcher can be placed somewhere
