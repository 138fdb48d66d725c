"""The kubernetes backend: its Job, validated against the official schema; its create / watch / exec / collect /
cleanup logic against a local stand-in API server (with 410 Gone and dropped watches); and, when KUBECONFIG
points at a real cluster, the same round trip there (marked k8s)."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cmb.models import DEFAULT_PROFILES, ResourceProfile
from cmb.sandbox import Measured, SandboxError, SandboxPool, SandboxSpec
from cmb.sandbox._kube_manifest import MIN_K8S, job_manifest, manifest_dict
from cmb.sandbox._kube_pods import PodVerdict, classify_pod
from cmb.sandbox._kubernetes import KubernetesSandbox, reset_client_configuration
from cmb.sandbox._owner import owner_of_label, owner_tag
from cmb.sandbox._pool import NAME_PREFIX
from cmb.settings import CmbSettings, KubernetesSettings
from tests.sandbox.fake_kube_apiserver import FakeKubeApiServer

kubernetes_validate = pytest.importorskip("kubernetes_validate")
pytest.importorskip("kubernetes")
pytest.importorskip("aiohttp")

SMALL = ResourceProfile(name="single", cpus=1, memory_gib=0.5, time_limit_s=60, disk_gib=0.25)
SETTINGS = KubernetesSettings(schedule_timeout_s=2, start_timeout_s=10, poll_s=1, ttl_s=300)


def spec(name: str = "cmb-t-sf-0-abc", profile: ResourceProfile = SMALL, **kw: Any) -> SandboxSpec:
    return SandboxSpec(name=name, profile=profile, image=kw.pop("image", "cmb-agent:slim"), **kw)


# -- the Job object --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [MIN_K8S, "1.37"])
@pytest.mark.parametrize("profile", ["single", "workflow"])
def test_job_validates_strictly_against_the_official_schema(profile: str, version: str) -> None:
    job = manifest_dict(job_manifest(spec(profile=DEFAULT_PROFILES[profile]), SETTINGS))
    kubernetes_validate.validate(job, version, strict=True)


def test_job_is_guaranteed_qos_hardened_and_bounded() -> None:
    job = manifest_dict(job_manifest(spec(env={"A": "1"}, gateway_url="http://gateway:8080"), SETTINGS))
    pod = job["spec"]["template"]["spec"]
    assert job["metadata"]["name"] == "cmb-t-sf-0-abc" and job["spec"]["backoffLimit"] == 0
    assert job["spec"]["activeDeadlineSeconds"] == 60 * 2 + 3600 and job["spec"]["ttlSecondsAfterFinished"] == 300
    for c in pod["containers"]:
        assert c["resources"]["requests"] == c["resources"]["limits"]  # Guaranteed QoS
        sc = c["securityContext"]
        assert sc["allowPrivilegeEscalation"] is False and sc["readOnlyRootFilesystem"] is True
        assert sc["runAsNonRoot"] is True and sc["capabilities"]["drop"] == ["ALL"]
        assert sc["seccompProfile"]["type"] == "RuntimeDefault"
    agent = pod["containers"][0]
    assert agent["resources"]["limits"]["cpu"] == "1" and agent["resources"]["limits"]["memory"] == "512Mi"
    env = {e["name"]: e["value"] for e in agent["env"]}
    assert env["A"] == "1" and env["CMB_GATEWAY_URL"] == "http://gateway:8080" and env["OMP_NUM_THREADS"] == "1"
    assert pod["automountServiceAccountToken"] is False and pod["enableServiceLinks"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["restartPolicy"] == "Never"
    assert {v["name"]: v["emptyDir"]["sizeLimit"] for v in pod["volumes"]} == {"workspace": "256Mi", "tmp": "1Gi"}
    assert "tolerations" not in pod and "affinity" not in pod and pod["priorityClassName"] == "cmb-single"
    assert job["spec"]["template"]["metadata"]["labels"]["cmb/role"] == "agent"


def test_workflow_job_gets_a_node_of_its_own() -> None:
    pod = manifest_dict(job_manifest(spec(profile=DEFAULT_PROFILES["workflow"]), SETTINGS))["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"cmb/pool": "workflow"}
    assert pod["tolerations"] == [{"key": "cmb/workflow", "operator": "Equal", "value": "true", "effect": "NoSchedule"}]
    term = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchExpressions"] == [{"key": "cmb/role", "operator": "In", "values": ["agent"]}]
    assert pod["priorityClassName"] == "cmb-workflow" and pod["containers"][0]["resources"]["limits"]["cpu"] == "16"


def _pod(**status: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p"}, "status": status}


def _c(name: str, state: str, **detail: Any) -> dict[str, Any]:
    return {"name": name, "state": {state: detail}}


def _cond(type_: str, status: str, **kw: str) -> dict[str, str]:
    return {"type": type_, "status": status, **kw}


INFRA = "infrastructure"
CASES = [
    (_pod(phase="Running", containerStatuses=[_c("agent", "running")]), None, None),
    (_pod(phase="Pending", containerStatuses=[_c("agent", "waiting", reason="ContainerCreating")]), None, None),
    (_pod(containerStatuses=[_c("agent", "waiting", reason="ImagePullBackOff")]), INFRA, "ImagePullBackOff"),
    (_pod(containerStatuses=[_c("files", "waiting", reason="CreateContainerConfigError")]), INFRA,
     "CreateContainerConfigError"),
    (_pod(conditions=[_cond("PodScheduled", "False", reason="Unschedulable", message="Insufficient cpu")]),
     "pending", "FailedScheduling"),
    (_pod(containerStatuses=[_c("agent", "terminated", reason="OOMKilled", exitCode=137)]), "agent", "OOMKilled"),
    (_pod(containerStatuses=[_c("files", "terminated", reason="OOMKilled")]), INFRA,
     "files container terminated: OOMKilled"),
    (_pod(phase="Failed", reason="DeadlineExceeded"), "agent", "DeadlineExceeded"),
    (_pod(phase="Failed", reason="Evicted"), INFRA, "Evicted"),
    (_pod(conditions=[_cond("DisruptionTarget", "True", reason="PreemptionByScheduler")]), INFRA,
     "PreemptionByScheduler"),
    (_pod(phase="Failed"), INFRA, "pod Failed"),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "blame", "reason"), CASES)
def test_pod_failure_causes_map_to_infrastructure_or_agent(
    pod: dict[str, Any], blame: str | None, reason: str | None
) -> None:
    verdict = classify_pod(pod)
    assert (verdict.blame if verdict else None, verdict.reason if verdict else None) == (blame, reason)
    deleting = {**pod, "metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:00:00Z"}}
    assert classify_pod(deleting) == PodVerdict("infrastructure", "Deleted", "the pod is being deleted")


# -- against the stand-in API server ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeKubeApiServer]:
    srv = FakeKubeApiServer(tmp_path_factory.mktemp("kube"), node_cpus=8, validate_as=MIN_K8S).start()
    yield srv
    srv.stop()


@pytest.fixture
def cluster(server: FakeKubeApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKubeApiServer]:
    monkeypatch.setenv("KUBECONFIG", str(server.kubeconfig(tmp_path / "kubeconfig")))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setattr(KubernetesSandbox, "kube", SETTINGS)
    reset_client_configuration()
    server.drop_watch_after = None
    server.pull_fail_images.clear()
    yield server
    reset_client_configuration()


@pytest.fixture
def sandboxes() -> Iterator[list[KubernetesSandbox]]:
    made: list[KubernetesSandbox] = []
    yield made
    for sb in made:
        sb.teardown()


def make(made: list[KubernetesSandbox], name: str, **kw: Any) -> KubernetesSandbox:
    sb = KubernetesSandbox(spec(name, **kw))
    made.append(sb)
    return sb


def test_available_with_a_kubeconfig(cluster: FakeKubeApiServer) -> None:
    assert KubernetesSandbox.available() is None


def test_round_trip_put_exec_get_teardown(cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox],
                                          tmp_path: Path) -> None:  # fmt: skip
    sb = make(sandboxes, "cmb-rt-sf-0-aaaa", env={"FROM_SPEC": "spec"})
    sb.start()
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("alpha")
    (src / "sub" / "b.json").write_text('{"x": 1}')
    sb.put(src)
    sb.put(src, "nested/deeper")
    r = sb.exec(["sh", "-c", 'cat a.txt sub/b.json nested/deeper/a.txt; echo "$FROM_SPEC $EXTRA" >&2; mkdir -p ans;'
                             ' echo 42 > ans/v.txt; exit 3'], timeout_s=30, env={"EXTRA": "x"})  # fmt: skip
    assert (r.exit_code, r.stdout, r.stderr.strip(), r.timed_out) == (3, 'alpha{"x": 1}alpha', "spec x", False)
    assert sb.exec(["pwd"], timeout_s=30, cwd="sub").stdout.strip().endswith("sub")
    sb.get("ans", tmp_path / "out")
    assert (tmp_path / "out" / "v.txt").read_text() == "42\n"
    sb.get("a.txt", tmp_path / "single")
    assert (tmp_path / "single" / "a.txt").read_text() == "alpha"
    sb.get(".", tmp_path / "all")
    assert (tmp_path / "all" / "nested" / "deeper" / "sub" / "b.json").is_file()
    with pytest.raises(FileNotFoundError):
        sb.get("missing", tmp_path / "none")
    sb.exec(["ln", "-s", "/etc/passwd", "leak"], timeout_s=30)
    sb.get("leak", tmp_path / "leak")
    assert not (tmp_path / "leak" / "leak").exists() and any("symbolic link" in w for w in sb.warnings)
    # staging and collection went through the files container, commands through the agent container
    containers = {(c, a[0]) for p, c, a in cluster.exec_log if p == sb.pod_name}
    assert ("files", "tar") in containers and all(c in ("agent", "files") for c, _ in containers)
    job = cluster.created_jobs[-1]
    assert job["metadata"]["labels"]["cmb/sandbox"] == "cmb-rt-sf-0-aaaa"
    sb.teardown()
    sb.teardown()  # twice is fine
    assert ("cmb-agents", "cmb-rt-sf-0-aaaa") not in cluster.jobs
    assert not [p for p in cluster.pods.values() if p["metadata"]["labels"]["job-name"] == "cmb-rt-sf-0-aaaa"]


def test_use_is_read_from_the_agent_containers_own_cgroup(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]
) -> None:
    sb = make(sandboxes, "cmb-me-sf-0-ffff")
    sb.start()
    assert sb.pod_name is not None
    counters = cluster.cgroup_dir(sb.pod_name, "agent")
    assert sb.measure() is None  # nothing to read: the cost stays on the request
    (counters / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    (counters / "memory.peak").write_text(f"{3 * 2**30}\n")
    measured = sb.measure()
    assert measured is not None
    assert (measured.cpu_s, measured.peak_memory_bytes, measured.source) == (2.5, 3 * 2**30, "cgroup-v2")
    (counters / "memory.peak").unlink()  # kernels before 5.19
    assert sb.measure() == Measured(2.5, None, "cgroup-v2")


def test_timeout_kills_the_whole_command(cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]) -> None:
    sb = make(sandboxes, "cmb-to-sf-0-bbbb")
    sb.start()
    r = sb.exec(["sh", "-c", "(sleep 30; echo late > late.txt) & echo started; sleep 30"], timeout_s=1)
    assert r.timed_out and r.exit_code == 137 and r.stdout.strip() == "started"
    time.sleep(1)
    assert sb.exec(["sh", "-c", "test -e late.txt || echo absent"], timeout_s=10).stdout.strip() == "absent"


def test_retried_launch_attaches_to_the_job_and_to_the_running_command(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]
) -> None:
    first = make(sandboxes, "cmb-at-sf-0-cccc")
    first.start()
    n_jobs = len(cluster.created_jobs)
    argv = ["sh", "-c", "echo run >> runs.log; sleep 2; wc -l < runs.log"]
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.setdefault("r", first.exec(argv, timeout_s=30)))
    thread.start()
    time.sleep(0.8)  # the launcher dies here, mid-command; its retry builds a new sandbox of the same name
    second = KubernetesSandbox(spec("cmb-at-sf-0-cccc"))
    second.start()
    assert second.attached and len(cluster.created_jobs) == n_jobs  # no duplicate Job
    again = second.exec(argv, timeout_s=30)  # the same command: waited for, not started twice
    thread.join()
    assert again.stdout.strip() == result["r"].stdout.strip() == "1"
    assert second.exec(["cat", "runs.log"], timeout_s=10).stdout == "run\n"


def test_a_finished_job_of_the_same_name_is_replaced(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]
) -> None:
    old = make(sandboxes, "cmb-fin-sf-0-dddd")
    old.start()
    cluster.finish_job("cmb-fin-sf-0-dddd", "Failed")
    new = make(sandboxes, "cmb-fin-sf-0-dddd")
    new.start()
    assert not new.attached
    assert [j["metadata"]["name"] for j in cluster.created_jobs].count("cmb-fin-sf-0-dddd") == 2
    assert new.exec(["true"], timeout_s=10).exit_code == 0


def test_watch_survives_dropped_connections_and_410_gone(cluster: FakeKubeApiServer,
                                                         sandboxes: list[KubernetesSandbox]) -> None:  # fmt: skip
    cluster.drop_watch_after = 1  # every watch connection is cut after one event
    cluster.start_delay_s = 0.5  # so that scheduling and starting arrive as separate events
    before = cluster.watch_requests
    sb = make(sandboxes, "cmb-w-sf-0-eeee")
    try:
        sb.start()
    finally:
        cluster.start_delay_s = 0.1
    assert sb.pod_name is not None and cluster.watch_requests - before >= 2
    assert sb._watch is not None and sb._watch.failures >= 1
    cluster.drop_watch_after = None
    relists = sb._watch.relists
    cluster.gone_live_watches()  # 410 Gone in the open stream
    cluster.expire_history()  # and the version it would resume from is gone too
    cluster.drop_watches()
    time.sleep(1.5)
    assert sb._watch.relists > relists
    cluster.terminate_container(sb.pod_name, "agent", "OOMKilled")  # seen through the re-established watch
    verdict = sb._watch.wait_for(lambda pods: classify_pod(next(iter(pods.values()))) if pods else None, 10)
    assert verdict is not None and verdict.reason == "OOMKilled"


def test_oom_during_a_command_is_the_agents_and_outputs_stay_readable(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox], tmp_path: Path
) -> None:
    sb = make(sandboxes, "cmb-oom-sf-0-ffff")
    sb.start()
    assert sb.pod_name is not None
    result: dict[str, Any] = {}
    thread = threading.Thread(
        target=lambda: result.setdefault("r", sb.exec(["sh", "-c", "echo partial > part.txt; sleep 20"], timeout_s=60))
    )
    thread.start()
    time.sleep(1.0)
    cluster.terminate_container(sb.pod_name, "agent", "OOMKilled")
    thread.join(30)
    r = result["r"]
    assert r.oom_killed and r.exit_code == 137 and not r.timed_out
    sb.get("part.txt", tmp_path / "out")  # through the files container
    assert (tmp_path / "out" / "part.txt").read_text() == "partial\n"


def test_eviction_during_a_command_is_infrastructure(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]
) -> None:
    sb = make(sandboxes, "cmb-ev-sf-0-gggg")
    sb.start()
    assert sb.pod_name is not None
    errors: list[BaseException] = []

    def run() -> None:
        try:
            sb.exec(["sleep", "20"], timeout_s=60)
        except SandboxError as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(1.0)
    cluster.evict(sb.pod_name)
    thread.join(30)
    assert errors and "Evicted" in str(errors[0])


# The kubelet's eviction messages (pkg/kubelet/eviction): a pod over its own storage limits, or node pressure.
OWN_DISK = [
    'Usage of EmptyDir volume "workspace" exceeds the limit "256Mi". ',
    "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. ",
    'Container agent exceeded its local ephemeral storage limit "1Gi". ',
]


@pytest.mark.parametrize("message", OWN_DISK)
def test_an_agent_that_outgrows_its_storage_is_evicted_as_its_own_failure(message: str) -> None:
    pod = {"status": {"phase": "Failed", "reason": "Evicted", "message": message}}
    verdict = classify_pod(pod)
    assert verdict is not None and (verdict.blame, verdict.reason) == ("agent", "DiskLimit")
    node = {"status": {"phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: "
                       "ephemeral-storage. Threshold quantity: 1Gi, available: 900Mi. "}}  # fmt: skip
    assert classify_pod(node).blame == "infrastructure"  # type: ignore[union-attr]


def _sleep_until(sb: KubernetesSandbox, fault: Any) -> Any:
    """Start the sandbox, run a long command, apply `fault(pod_name)` a second in, and return the exec result."""
    sb.start()
    assert sb.pod_name is not None
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.setdefault("r", sb.exec(["sleep", "20"], timeout_s=60)))
    thread.start()
    time.sleep(1.0)
    fault(sb.pod_name)
    thread.join(30)
    return result["r"]


def test_eviction_for_the_workspace_limit_during_a_command_is_a_disk_limit(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]
) -> None:
    r = _sleep_until(make(sandboxes, "cmb-dk-sf-0-iiii"), lambda pod: cluster.evict(pod, message=OWN_DISK[0]))
    assert r.disk_exceeded and r.exit_code == 137 and not r.timed_out and not r.oom_killed


def test_deadline_exceeded_is_a_time_out(cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]) -> None:
    r = _sleep_until(make(sandboxes, "cmb-dl-sf-0-hhhh"), cluster.deadline_exceeded)
    assert r.timed_out and not r.oom_killed


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"image": "registry.invalid/nope:1"}, "ImagePullBackOff"),
        ({"profile": ResourceProfile(name="huge", cpus=64, memory_gib=1, time_limit_s=60)}, "Insufficient cpu"),
        ({"profile": DEFAULT_PROFILES["workflow"].model_copy(update={"cpus": 2})}, "node affinity/selector"),
    ],
)
def test_pods_that_cannot_start_are_infrastructure_failures(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox], kw: dict[str, Any], message: str
) -> None:
    cluster.pull_fail_images.add("registry.invalid/nope:1")
    sb = make(sandboxes, f"cmb-bad-sf-0-{abs(hash(message)) % 10**6}", **kw)
    with pytest.raises(SandboxError, match=message):
        sb.start()


def test_server_rejects_objects_that_fail_the_schema(cluster: FakeKubeApiServer) -> None:
    from kubernetes import client as k
    from kubernetes.client.exceptions import ApiException

    from cmb.sandbox._kubernetes import client_configuration

    job = manifest_dict(job_manifest(spec("cmb-invalid-0"), SETTINGS))
    job["spec"]["template"]["spec"]["containers"][0]["bogusField"] = 1
    batch = k.BatchV1Api(k.ApiClient(client_configuration()))
    with pytest.raises(ApiException) as err:
        batch.create_namespaced_job("cmb-agents", job)
    assert err.value.status == 422


def test_cleanup_by_label(cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]) -> None:
    a, b = make(sandboxes, "cmb-cl-sf-0-iiii"), make(sandboxes, "cmb-cl-sf-1-jjjj")
    a.start()
    b.start()
    cluster.finish_job("cmb-cl-sf-0-iiii", "Complete")
    assert KubernetesSandbox.cleanup_orphans() == ["cmb-cl-sf-0-iiii"]
    assert "cmb-cl-sf-1-jjjj" in KubernetesSandbox.cleanup("cmb/sandbox=cmb-cl-sf-1-jjjj")
    assert not [key for key in cluster.jobs if key[1].startswith("cmb-cl-")]


# -- a real cluster ------------------------------------------------------------------------------------------------


@pytest.mark.k8s
def test_round_trip_on_a_real_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.environ.get("KUBECONFIG"):
        pytest.skip("KUBECONFIG does not point at a cluster")
    monkeypatch.setattr(KubernetesSandbox, "kube", CmbSettings().kubernetes)
    reset_client_configuration()
    reason = KubernetesSandbox.available()
    if reason is not None:
        pytest.skip(reason)
    image = os.environ.get("CMB_K8S_TEST_IMAGE", "cmb-agent:slim")
    sb = KubernetesSandbox(spec(f"cmb-k8s-test-{os.getpid()}", image=image))
    try:
        sb.start()
        (tmp_path / "in").mkdir()
        (tmp_path / "in" / "x.txt").write_text("hello")
        sb.put(tmp_path / "in")
        r = sb.exec(["sh", "-c", "cat x.txt > y.txt && cat y.txt && id -u"], timeout_s=60)
        assert r.exit_code == 0 and r.stdout.splitlines() == ["hello", "1000"]
        sb.get("y.txt", tmp_path / "out")
        assert (tmp_path / "out" / "y.txt").read_text() == "hello"
        assert sb.exec(["sh", "-c", "touch /etc/x"], timeout_s=30).exit_code != 0  # read-only root
    finally:
        sb.teardown()
    assert json.dumps(sb.warnings)  # nothing to assert beyond a clean run


# -- warm pools of pre-created pods ---------------------------------------------------------------------------------


def _pool_jobs(cluster: FakeKubeApiServer) -> list[str]:
    return sorted(name for _, name in cluster.jobs if name.startswith(NAME_PREFIX))


def _wait_ready(pool: SandboxPool, n: int = 1) -> None:
    deadline = time.monotonic() + 60
    while pool.ready < n:
        assert pool.last_error is None and time.monotonic() < deadline, pool.last_error
        time.sleep(0.05)


def test_a_warm_pool_keeps_pods_running_ahead_of_claims_and_leaves_none(cluster: FakeKubeApiServer) -> None:
    pool = SandboxPool(KubernetesSandbox, spec("shape"), lambda sb: sb.exec(["pwd"], timeout_s=30).stdout, 1)
    try:
        first = pool.claim(60)  # nothing asked for before: made now
        _wait_ready(pool)
        (spare,) = set(_pool_jobs(cluster)) - {first.sandbox.spec.name}
        assert cluster.pod_of(spare)["status"]["phase"] == "Running"  # the pod runs before anyone claims it
        pool.retire(first.sandbox)
        warm = pool.claim(60)
        assert warm.sandbox.spec.name == spare and warm.facts.strip().startswith("/")  # prepared ahead too
        r = warm.sandbox.exec(["sh", "-c", "echo warm > w.txt && cat w.txt"], timeout_s=30)
        assert (r.exit_code, r.stdout) == (0, "warm\n")
        job = cluster.jobs[("cmb-agents", spare)]
        assert owner_of_label(job["metadata"]["labels"]["cmb/owner"]) == owner_tag()
        # A pooled pod that ended while it waited (evicted, its Job deleted) is not handed out.
        _wait_ready(pool)
        (gone,) = set(_pool_jobs(cluster)) - {first.sandbox.spec.name, spare}
        cluster.evict(cluster.pod_of(gone)["metadata"]["name"])
        deadline = time.monotonic() + 30
        while pool._ready and pool._ready[0].sandbox.alive():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        replacement = pool.claim(60)
        assert replacement.sandbox.spec.name not in (gone, spare)
        pool.retire(warm.sandbox)
        pool.retire(replacement.sandbox)
    finally:
        pool.drain()
    deadline = time.monotonic() + 30
    while _pool_jobs(cluster):
        assert time.monotonic() < deadline, _pool_jobs(cluster)
        time.sleep(0.1)


def test_the_janitor_removes_running_jobs_of_a_dead_harness_only(
    cluster: FakeKubeApiServer, sandboxes: list[KubernetesSandbox]
) -> None:
    alive, orphan = make(sandboxes, "cmb-ow-sf-0-kkkk"), make(sandboxes, "cmb-ow-sf-1-llll")
    alive.start()
    orphan.start()
    ended = subprocess.Popen(["true"])
    ended.wait()
    host = owner_tag().partition(":")[0]
    cluster.jobs[("cmb-agents", "cmb-ow-sf-1-llll")]["metadata"]["labels"]["cmb/owner"] = f"{host}.{ended.pid}"
    assert KubernetesSandbox.cleanup_orphans() == ["cmb-ow-sf-1-llll"]
    assert ("cmb-agents", "cmb-ow-sf-0-kkkk") in cluster.jobs
