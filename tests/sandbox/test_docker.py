"""What is specific to the docker backend: the container's hardening, attaching, orphans, errors."""

from __future__ import annotations

import uuid

import docker
import pytest

from cmb.sandbox import SandboxError, SandboxSpec
from cmb.sandbox._docker import DockerSandbox
from tests.sandbox._support import TEST_PROFILE, SandboxFactory, abandon_sandbox

pytestmark = pytest.mark.docker


def test_container_is_hardened(make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox("docker", cpus=1, memory_gib=0.5, pids=100)
    assert isinstance(sb, DockerSandbox)
    sb.container.reload()
    host = sb.container.attrs["HostConfig"]
    assert host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"]
    assert "no-new-privileges:true" in host["SecurityOpt"]
    assert host["NetworkMode"] == "none"
    assert (host["NanoCpus"], host["Memory"], host["MemorySwap"], host["PidsLimit"]) == (10**9, 2**29, 2**29, 100)
    assert sb.container.labels["cmb"] == "1" and sb.container.labels["cmb.name"] == sb.spec.name
    r = sb.exec(["sh", "-c", "id -u; grep CapEff /proc/self/status"], timeout_s=30)
    uid, caps = r.stdout.splitlines()
    assert uid == "1000" and caps.split()[-1] == "0000000000000000"


def test_start_restarts_a_stopped_container_with_the_same_workspace(make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox("docker")
    sb.exec(["sh", "-c", "echo kept > f"], timeout_s=30)
    sb.container.stop(timeout=0)
    again = make_sandbox("docker", name=sb.spec.name)
    assert again.exec(["cat", "f"], timeout_s=30).stdout == "kept\n"
    client = docker.from_env()
    assert len(client.containers.list(all=True, filters={"name": f"^{sb.spec.name}$"})) == 1


def test_a_foreign_container_with_the_name_is_not_hijacked(make_sandbox: SandboxFactory, slim_image: str) -> None:
    client = docker.from_env()
    name = "cmbtest-foreign-container"
    foreign = client.containers.create(slim_image, ["true"], name=name)
    try:
        with pytest.raises(SandboxError, match="did not create"):
            make_sandbox("docker", name=name)
    finally:
        foreign.remove(force=True)


def test_missing_image_is_an_infrastructure_error_with_the_fix() -> None:
    if DockerSandbox.available() is not None:
        pytest.skip("no Docker engine")
    sb = DockerSandbox(SandboxSpec(name="cmbtest-noimage", profile=TEST_PROFILE, image="cmb-agent:does-not-exist"))
    with pytest.raises(SandboxError, match="build-local.sh"):
        sb.start()
    sb.teardown()


def test_unreachable_engine_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    assert DockerSandbox.available() is not None


def test_cleanup_orphans_removes_only_what_a_dead_harness_left(make_sandbox: SandboxFactory, slim_image: str) -> None:
    live = make_sandbox("docker")
    name = f"cmbtest-orphan-{uuid.uuid4().hex[:8]}"
    abandon_sandbox("docker", name, slim_image)
    client = docker.from_env()
    assert client.containers.get(name).labels["cmb.name"] == name
    removed = DockerSandbox.cleanup_orphans()
    assert name in removed and f"{name}-ws" in removed
    assert live.spec.name not in removed
    assert client.containers.list(all=True, filters={"label": f"cmb.name={name}"}) == []
    assert client.volumes.list(filters={"label": f"cmb.name={name}"}) == []
    assert live.exec(["echo", "alive"], timeout_s=30).stdout == "alive\n"


def test_background_processes_do_not_outlive_their_exec(make_sandbox: SandboxFactory) -> None:
    # As with the local backend: when exec returns, nothing the command started still runs.
    sb = make_sandbox("docker")
    sb.exec(["sh", "-c", "setsid sleep 300 >/dev/null 2>&1 &"], timeout_s=30)
    r = sb.exec(["sh", "-c", "ps -eo user,args | grep '[s]leep 300' || true"], timeout_s=30)
    assert r.stdout == ""
