"""One conformance suite for every registered sandbox backend: what an attempt relies on, and what an agent
trying to break out (red-team commands) must not achieve."""

from __future__ import annotations

import json
import os
import random
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from cmb.sandbox import BACKENDS, Sandbox, get_backend
from tests.conftest import write_files
from tests.sandbox._support import (
    PROBE,
    REPO,
    SandboxFactory,
    TcpServer,
    assert_no_name_resolution,
    backend_params,
    host_addresses,
    host_processes_matching,
    require_backend,
)

pytestmark = pytest.mark.parametrize("backend", backend_params())


@pytest.fixture(autouse=True, params=[False, True], ids=["own", "pooled"])
def pooled(request: pytest.FixtureRequest) -> bool:
    """Each sandbox made for its test, or one a warm pool made and started ahead of the claim: both must conform."""
    return bool(request.param)


def sh(sandbox: Sandbox, script: str, timeout_s: float = 60, **kw):
    return sandbox.exec(["sh", "-c", script], timeout_s=timeout_s, **kw)


# -- what an attempt relies on --------------------------------------------------------------------------------


def test_put_exec_get_round_trip(backend: str, make_sandbox: SandboxFactory, tmp_path: Path) -> None:
    sb = make_sandbox(backend)
    write_files(tmp_path / "in", {"a.txt": "alpha", "sub/b.json": {"x": 1}})
    sb.put(tmp_path / "in")
    sb.put(tmp_path / "in", "nested/deeper")
    r = sh(sb, "cat a.txt sub/b.json nested/deeper/a.txt && mkdir -p answers && echo '{\"v\": 42}' > answers/out.json")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == 'alpha{"x": 1}alpha'
    sb.get("answers", tmp_path / "out")
    assert json.loads((tmp_path / "out" / "out.json").read_text()) == {"v": 42}
    sb.get("a.txt", tmp_path / "single")
    assert (tmp_path / "single" / "a.txt").read_text() == "alpha"
    sb.get(".", tmp_path / "all")
    assert (tmp_path / "all" / "nested" / "deeper" / "sub" / "b.json").is_file()
    with pytest.raises(FileNotFoundError):
        sb.get("no-such-file", tmp_path / "missing")


def test_readonly_mount_is_readable_and_never_writable(
    backend: str, make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    if not get_backend(backend).host_mounts:
        pytest.skip(f"{backend} binds no host folders (the image carries the manuals)")
    lib = tmp_path / "lib"
    write_files(lib, {"README.txt": "manuals", "qe/INPUT_PW.txt": "ecutrho"})
    for path in [lib, *lib.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    sb = make_sandbox(backend, readonly_mounts={"/opt/manuals": lib})
    r = sh(sb, "cat /opt/manuals/README.txt /opt/manuals/qe/INPUT_PW.txt")
    assert (r.exit_code, r.stdout) == (0, "manualsecutrho"), r.stderr
    for attempt in ("echo x > /opt/manuals/new", "echo x >> /opt/manuals/README.txt", "rm /opt/manuals/README.txt"):
        assert sh(sb, attempt).exit_code != 0, attempt
    assert sorted(p.name for p in lib.iterdir()) == ["README.txt", "qe"]
    assert (lib / "README.txt").read_text() == "manuals"


def test_exit_codes_env_and_cwd(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend, env={"FROM_SPEC": "spec"})
    assert sh(sb, "exit 0").exit_code == 0
    assert sh(sb, "exit 7").exit_code == 7
    assert sb.exec(["no-such-program-xyz"], timeout_s=30).exit_code in (126, 127)
    assert sh(sb, "kill -TERM $$").exit_code == 128 + 15
    sh(sb, "mkdir -p sub")
    r = sh(sb, 'echo "$FROM_SPEC $FROM_EXEC $(pwd)"', env={"FROM_EXEC": "exec"}, cwd="sub")
    assert r.stdout.split() == ["spec", "exec", f"{sb.spec.workdir}/sub"]
    r = sh(sb, "echo out; echo err >&2")
    assert (r.stdout, r.stderr) == ("out\n", "err\n")


def test_thread_variables_follow_the_profile(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend, cpus=3)
    r = sh(sb, 'echo "$OMP_NUM_THREADS $OPENBLAS_NUM_THREADS $MKL_NUM_THREADS"')
    assert r.stdout.split() == ["3", "3", "3"]


# Backends whose sandboxes count their own use: the local one through its cgroup (root only), docker through the
# engine's stats, kubernetes through the agent container's own cgroup.
MEASURES = {"local": os.geteuid() == 0, "docker": True, "kubernetes": True}
BURN = "import time\nx = bytearray(300 * 2**20)\nt = time.process_time()\nwhile time.process_time() - t < 1.0: pass\n"


def test_use_is_measured_by_the_sandboxs_own_counters(backend: str, make_sandbox: SandboxFactory) -> None:
    """A second of CPU and 300 MiB in one exec show in the kernel's counts, whatever the agent says of itself."""
    sb = make_sandbox(backend, memory_gib=1)
    assert sb.exec(["python3", "-c", BURN], timeout_s=60).exit_code == 0
    measured = sb.measure()
    if not MEASURES.get(backend, False):
        assert measured is None
        return
    assert measured is not None
    assert 0.9 <= measured.cpu_s < 10, measured
    assert measured.peak_memory_bytes is not None and 300 * 2**20 <= measured.peak_memory_bytes < 2**30, measured
    assert measured.source in ("cgroup-v1", "cgroup-v2", "docker")


def test_retried_start_attaches_to_the_same_sandbox(backend: str, make_sandbox: SandboxFactory) -> None:
    first = make_sandbox(backend)
    assert sh(first, "echo kept > marker.txt").exit_code == 0
    again = make_sandbox(backend, name=first.spec.name)
    assert sh(again, "cat marker.txt").stdout == "kept\n"


def test_teardown_removes_everything(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend)
    sh(sb, "echo x > f")
    assert LEFTOVERS[backend](sb), "the leftover probe must see a live sandbox"
    sb.teardown()
    assert LEFTOVERS[backend](sb) == []
    sb.teardown()  # twice is fine


# -- red team: each attempt is contained and the harness keeps running --------------------------------------


def test_timeout_kills_the_command_and_its_children(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend)
    n = random.randint(100_000, 999_999)
    # A child in the background, one escaped into its own session, and the foreground sleep.
    r = sh(sb, f"sleep {n} & setsid sleep {n + 1} & sleep {n + 2}", timeout_s=2)
    assert r.timed_out
    assert r.exit_code != 0
    leftovers = []
    for _ in range(20):  # the kernel may take a moment to reap
        leftovers = [p for m in (n, n + 1, n + 2) for p in host_processes_matching(f"sleep {m}")]
        if not leftovers:
            break
        time.sleep(0.1)
    assert leftovers == []
    assert sh(sb, "echo alive").stdout == "alive\n"


def test_fork_bomb_is_contained(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend, pids=64)
    # How many processes can be made: bounded by the pids limit, not by the host.
    count = sb.exec(
        [
            "python3",
            "-c",
            "import os, time\nn = 0\ntry:\n    for _ in range(1000):\n        if os.fork() == 0:\n"
            "            time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError:\n    pass\nprint(n)",
        ],
        timeout_s=60,
    )
    assert 0 < int(count.stdout.split()[-1]) < 64
    marker = f"bomb{random.randint(10**5, 10**6)}"
    r = sb.exec(["bash", "-c", f"{marker}() {{ {marker} | {marker} & }}; {marker}; sleep 20"], timeout_s=5)
    assert r.timed_out or r.exit_code != 0
    time.sleep(0.5)
    assert host_processes_matching(marker) == []
    assert sh(sb, "echo alive").stdout == "alive\n"


def test_filling_the_disk_is_stopped(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend, disk_gib=0.05)
    limit = int(0.05 * 2**30)
    # One huge file: stopped at the file-size limit.
    r = sh(sb, "dd if=/dev/zero of=big bs=1M count=400 2>&1; ls -l big")
    assert int(r.stdout.split()[-5]) <= limit
    sh(sb, "rm -f big")
    # Endless small files: the sandbox is killed for its disk use long before the time limit.
    r = sh(sb, "i=0; while true; do head -c 1048576 /dev/zero > f$i || exit 3; i=$((i+1)); done", timeout_s=120)
    assert r.disk_exceeded and not r.timed_out
    assert sh(sb, "rm -f f*; echo alive").stdout == "alive\n"


def test_exceeding_memory_is_reported(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend, memory_gib=0.25)
    r = sb.exec(["python3", "-c", "b = bytearray(1024 * 2**20); print('allocated')"], timeout_s=60)
    assert "allocated" not in r.stdout
    assert r.exit_code != 0
    if MEMORY_CGROUP[backend](sb):
        assert r.oom_killed
    assert sh(sb, "echo alive").stdout == "alive\n"


def test_no_network(backend: str, make_sandbox: SandboxFactory, tcp_server: TcpServer) -> None:
    targets = [f"{a}:{tcp_server.port}" for a in host_addresses()]
    assert len(targets) >= 2, "need loopback and at least one other host address"
    # Control: from the host itself the server answers on every one of these addresses.
    for target in targets:
        host, port = target.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=3) as s:
            assert s.recv(64) == b"reached\n"
    tcp_server.hits = 0
    sb = make_sandbox(backend)
    r = sb.exec(["python3", "-c", PROBE, *targets], timeout_s=60)
    assert r.exit_code == 0, r.stderr
    assert "REACHED" not in r.stdout, r.stdout
    assert r.stdout.count("blocked") == len(targets)
    assert tcp_server.hits == 0
    assert_no_name_resolution(sb)


def test_references_and_graders_are_invisible(backend: str, make_sandbox: SandboxFactory) -> None:
    hidden = [REPO / "references", REPO / "graders"]
    secrets = [p for d in hidden for p in sorted(d.rglob("*.yaml"))[:3]]
    assert secrets, "the repository has reference and grader files to hide"
    sb = make_sandbox(backend)
    if not sb.isolated:
        pytest.skip(f"{backend} runs without filesystem isolation here: {sb.warnings}")
    paths = (
        [str(p) for p in hidden + secrets] + [f"/proc/1/root{p}" for p in secrets] + [f"/proc/self/root{secrets[0]}"]
    )
    r = sh(
        sb,
        " ; ".join(
            f"cat '{p}' >/dev/null 2>&1 && echo 'READ {p}'; ls '{p}' >/dev/null 2>&1 && echo 'SAW {p}'" for p in paths
        ),
    )
    assert r.stdout == ""
    # Search the whole visible filesystem for any copy of the hidden files, by their task-specific paths.
    names = " -o ".join(f"-path '*/{p.parent.name}/{p.name}'" for p in secrets)
    found = sh(
        sb, f"find / \\( -path /proc -o -path /sys \\) -prune -o \\( {names} \\) -print 2>/dev/null", timeout_s=120
    )
    assert found.stdout == ""


def test_harness_environment_is_not_visible(
    backend: str, make_sandbox: SandboxFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = f"sk-test-{random.randint(10**9, 10**10)}"
    monkeypatch.setenv("CMB_TEST_SECRET", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    sb = make_sandbox(backend)
    r = sh(sb, "env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'")
    assert secret not in r.stdout
    assert "CMB_TEST_SECRET" not in r.stdout


def test_writing_outside_the_workspace_fails(backend: str, make_sandbox: SandboxFactory) -> None:
    sb = make_sandbox(backend)
    targets = ["/etc/cmb-owned", "/usr/cmb-owned", "/cmb-owned", "/bin/cmb-owned", f"{sb.spec.workdir}/../cmb-owned"]
    r = sh(sb, " ; ".join(f"(echo x > '{t}') 2>/dev/null && echo 'WROTE {t}'" for t in targets))
    assert r.stdout == ""
    assert sh(sb, "echo ok > inside && echo ok > /tmp/scratch && cat inside /tmp/scratch").stdout == "ok\nok\n"
    for t in targets:
        assert not Path(t).exists()


def test_planted_symlinks_are_not_followed_by_get(backend: str, make_sandbox: SandboxFactory, tmp_path: Path) -> None:
    sb = make_sandbox(backend)
    r = sh(
        sb,
        "mkdir -p answers && echo '{}' > answers/answer.json && ln -s /etc/passwd answers/leak.txt "
        "&& ln -s /etc answers/etc && ln -s /etc/passwd passwd && mkfifo answers/fifo",
    )
    assert r.exit_code == 0, r.stderr
    sb.get("answers", tmp_path / "out")
    sb.get("passwd", tmp_path / "direct")
    copied = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert copied == ["out/answer.json"]
    assert not any(p.is_symlink() for p in tmp_path.rglob("*"))
    assert any("leak.txt" in w for w in sb.warnings)


def test_copy_out_limit(backend: str, make_sandbox: SandboxFactory, tmp_path: Path) -> None:
    sb = make_sandbox(backend)
    sh(sb, "head -c 300000 /dev/zero > big.bin && echo small > small.txt")
    sb.get(".", tmp_path / "out", max_bytes=100_000)
    assert (tmp_path / "out" / "small.txt").read_text() == "small\n"
    assert not (tmp_path / "out" / "big.bin").exists()
    assert any("big.bin" in w for w in sb.warnings)


# -- per-backend probes the suite needs (a new backend adds one of each) -------------------------------------


def _local_leftovers(sb: Sandbox) -> list[str]:
    from cmb.sandbox._cgroup import stale_cgroups
    from cmb.sandbox._local import LocalSandbox

    assert isinstance(sb, LocalSandbox)
    left = [str(sb.root)] if sb.root.exists() else []
    return left + [c.name for c in stale_cgroups() if c.name == sb.spec.name]


def _docker_leftovers(sb: Sandbox) -> list[str]:
    import docker

    client = docker.from_env()
    filters = {"label": ["cmb=1", f"cmb.name={sb.spec.name}"]}
    return (
        [c.name for c in client.containers.list(all=True, filters=filters)]
        + [n.name for n in client.networks.list(filters=filters)]
        + [v.name for v in client.volumes.list(filters=filters)]
    )


LEFTOVERS: dict[str, Callable[[Sandbox], list[str]]] = {"local": _local_leftovers, "docker": _docker_leftovers}
MEMORY_CGROUP: dict[str, Callable[[Sandbox], bool]] = {
    "local": lambda sb: getattr(sb, "cgroup", None) is not None,
    "docker": lambda sb: True,
}


def test_every_backend_has_probes(backend: str) -> None:
    require_backend(backend)  # a backend that can run here must say how the suite inspects it
    assert backend in LEFTOVERS and backend in MEMORY_CGROUP
    assert get_backend(backend) is BACKENDS[backend]
