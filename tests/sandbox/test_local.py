"""What is specific to the local backend: degraded mode without bubblewrap, uids, orphans, the copy helpers."""

from __future__ import annotations

import logging
import os
import random
import uuid
from pathlib import Path

import pytest

from cmb.sandbox import Sandbox, SandboxSpec
from cmb.sandbox._files import copy_in, copy_out, relative_parts
from cmb.sandbox._local import LocalSandbox
from tests.sandbox._support import REPO, TEST_PROFILE, SandboxFactory, abandon_sandbox, host_processes_matching


def test_without_bubblewrap_the_sandbox_warns_and_says_it_is_not_isolated(
    make_sandbox: SandboxFactory, caplog: pytest.LogCaptureFixture
) -> None:
    sb = make_sandbox("local", start=False)
    assert isinstance(sb, LocalSandbox)
    sb.bwrap = None
    with caplog.at_level(logging.WARNING):
        sb.start()
    assert sb.isolated is False
    assert any("WITHOUT filesystem or network isolation" in w for w in sb.warnings)
    assert "bubblewrap" in caplog.text
    # Limits and the minimal environment still apply.
    r = sb.exec(["sh", "-c", 'echo "$OMP_NUM_THREADS $HOME"'], timeout_s=30)
    assert r.stdout.split() == ["2", str(sb.workspace)]
    n = random.randint(100_000, 999_999)
    r = sb.exec(["sh", "-c", f"sleep {n} & sleep {n}"], timeout_s=1)
    assert r.timed_out
    assert host_processes_matching(f"sleep {n}") == []


@pytest.mark.skipif(os.geteuid() != 0, reason="uids are only switched when the harness runs as root")
def test_each_sandbox_runs_as_its_own_unprivileged_uid(make_sandbox: SandboxFactory) -> None:
    a, b = make_sandbox("local"), make_sandbox("local")
    ids = [int(s.exec(["id", "-u"], timeout_s=30).stdout) for s in (a, b)]
    assert ids[0] != ids[1]
    assert all(i >= 200_000 for i in ids)
    assert a.workspace.stat().st_uid == ids[0]


def test_cleanup_orphans_removes_only_what_a_dead_harness_left(make_sandbox: SandboxFactory) -> None:
    live = make_sandbox("local")
    assert isinstance(live, LocalSandbox)
    name = f"cmbtest-orphan-{uuid.uuid4().hex[:8]}"
    abandon_sandbox("local", name)
    assert (LocalSandbox.base_dir / name / "workspace" / "behind.txt").is_file()
    removed = LocalSandbox.cleanup_orphans()
    assert name in removed and live.spec.name not in removed
    assert not (LocalSandbox.base_dir / name).exists()
    assert live.exec(["echo", "alive"], timeout_s=30).stdout == "alive\n"


def test_checkout_is_masked_even_inside_a_bound_folder(
    make_sandbox: SandboxFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As if the suite lived under /usr or /opt: the folder holding it is bound, the checkout must stay hidden.
    monkeypatch.setattr(LocalSandbox, "system_dirs", (*LocalSandbox.system_dirs, str(REPO.parent)))
    sb = make_sandbox("local")
    if not sb.isolated:
        pytest.skip("no bubblewrap here")
    # Read the mount table, not the folders: the host may keep the checkout's parent unreadable to other uids.
    r = sb.exec(["sh", "-c", f"cat /proc/self/mountinfo; echo ---; cat {REPO}/graders/*.yaml"], timeout_s=30)
    table, _, leaked = r.stdout.partition("---")
    mounts = [(f[4], f[f.index("-") + 1]) for f in (line.split() for line in table.splitlines()) if "-" in f]
    points = [point for point, _ in mounts]
    assert str(REPO.parent) in points  # the bind works ...
    assert (str(REPO), "tmpfs") in mounts  # ... and the checkout under it is an empty mask
    assert points.index(str(REPO)) > points.index(str(REPO.parent))
    assert "checks:" not in leaked


def test_sandbox_names_must_be_plain() -> None:
    with pytest.raises(Exception, match="must match"):
        LocalSandbox(SandboxSpec(name="../escape", profile=TEST_PROFILE))


def test_local_sandbox_is_offline_even_with_a_gateway() -> None:
    sb: Sandbox = LocalSandbox(SandboxSpec(name="cmbtest-gw", profile=TEST_PROFILE, gateway_url="http://x:1"))
    assert sb.gateway_url is None
    assert any("offline" in w for w in sb.warnings)


# -- the copy helpers, against a link swapped in anywhere ------------------------------------------------------


def test_relative_parts_refuses_escapes() -> None:
    assert relative_parts("./a/b/") == ("a", "b")
    assert relative_parts(".") == ()
    for bad in ("/etc", "a/../../b", ".."):
        with pytest.raises(ValueError):
            relative_parts(bad)


def test_copy_out_does_not_follow_a_linked_parent(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root).mkdir()
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key").write_text("s3cr3t")
    (root / "answers").symlink_to(tmp_path / "secret")
    warnings: list[str] = []
    copy_out(root, "answers/key", tmp_path / "out", 10**6, warnings.append)
    copy_out(root, "answers", tmp_path / "out2", 10**6, warnings.append)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    assert not (tmp_path / "out2").exists() or not any((tmp_path / "out2").iterdir())
    assert len(warnings) == 2


def test_copy_in_replaces_planted_links_instead_of_writing_through_them(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("original")
    (root / "prompt.md").symlink_to(victim)
    (root / "dir").symlink_to(tmp_path)
    src = tmp_path / "bundle"
    (src / "dir").mkdir(parents=True)
    (src / "prompt.md").write_text("new prompt")
    (src / "dir" / "victim.txt").write_text("overwritten?")
    copy_in(src, root, ".", None)
    assert victim.read_text() == "original"
    assert (root / "prompt.md").read_text() == "new prompt"
    assert not (root / "prompt.md").is_symlink() and not (root / "dir").is_symlink()
