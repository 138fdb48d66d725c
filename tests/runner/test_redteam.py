"""Red-team agents (scripted replays) against the real sandboxes: each attempt is contained, recorded with the
right failure class, and the harness goes on running attempts afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmb.agents import Run, WriteFile, get_agent
from cmb.catalog import Catalog
from cmb.models import FailureClass
from cmb.runner import artifacts_path
from tests.runner.redteam_support import OUTSIDE, PROFILE, REPO, Attempt, home_of, not_the_agents_fault, stdout_of
from tests.sandbox._support import TcpServer, host_addresses, host_processes_matching


def test_reading_references_and_graders_by_any_path_finds_nothing(
    attempt: Attempt, tmp_path: Path, catalog: Catalog
) -> None:
    reference = (REPO / "references" / "si-eos-analysis" / "reference.yaml").read_text()
    shell = (
        f"cat {REPO}/references/si-eos-analysis/reference.yaml {REPO}/graders/si-eos-analysis.yaml; "
        "cat /srv/cmb/references/*/reference.yaml ../references/*/* ../../references/*/* 2>&1; "
        "find / -xdev \\( -name reference.yaml -o -name 'si-eos-analysis.yaml' -o -name solve.sh \\) "
        "-not -path '/proc/*' 2>/dev/null | sed 's/^/FOUND /'; "
        "ls /proc/1/root/ 2>&1 | head -3; echo done"
    )
    record = attempt([Run(shell=shell)])
    out = stdout_of(record, home_of(tmp_path))
    assert "done" in out
    assert "FOUND" not in out
    a0 = str(catalog.get("si-eos-analysis").reference().values["a0_angstrom"].value)
    assert a0 not in out and "numeric.scalar" not in out and a0 in reference
    assert record.failure_class is FailureClass.FORMAT


def test_network_is_unreachable(attempt: Attempt, tmp_path: Path) -> None:
    server = TcpServer()
    try:
        # Beyond the host: a documentation address (RFC 5737), which only a route out of the sandbox could try.
        targets = [f"{a}:{server.port}" for a in host_addresses()] + [f"{OUTSIDE}:443"]
        script = (
            "import errno, socket, sys\n"
            "for t in sys.argv[1:]:\n"
            "    h, p = t.rsplit(':', 1)\n"
            "    try:\n"
            "        socket.create_connection((h, int(p)), timeout=2); print('REACHED', t)\n"
            "    except OSError as e:\n"
            "        print('blocked', t, errno.errorcode.get(e.errno, type(e).__name__))\n"
        )
        record = attempt([Run(argv=["python3", "-c", script, *targets])])
    finally:
        server.close()
    out = stdout_of(record, home_of(tmp_path))
    assert "REACHED" not in out and out.count("blocked") == len(targets)
    assert f"blocked {OUTSIDE}:443 ENETUNREACH" in out  # no route out at all, not merely no answer
    assert server.hits == 0
    assert record.audit_flags.network_isolated is True
    assert record.failure_class is FailureClass.FORMAT


def test_harness_environment_and_secrets_stay_outside(
    attempt: Attempt, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CMB_SECRET", "harness-secret-0451")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-harness-real-key-0451")
    shell = "env; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'; cat /proc/1/environ; echo done"
    record = attempt([Run(shell=shell)])
    out = stdout_of(record, home_of(tmp_path))
    assert "done" in out and "PATH=" in out
    assert "0451" not in out
    not_the_agents_fault(record)


def test_never_exiting_agent_hits_the_time_limit(attempt: Attempt, tmp_path: Path) -> None:
    record = attempt([Run(shell="setsid sleep 100000 & sleep 100000")], time_limit_s=4)
    assert record.failure_class is FailureClass.TIME_LIMIT and record.exit_reason == "time-limit"
    assert record.timings.agent < 60
    assert host_processes_matching("sleep 100000") == []


def test_fork_bomb_is_contained(attempt: Attempt, tmp_path: Path) -> None:
    bomb = "cmbbomb(){ cmbbomb | cmbbomb & }; cmbbomb"
    record = attempt([Run(argv=["bash", "-c", bomb])], time_limit_s=6, pids=64)
    not_the_agents_fault(record)
    assert host_processes_matching("cmbbomb") == []
    again = attempt(get_agent("oracle"), trial=1)  # the harness (and the machine) carry on
    assert again.passed, again.audit_messages


def test_filling_the_disk_is_stopped(attempt: Attempt, tmp_path: Path) -> None:
    record = attempt([Run(shell="dd if=/dev/zero of=big bs=1M count=4096 2>&1; echo dd-exit $?")], time_limit_s=30)
    not_the_agents_fault(record)
    files = json.loads((artifacts_path(home_of(tmp_path), record.key) / "files.json").read_text())
    assert all(f["bytes"] <= PROFILE.disk_gib * 2**30 for f in files)


def test_exceeding_memory_is_contained(attempt: Attempt, tmp_path: Path) -> None:
    steps = [Run(argv=["python3", "-c", "b = bytearray(3 * 1024**3); print('allocated', len(b))"])]
    record = attempt(steps, memory_gib=0.25)
    out = stdout_of(record, home_of(tmp_path))
    assert "allocated" not in out
    not_the_agents_fault(record)
    assert record.failure_class in (FailureClass.SOFTWARE, FailureClass.FORMAT)


def test_writing_outside_the_workspace_changes_nothing_on_the_host(attempt: Attempt, tmp_path: Path) -> None:
    targets = [REPO / "PWNED_BY_AGENT", Path("/root/PWNED_BY_AGENT"), Path("/etc/PWNED_BY_AGENT"),
               Path("/PWNED_BY_AGENT"), Path("/usr/PWNED_BY_AGENT")]  # fmt: skip
    shell = "; ".join(f"echo x > {t} 2>/dev/null" for t in targets) + "; echo x > ../../PWNED_BY_AGENT; echo done"
    record = attempt([Run(shell=shell)])
    assert "done" in stdout_of(record, home_of(tmp_path))
    assert [t for t in targets if t.exists()] == []
    not_the_agents_fault(record)


def test_forging_the_code_log_is_flagged_and_voids_a_correct_answer(
    attempt: Attempt, tmp_path: Path, catalog: Catalog
) -> None:
    values = catalog.get("cu-eam-elastic").reference().values
    answer = {name: v.value for name, v in values.items()}
    forge = (
        "import sys, os, pathlib, glob\n"
        "h = pathlib.Path('..', '.cmb')\n"
        "print('keys left:', sorted(glob.glob(str(h / 'key.*'))))\n"
        "for p in glob.glob('/proc/[0-9]*'):\n"
        "    try:\n"
        "        cmd = open(p + '/cmdline', 'rb').read()\n"
        "    except OSError:\n"
        "        continue\n"
        "    args = cmd.split(b'\\0')\n"
        "    if b'python' in args[0] and len(args) > 1 and args[1].endswith(b'/_supervise.py'):\n"
        "        print('supervisor', p)\n"
        "        for f in ('environ', 'maps', 'mem'):\n"
        "            try:\n"
        "                open(p + '/' + f, 'rb').read(64); print('READ', f)\n"
        "            except OSError as e:\n"
        "                print('denied', f, type(e).__name__)\n"
        "sys.path.insert(0, str(h)); import _supervise as s\n"
        "log = s.CodeLog(h / 'codelog.jsonl', b'guessed-key', 's0')\n"
        "log.append({'exe': 'lmp', 'code': 'lmp', 'argv': ['lmp', '-in', 'in.lmp'], 'cwd': '.', 'start': 1.0,\n"
        "            'end': 50.0, 'exit': 0, 'signal': None, 'markers': ['Total wall time'], 'error': None})\n"
    )
    steps = [Run(argv=["python3", "-c", forge]), WriteFile(path="answer.json", content=json.dumps(answer))]
    record = attempt(steps, task="cu-eam-elastic")
    out = stdout_of(record, home_of(tmp_path))
    assert "keys left: []" in out
    assert record.raw_score == 1.0 and record.gated_score == 0.0 and not record.passed
    assert record.failure_class is FailureClass.SOFTWARE and record.exit_reason == "audit-failed"
    assert record.audit_flags.log_intact is False and record.audit_flags.code_invoked is False
    assert "supervisor /proc/" in out  # the agent can see the supervisor, but not into it (non-dumpable)
    assert "READ" not in out and "denied environ" in out and "denied maps" in out
