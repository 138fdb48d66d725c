"""Sandbox backend: kubernetes. One Job per attempt, built from the official client's models.

The Job is named after the sandbox (the attempt's deterministic slug): a retried launch finds it (409 Conflict on
create) and attaches to it instead of starting a duplicate; a finished or dying one is deleted and recreated.

Pod shape. Two containers share a workspace emptyDir (and a /tmp emptyDir): `agent`, where commands run, with
the profile's CPU and memory as requests = limits (Guaranteed QoS), and `files`, a small helper through which
the bundle is staged and outputs are collected, so the outputs of an agent killed for memory can still be read.
Both run a keeper loop and nothing else; `activeDeadlineSeconds` bounds the pod's life and `ttlSecondsAfterFinished`
removes the Job afterwards. Security: non-root uid 1000, no privilege escalation, every capability dropped,
seccomp RuntimeDefault, read-only root filesystem, no service-account token, no service links. Workflow profiles
(node_exclusive) go to a dedicated, tainted node pool (`cmb/pool=workflow`, taint `cmb/workflow=true:NoSchedule`)
with a required anti-affinity against every other agent pod, so each gets a node of its own.

Staging and collection go through the exec API with tar, as `kubectl cp` does: no extra storage service, and the
agent pod's egress stays limited to the gateway and DNS (deploy/k8s NetworkPolicy). Commands run detached: an exec
starts them under `setsid` with a watchdog and returns; short long-polling execs wait for the exit code, which is
kept in /tmp. A dropped connection during a five-hour agent run therefore loses nothing, and a retried launch that
re-issues the same command attaches to the process already running instead of starting a second one.

Pod state comes from a list + watch of the Job's pods in a background thread that survives dropped connections
(it resumes from the last resourceVersion) and 410 Gone (it lists again). Failure causes are mapped to
infrastructure (SandboxError: FailedScheduling past its timeout, ImagePullBackOff, eviction, a lost node) or to the
agent (OOMKilled, DeadlineExceeded as a time-out) by `classify_pod`.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import math
import os
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar, TypeVar

from cmb.sandbox._base import ExecResult, Sandbox, SandboxError, SandboxSpec, register_backend
from cmb.sandbox._files import extract_tar, relative_parts
from cmb.settings import CmbSettings, KubernetesSettings

log = logging.getLogger(__name__)

MANAGED_BY = "app.kubernetes.io/managed-by"
APP = "app.kubernetes.io/name"
ROLE = "cmb/role"
SANDBOX = "cmb/sandbox"
PROFILE = "cmb/profile"
POOL = "cmb/pool"
WORKFLOW_TAINT = "cmb/workflow"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
AGENT, FILES = "agent", "files"
UID = 1000
EXEC_ROOT = "/tmp/.cmb-exec"  # noqa: S108 - inside the pod's own /tmp emptyDir
OUTPUT_LIMIT = 8 * 2**20
TAR_CHUNK = 1 << 20
MIN_K8S = "1.30"  # exec over websockets with the v5 channel protocol is on by default from 1.30

# Both containers run only this: wait until told to stop (the pod deadline ends it otherwise).
KEEPER = 'trap "exit 0" TERM INT; while [ ! -e /tmp/.cmb-exec/stop ]; do sleep 1; done'

# Start a command detached, once per exec id: its own session, output to files, a watchdog killing the whole
# session at the limit, the exit code written last (atomically). Re-running it for a started id does nothing.
START = r"""d="$1"; cwd="$2"; limit="$3"; shift 3
mkdir -p "$d" || exit 90
[ -e "$d/started" ] && exit 0
: > "$d/started"
if ! cd "$cwd" 2>/dev/null; then echo "cannot enter $cwd" > "$d/err"; : > "$d/out"; echo 126 > "$d/rc"; exit 0; fi
(
  setsid "$@" > "$d/out" 2> "$d/err" < /dev/null &
  pid=$!
  echo "$pid" > "$d/pid"
  ( sleep "$limit"; : > "$d/timedout"; kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null ) &
  w=$!
  wait "$pid"; rc=$?
  kill "$w" 2>/dev/null
  echo "$rc" > "$d/rc.tmp" && mv "$d/rc.tmp" "$d/rc"
) > /dev/null 2>&1 &
"""

# Wait up to $2 tenths of a second for the exit code, then print it (or nothing).
WAIT = r"""i=0; while [ ! -e "$1/rc" ] && [ "$i" -lt "$2" ]; do sleep 0.1; i=$((i+1)); done; cat "$1/rc" 2>/dev/null"""

STAT = (
    r"""if [ -L "$1" ]; then echo link; elif [ -d "$1" ]; then echo dir; """
    r"""elif [ -e "$1" ]; then echo file; else echo none; fi"""
)

# Container states and pod reasons, by who is to blame.
IMAGE_FAILURES = {"ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull"}
CONFIG_FAILURES = {"CreateContainerConfigError", "CreateContainerError", "RunContainerError"}
INFRA_POD_REASONS = {"Evicted", "NodeLost", "Preempting", "Shutdown", "Terminated", "UnexpectedAdmissionError"}

T = TypeVar("T")


# -- the Job -----------------------------------------------------------------------------------------------------


def _quantity_gib(gib: float) -> str:
    mib = math.ceil(gib * 1024)
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def _cpu(cpus: float) -> str:
    milli = math.ceil(cpus * 1000)
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def labels_for(spec: SandboxSpec) -> dict[str, str]:
    """Labels of the Job and its pod: cleanup selects on them, the NetworkPolicy on `cmb/role`."""
    return {
        APP: "cmb-agent",
        MANAGED_BY: "cmb",
        ROLE: "agent",
        SANDBOX: spec.name,
        PROFILE: spec.profile.name,
    }


def container_env(spec: SandboxSpec, gateway_url: str | None) -> dict[str, str]:
    """The agent's environment, built from nothing (the harness's own variables never reach the pod)."""
    threads = str(max(1, int(spec.profile.cpus)))
    env = {
        "PATH": "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin",
        "HOME": spec.workdir,
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
        "USER": "agent",
        **{name: threads for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
        **spec.env,
    }
    if gateway_url:
        env["CMB_GATEWAY_URL"] = gateway_url
    return env


def job_manifest(spec: SandboxSpec, settings: KubernetesSettings) -> Any:
    """The V1Job of one sandbox (a kubernetes.client model)."""
    from kubernetes import client as k

    profile = spec.profile
    labels = labels_for(spec)
    hardened = k.V1SecurityContext(
        allow_privilege_escalation=False,
        privileged=False,
        read_only_root_filesystem=True,
        run_as_non_root=True,
        run_as_user=UID,
        run_as_group=UID,
        capabilities=k.V1Capabilities(drop=["ALL"]),
        seccomp_profile=k.V1SeccompProfile(type="RuntimeDefault"),
    )
    mounts = [
        k.V1VolumeMount(name="workspace", mount_path=spec.workdir),
        k.V1VolumeMount(name="tmp", mount_path="/tmp"),  # noqa: S108
    ]
    agent_resources = {
        "cpu": _cpu(profile.cpus),
        "memory": _quantity_gib(profile.memory_gib),
        "ephemeral-storage": _quantity_gib(profile.disk_gib + settings.tmp_gib + 1),
    }
    files_resources = {"cpu": settings.files_cpu, "memory": settings.files_memory, "ephemeral-storage": "1Gi"}
    env = [k.V1EnvVar(name=n, value=v) for n, v in sorted(container_env(spec, spec.gateway_url).items())]
    agent = k.V1Container(
        name=AGENT,
        image=spec.image,
        image_pull_policy=settings.pull_policy,
        command=["/bin/sh", "-c", KEEPER],
        working_dir=spec.workdir,
        env=env,
        resources=k.V1ResourceRequirements(requests=agent_resources, limits=dict(agent_resources)),
        security_context=hardened,
        volume_mounts=mounts,
    )
    files = k.V1Container(
        name=FILES,
        image=spec.image,
        image_pull_policy=settings.pull_policy,
        command=["/bin/sh", "-c", KEEPER],
        working_dir=spec.workdir,
        env=[k.V1EnvVar(name="HOME", value="/tmp"), k.V1EnvVar(name="LANG", value="C.UTF-8")],  # noqa: S108
        resources=k.V1ResourceRequirements(requests=files_resources, limits=dict(files_resources)),
        security_context=hardened,
        volume_mounts=mounts,
    )
    volumes = [
        k.V1Volume(name="workspace", empty_dir=k.V1EmptyDirVolumeSource(size_limit=_quantity_gib(profile.disk_gib))),
        k.V1Volume(name="tmp", empty_dir=k.V1EmptyDirVolumeSource(size_limit=_quantity_gib(settings.tmp_gib))),
    ]
    pod_security = k.V1PodSecurityContext(
        run_as_non_root=True,
        run_as_user=UID,
        run_as_group=UID,
        fs_group=UID,
        seccomp_profile=k.V1SeccompProfile(type="RuntimeDefault"),
    )
    affinity = tolerations = node_selector = None
    priority = settings.priority_single
    if profile.node_exclusive:
        priority = settings.priority_workflow
        node_selector = {POOL: settings.workflow_pool}
        tolerations = [k.V1Toleration(key=WORKFLOW_TAINT, operator="Equal", value="true", effect="NoSchedule")]
        affinity = k.V1Affinity(
            pod_anti_affinity=k.V1PodAntiAffinity(
                required_during_scheduling_ignored_during_execution=[
                    k.V1PodAffinityTerm(
                        label_selector=k.V1LabelSelector(
                            match_expressions=[k.V1LabelSelectorRequirement(key=ROLE, operator="In", values=["agent"])]
                        ),
                        topology_key="kubernetes.io/hostname",
                    )
                ]
            )
        )
    deadline = int(profile.time_limit_s * settings.lifetime_factor) + 3600
    pod = k.V1PodSpec(
        containers=[agent, files],
        restart_policy="Never",
        service_account_name=settings.service_account,
        automount_service_account_token=False,
        enable_service_links=False,
        security_context=pod_security,
        termination_grace_period_seconds=10,
        priority_class_name=priority,
        node_selector=node_selector,
        tolerations=tolerations,
        affinity=affinity,
        volumes=volumes,
    )
    return k.V1Job(
        api_version="batch/v1",
        kind="Job",
        metadata=k.V1ObjectMeta(name=spec.name, labels=labels),
        spec=k.V1JobSpec(
            backoff_limit=0,  # a failed pod is reported to the scheduler, which decides about retries
            completions=1,
            parallelism=1,
            active_deadline_seconds=deadline,
            ttl_seconds_after_finished=settings.ttl_s,
            template=k.V1PodTemplateSpec(
                # the cluster autoscaler must not drain a node under a running attempt
                metadata=k.V1ObjectMeta(labels=labels, annotations={SAFE_TO_EVICT: "false"}),
                spec=pod,
            ),
        ),
    )


def manifest_dict(obj: Any) -> dict[str, Any]:
    """A client model as the JSON the API server receives (camelCase, nulls dropped)."""
    from kubernetes.client import ApiClient

    data: dict[str, Any] = ApiClient().sanitize_for_serialization(obj)
    return data


# -- pod states ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PodVerdict:
    """Why a pod cannot (or can no longer) serve its attempt, and who is to blame."""

    blame: str  # "infrastructure" | "agent" | "pending"
    reason: str
    message: str = ""


def _statuses(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    status = pod.get("status") or {}
    return {c.get("name", ""): c for c in status.get("containerStatuses") or []}


def container_running(pod: dict[str, Any], name: str) -> bool:
    """Whether a container of the pod runs now."""
    return "running" in ((_statuses(pod).get(name) or {}).get("state") or {})


def pod_ready(pod: dict[str, Any]) -> bool:
    """Both containers running."""
    return container_running(pod, AGENT) and container_running(pod, FILES)


def classify_pod(pod: dict[str, Any]) -> PodVerdict | None:
    """Map a pod's status to infrastructure vs agent failure; None while it is healthy (or still starting)."""
    status = pod.get("status") or {}
    reason = status.get("reason") or ""
    message = status.get("message") or ""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return PodVerdict("infrastructure", "Deleted", "the pod is being deleted")
    if reason == "DeadlineExceeded":
        return PodVerdict("agent", "DeadlineExceeded", message or "the pod's active deadline passed")
    if reason in INFRA_POD_REASONS:
        return PodVerdict("infrastructure", reason, message)
    for cond in status.get("conditions") or []:
        if cond.get("type") == "DisruptionTarget" and cond.get("status") == "True":
            return PodVerdict("infrastructure", cond.get("reason") or "Disrupted", cond.get("message") or "")
    for name, cs in _statuses(pod).items():
        state = cs.get("state") or {}
        waiting = state.get("waiting") or {}
        if waiting.get("reason") in IMAGE_FAILURES | CONFIG_FAILURES:
            return PodVerdict("infrastructure", waiting["reason"], waiting.get("message") or "")
        terminated = state.get("terminated") or {}
        if terminated:
            why = terminated.get("reason") or f"exit {terminated.get('exitCode')}"
            if name == AGENT and why == "OOMKilled":
                return PodVerdict("agent", "OOMKilled", "the agent exceeded its memory limit")
            return PodVerdict("infrastructure", f"{name} container terminated: {why}", terminated.get("message") or "")
    if status.get("phase") in ("Failed", "Succeeded"):
        return PodVerdict("infrastructure", f"pod {status['phase']}", message)
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") == "False":
            return PodVerdict("pending", "FailedScheduling", cond.get("message") or "")
    return None


# -- the watch ------------------------------------------------------------------------------------------------------


class _Gone(Exception):
    """The watch's resourceVersion expired (410 Gone): list again."""


class PodWatch:
    """The pods of one Job, kept current by list + watch in a thread; survives 410 Gone and dropped connections."""

    def __init__(self, api: Any, namespace: str, selector: str, *, window_s: int = 30) -> None:
        from kubernetes import client as k

        self.core = k.CoreV1Api(api)
        self.namespace = namespace
        self.selector = selector
        self.window_s = window_s
        self.pods: dict[str, dict[str, Any]] = {}
        self.seen = False  # a pod existed at some point
        self.rv: str | None = None
        self.relists = 0
        self.watches = 0
        self.failures = 0
        self.fatal: str | None = None
        self.cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"cmb-watch-{selector}", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self) -> None:
        """Stop at the end of the current watch window."""
        self._stop.set()

    def _update(self, pods: dict[str, dict[str, Any]]) -> None:
        with self.cond:
            self.pods = pods
            self.seen |= bool(pods)
            self.cond.notify_all()

    def _relist(self) -> None:
        resp = self.core.list_namespaced_pod(
            self.namespace, label_selector=self.selector, _preload_content=False, _request_timeout=(10, 60)
        )
        data = json.loads(resp.data)
        self.rv = data["metadata"]["resourceVersion"]
        self.relists += 1
        self._update({p["metadata"]["name"]: p for p in data.get("items") or []})

    def _stream(self) -> None:
        from kubernetes.watch.watch import iter_resp_lines

        self.watches += 1
        resp = self.core.list_namespaced_pod(
            self.namespace,
            label_selector=self.selector,
            watch=True,
            resource_version=self.rv,
            allow_watch_bookmarks=True,
            timeout_seconds=self.window_s,
            _preload_content=False,
            _request_timeout=(10, self.window_s + 15),
        )
        try:
            for line in iter_resp_lines(resp):
                if not line:
                    continue
                event = json.loads(line)
                obj = event.get("object") or {}
                if event.get("type") == "ERROR":
                    if obj.get("code") == 410:
                        raise _Gone()
                    raise RuntimeError(f"watch error {obj.get('code')}: {obj.get('message')}")
                self.rv = (obj.get("metadata") or {}).get("resourceVersion") or self.rv
                if event.get("type") == "BOOKMARK":
                    continue
                pods = dict(self.pods)
                name = obj["metadata"]["name"]
                if event.get("type") == "DELETED":
                    pods.pop(name, None)
                else:
                    pods[name] = obj
                self._update(pods)
                if self._stop.is_set():
                    return
        finally:
            resp.close()
            resp.release_conn()

    def _run(self) -> None:
        from kubernetes.client.exceptions import ApiException

        backoff = 0.2
        while not self._stop.is_set():
            try:
                if self.rv is None:
                    self._relist()
                self._stream()
                backoff = 0.2
            except _Gone:
                self.rv = None  # expired: list again, then watch from the fresh version
            except ApiException as exc:
                if exc.status == 410:
                    self.rv = None
                    continue
                if exc.status in (401, 403):
                    with self.cond:
                        self.fatal = f"not allowed to watch pods: {exc.status} {exc.reason}"
                        self.cond.notify_all()
                    return
                self.failures += 1
                time.sleep(backoff)
                backoff = min(5.0, backoff * 2)
            except Exception:  # a dropped connection, a reset, a truncated line: resume from the last version
                self.failures += 1
                time.sleep(backoff)
                backoff = min(5.0, backoff * 2)

    def wait_for(self, predicate: Callable[[dict[str, dict[str, Any]]], T | None], timeout_s: float) -> T | None:
        """Block until predicate(pods) is not None (returned), or the timeout (None)."""
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while True:
                if self.fatal:
                    raise SandboxError(self.fatal)
                result = predicate(self.pods)
                if result is not None:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, 1.0))

    def current(self) -> dict[str, Any] | None:
        """The Job's pod (the newest, if the controller made more than one)."""
        with self.cond:
            if not self.pods:
                return None
            return max(self.pods.values(), key=lambda p: p["metadata"].get("creationTimestamp") or "")


# -- the client ------------------------------------------------------------------------------------------------------

_config_lock = threading.Lock()
_config: dict[str | None, Any] = {}


def client_configuration(context: str | None = None) -> Any:
    """The cluster's client configuration: in-cluster when running in a pod, else the kubeconfig (cached)."""
    from kubernetes import client as k
    from kubernetes import config

    with _config_lock:
        if context not in _config:
            cfg = k.Configuration()
            if os.environ.get("KUBERNETES_SERVICE_HOST") and not os.environ.get("KUBECONFIG"):
                config.load_incluster_config(client_configuration=cfg)
            else:
                # KUBECONFIG is read now, not when the client was imported (it may be a ':'-separated list)
                config.load_kube_config(
                    config_file=os.environ.get("KUBECONFIG") or None, context=context, client_configuration=cfg
                )
            _config[context] = cfg
        return _config[context]


def reset_client_configuration() -> None:
    """Forget cached configurations (after KUBECONFIG changed)."""
    with _config_lock:
        _config.clear()


def _api_client(context: str | None) -> Any:
    from kubernetes import client as k

    return k.ApiClient(client_configuration(context))


@register_backend("kubernetes")
class KubernetesSandbox(Sandbox):
    """A Job in the cluster; commands run through the exec API."""

    kube: ClassVar[KubernetesSettings] = KubernetesSettings()  # the defaults; `configured` binds the effective ones

    host_mounts = False  # pods read the manuals the image carries (deploy/image builds them in)

    @classmethod
    def configured(cls, settings: CmbSettings) -> type[Sandbox]:
        """The backend bound to the kubernetes section of the settings."""
        return type(cls.__name__, (cls,), {"kube": settings.kubernetes, "__doc__": cls.__doc__})

    def __init__(self, spec: SandboxSpec) -> None:
        super().__init__(spec)
        self.settings = self.kube
        self.pod_name: str | None = None
        self.attached = False
        self._watch: PodWatch | None = None
        self._calls: dict[str, int] = {}
        if spec.readonly_mounts:
            self.warnings.append("readonly mounts are not available on kubernetes; bake manuals into the image")

    @classmethod
    def available(cls) -> str | None:
        """None when a cluster configuration can be loaded."""
        try:
            import kubernetes  # noqa: F401
        except ImportError:
            return "the kubernetes client is not installed (pip install kubernetes)"
        try:
            client_configuration(cls.kube.context)
        except Exception as exc:
            return f"no cluster configuration: {exc}"
        return None

    # -- lifecycle -------------------------------------------------------------------------------------------------

    def _apis(self) -> tuple[Any, Any]:
        from kubernetes import client as k

        api = _api_client(self.settings.context)
        return k.BatchV1Api(api), k.CoreV1Api(api)

    def start(self) -> None:
        """Create the Job (or attach to a live one of the same name) and wait until its pod runs."""
        from kubernetes.client.exceptions import ApiException

        batch, _ = self._apis()
        ns = self.settings.namespace
        body = job_manifest(self.spec, self.settings)
        for _ in range(3):
            try:
                batch.create_namespaced_job(ns, body)
                break
            except ApiException as exc:
                if exc.status != 409:
                    raise SandboxError(f"cannot create Job {self.spec.name}: {exc.status} {exc.reason}") from exc
                if self._attachable(batch):
                    self.attached = True
                    break
        else:
            raise SandboxError(f"Job {self.spec.name} exists and could not be replaced")
        self._watch = PodWatch(_api_client(self.settings.context), ns, f"job-name={self.spec.name}")
        self._watch.start()
        self._await_running()

    def _attachable(self, batch: Any) -> bool:
        """A live Job of the same name is attached to; a finished or dying one is deleted (then created anew)."""
        from kubernetes.client.exceptions import ApiException

        ns = self.settings.namespace
        try:
            job = batch.read_namespaced_job(self.spec.name, ns)
        except ApiException as exc:
            if exc.status == 404:
                return False  # gone meanwhile: create again
            raise SandboxError(f"cannot read Job {self.spec.name}: {exc.status} {exc.reason}") from exc
        status = job.status
        finished = any(
            c.type in ("Complete", "Failed") and c.status == "True"
            for c in (status.conditions if status else None) or []
        )
        if not finished and job.metadata.deletion_timestamp is None:
            log.info("attaching to running Job %s", self.spec.name)
            return True
        self._delete(wait_s=60)
        return False

    def _await_running(self) -> None:
        assert self._watch is not None
        started = time.monotonic()
        settings = self.settings

        def ready_or_failed(pods: dict[str, dict[str, Any]]) -> tuple[str, Any] | None:
            if not pods:
                return None
            pod = max(pods.values(), key=lambda p: p["metadata"].get("creationTimestamp") or "")
            verdict = classify_pod(pod)
            if verdict is not None and verdict.blame != "pending":
                return ("failed", verdict)
            if verdict is not None and time.monotonic() - started > settings.schedule_timeout_s:
                return ("failed", verdict)
            if pod_ready(pod):
                return ("ready", pod)
            return None

        result = self._watch.wait_for(ready_or_failed, settings.schedule_timeout_s + settings.start_timeout_s)
        if result is None:
            pod = self._watch.current()
            why = classify_pod(pod) if pod else None
            detail = f"{why.reason}: {why.message}" if why else "no running pod"
            raise SandboxError(f"Job {self.spec.name} did not start in time ({detail})")
        kind, value = result
        if kind == "failed":
            raise SandboxError(f"Job {self.spec.name} cannot run: {value.reason}: {value.message}".rstrip(": "))
        self.pod_name = value["metadata"]["name"]

    def teardown(self) -> None:
        """Delete the Job and its pods (background propagation); safe to call twice."""
        if self._watch is not None:
            self._watch.stop()
        self._delete(wait_s=0)
        self.pod_name = None

    def _delete(self, wait_s: float) -> None:
        from kubernetes.client.exceptions import ApiException

        batch, _ = self._apis()
        ns = self.settings.namespace
        try:
            batch.delete_namespaced_job(self.spec.name, ns, propagation_policy="Background", grace_period_seconds=0)
        except ApiException as exc:
            if exc.status != 404:
                log.warning("could not delete Job %s: %s %s", self.spec.name, exc.status, exc.reason)
                return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            try:
                batch.read_namespaced_job(self.spec.name, ns)
            except ApiException as exc:
                if exc.status == 404:
                    return
            time.sleep(0.2)

    @classmethod
    def cleanup(cls, selector: str = "", *, finished_only: bool = False) -> list[str]:
        """Delete cmb's agent Jobs matching an extra label selector (e.g. a sweep's); returns their names."""
        from kubernetes import client as k

        settings = cls.kube
        batch = k.BatchV1Api(_api_client(settings.context))
        base = f"{MANAGED_BY}=cmb,{ROLE}=agent"
        jobs = batch.list_namespaced_job(settings.namespace, label_selector=f"{base},{selector}".rstrip(","))
        removed = []
        for job in jobs.items:
            conditions = (job.status.conditions if job.status else None) or []
            finished = any(c.type in ("Complete", "Failed") and c.status == "True" for c in conditions)
            if finished_only and not finished:
                continue
            batch.delete_namespaced_job(job.metadata.name, settings.namespace, propagation_policy="Background")
            removed.append(job.metadata.name)
        return removed

    @classmethod
    def cleanup_orphans(cls) -> list[str]:
        """Finished agent Jobs whose TTL has not removed them yet (running ones may belong to a live sweep)."""
        return cls.cleanup(finished_only=True)

    # -- exec ------------------------------------------------------------------------------------------------------

    def _require_pod(self) -> str:
        if self.pod_name is None:
            raise SandboxError(f"sandbox {self.spec.name} is not started")
        return self.pod_name

    def _verdict(self) -> PodVerdict | None:
        pod = self._watch.current() if self._watch is not None else None
        if pod is None:
            return PodVerdict("infrastructure", "PodGone", "the pod disappeared") if self._watch else None
        return classify_pod(pod)

    def _exec_raw(
        self, container: str, argv: list[str], stdin: bytes | None = None, timeout_s: float = 120.0
    ) -> tuple[int, bytes, bytes]:
        """One exec over the websocket API: (exit code, stdout, stderr). Connection problems raise."""
        from kubernetes import client as k
        from kubernetes.stream import stream

        pod = self._require_pod()
        core = k.CoreV1Api(_api_client(self.settings.context))  # exec patches its client: never share it
        resp = stream(
            core.connect_get_namespaced_pod_exec,
            pod,
            self.settings.namespace,
            container=container,
            command=argv,
            stdin=stdin is not None,
            stdout=True,
            stderr=True,
            tty=False,
            binary=True,
            _preload_content=False,
            _request_timeout=timeout_s,
        )
        out, err = bytearray(), bytearray()
        try:
            if stdin is not None:
                for i in range(0, len(stdin), TAR_CHUNK):
                    resp.write_stdin(stdin[i : i + TAR_CHUNK])
                resp.close_channel(0)
            deadline = time.monotonic() + timeout_s
            while resp.is_open():
                resp.update(timeout=1)
                out += resp.read_channel(1)
                err += resp.read_channel(2)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"exec in {pod}/{container} took longer than {timeout_s:.0f}s")
            out += resp.read_channel(1)
            err += resp.read_channel(2)
            status_text = resp.read_channel(3)
        finally:
            resp.close()
        if not status_text:
            raise ConnectionError(f"exec in {pod}/{container} ended without a status")
        status = json.loads(status_text)
        if status.get("status") == "Success":
            return 0, bytes(out), bytes(err)
        causes = (status.get("details") or {}).get("causes") or []
        code = next((c.get("message") for c in causes if c.get("reason") == "ExitCode"), None)
        if code is None:
            raise ConnectionError(f"exec in {pod}/{container} failed: {status.get('message')}")
        return int(code), bytes(out), bytes(err)

    def _exec_retrying(
        self, container: str, argv: list[str], stdin: bytes | None = None, timeout_s: float = 120.0, tries: int = 4
    ) -> tuple[int, bytes, bytes]:
        """An idempotent exec, retried over dropped connections; a dead pod becomes a SandboxError."""
        delay = 0.5
        for attempt in range(tries):
            try:
                return self._exec_raw(container, argv, stdin, timeout_s)
            except Exception as exc:  # dropped connection, handshake failure, timeout
                verdict = self._verdict()
                if verdict is not None and verdict.blame != "pending":
                    raise SandboxError(f"pod of {self.spec.name} failed: {verdict.reason}: {verdict.message}") from exc
                if attempt == tries - 1:
                    raise SandboxError(f"exec in {self.spec.name} failed {tries} times: {exc}") from exc
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def _exec_id(self, argv: list[str], env: dict[str, str] | None, cwd: str | None, timeout_s: float) -> str:
        digest = hashlib.sha256(json.dumps([argv, sorted((env or {}).items()), cwd, timeout_s]).encode()).hexdigest()
        n = self._calls.get(digest, 0)
        self._calls[digest] = n + 1
        return f"{digest[:16]}-{n}"

    def exec(
        self, argv: list[str], timeout_s: float, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> ExecResult:
        """Run a command detached in the agent container, wait for it, and return its outcome.

        The n-th identical call of a sandbox gets the same id in a retried launch, so a command still running
        from the previous launch is waited for instead of started twice.
        """
        if not argv:
            raise ValueError("empty command")
        self._require_pod()
        exec_id = self._exec_id(argv, env, cwd, timeout_s)
        state = f"{EXEC_ROOT}/{exec_id}"
        workdir = self._path(cwd) if cwd and not cwd.startswith("/") else (cwd or self.spec.workdir)
        limit = str(max(1, math.ceil(timeout_s)))
        command = ["env", *[f"{k}={v}" for k, v in sorted((env or {}).items())], *argv] if env else list(argv)
        t0 = time.monotonic()
        self._exec_retrying(AGENT, ["/bin/sh", "-c", START, "sh", state, workdir, limit, *command])
        rc: int | None = None
        hard_deadline = t0 + timeout_s + 120
        tenths = str(int(max(1.0, self.settings.poll_s) * 10))
        while rc is None:
            verdict = self._verdict()
            if verdict is not None and verdict.blame == "agent":
                return self._pod_ended(verdict, time.monotonic() - t0)
            if verdict is not None and verdict.blame == "infrastructure":
                raise SandboxError(f"pod of {self.spec.name} failed: {verdict.reason}: {verdict.message}")
            try:
                code, out, _ = self._exec_raw(AGENT, ["/bin/sh", "-c", WAIT, "sh", state, tenths],
                                              timeout_s=self.settings.poll_s + 30)  # fmt: skip
                text = out.decode().strip()
                rc = int(text) if code == 0 and text else None
            except Exception as exc:  # a dropped long-poll: the command runs on; look again
                log.debug("wait on %s interrupted: %s", exec_id, exc)
                time.sleep(0.5)
            if rc is None and time.monotonic() > hard_deadline:
                raise SandboxError(f"command in {self.spec.name} outlived its limit by 120 s")
        duration = time.monotonic() - t0
        _, out, _ = self._exec_retrying(FILES, ["tail", "-c", str(OUTPUT_LIMIT), f"{state}/out"])
        _, err, _ = self._exec_retrying(FILES, ["tail", "-c", str(OUTPUT_LIMIT), f"{state}/err"])
        code, _, _ = self._exec_retrying(FILES, ["test", "-e", f"{state}/timedout"])
        return ExecResult(
            exit_code=rc,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            duration_s=duration,
            timed_out=code == 0,
        )

    def _pod_ended(self, verdict: PodVerdict, duration: float) -> ExecResult:
        """The agent's container died (OOM) or the pod's deadline passed: the agent's outcome, not ours."""
        return ExecResult(
            exit_code=137,
            stdout="",
            stderr=f"{verdict.reason}: {verdict.message}\n",
            duration_s=duration,
            timed_out=verdict.reason == "DeadlineExceeded",
            oom_killed=verdict.reason == "OOMKilled",
        )

    # -- files -----------------------------------------------------------------------------------------------------

    def _path(self, rel: str) -> str:
        parts = relative_parts(rel)
        return str(PurePosixPath(self.spec.workdir, *parts))

    def put(self, src: Path, dest: str = ".") -> None:
        """Copy a host folder's contents into the workspace: a tar stream into `tar -x` in the files container."""
        if not Path(src).is_dir():
            raise NotADirectoryError(f"{src} is not a folder")
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            for path in sorted(Path(src).rglob("*")):
                tar.add(path, arcname=str(path.relative_to(src)), recursive=False)
        data = buf.getvalue()
        target = self._path(dest)
        script = 'mkdir -p "$1" && head -c "$2" | tar -x -o -f - -C "$1"'
        code, _, err = self._exec_retrying(FILES, ["/bin/sh", "-c", script, "sh", target, str(len(data))], stdin=data)
        if code != 0:
            raise SandboxError(f"staging into {self.spec.name}:{target} failed: {err.decode(errors='replace')[-500:]}")

    def get(self, src: str, dest: Path, max_bytes: int = 256 * 1024 * 1024) -> None:
        """Copy a workspace path out as a tar stream from the files container (see Sandbox.get)."""
        path = self._path(src)
        _, kind_out, _ = self._exec_retrying(FILES, ["/bin/sh", "-c", STAT, "sh", path])
        kind = kind_out.decode().strip()
        if kind == "none":
            raise FileNotFoundError(f"{src} not found in the workspace of {self.spec.name}")
        if kind == "link":
            self.warnings.append(f"not copied out: {src} is a symbolic link")
            return
        if kind == "dir":  # the folder's contents, as members ./...
            argv = ["tar", "-c", "-f", "-", "-C", path, "."]
        else:
            argv = ["tar", "-c", "-f", "-", "-C", str(PurePosixPath(path).parent), "--", PurePosixPath(path).name]
        code, data, err = self._exec_retrying(FILES, argv, timeout_s=600)
        if code not in (0, 1):  # 1: a file changed while read
            raise SandboxError(f"collecting {src} from {self.spec.name} failed: {err.decode(errors='replace')[-500:]}")
        if len(data) > max_bytes + 64 * 2**20:
            self.warnings.append(f"not copied out: {src} is larger than the {max_bytes}-byte copy limit")
            return
        with tempfile.TemporaryFile() as spool:
            spool.write(data)
            spool.seek(0)
            with tarfile.open(fileobj=spool, mode="r|") as tar:
                extract_tar(tar, dest, 0, max_bytes, self.warnings.append)  # members are ./x or name
