"""The kubernetes backend's Job: its labels, the agent's environment, resource quantities and the V1Job manifest.

cmb.sandbox._kubernetes describes the pod's shape and why it is built this way.
"""

from __future__ import annotations

import math
from typing import Any

from cmb.sandbox._base import SandboxSpec
from cmb.sandbox._owner import owner_label_value
from cmb.settings import KubernetesSettings

MANAGED_BY = "app.kubernetes.io/managed-by"
APP = "app.kubernetes.io/name"
ROLE = "cmb/role"
SANDBOX = "cmb/sandbox"
PROFILE = "cmb/profile"
POOL = "cmb/pool"
OWNER = "cmb/owner"  # host.pid of the harness process that made the Job: the janitor removes a dead one's
WORKFLOW_TAINT = "cmb/workflow"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
AGENT, FILES = "agent", "files"
UID = 1000
MIN_K8S = "1.30"  # exec over websockets with the v5 channel protocol is on by default from 1.30

# Both containers run only this: wait until told to stop (the pod deadline ends it otherwise).
KEEPER = 'trap "exit 0" TERM INT; while [ ! -e /tmp/.cmb-exec/stop ]; do sleep 1; done'


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
        OWNER: owner_label_value(),
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
