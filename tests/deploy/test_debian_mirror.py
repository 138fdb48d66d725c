"""deploy/image/debian-mirror.sh: the image's Debian mirrors come from the machine's own apt configuration.

A stand-in apt-get on PATH prints what `apt-get indextargets` would for a given set of sources.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "image" / "debian-mirror.sh"
MACHINE = (
    "deb\tNodeSource\thttps://node.example/node_20.x/\n"  # another vendor listed first
    "deb\tDebian Backports\thttp://backports.example/debian/\n"
    "deb-src\tDebian\thttp://sources-only.example/debian/\n"
    "deb\tDebian\thttp://mirror.example/debian/\n"
    "deb\tDebian\thttp://second.example/debian/\n"
    "deb\tDebian-Security\thttp://security.example/debian-security/\n"
)


def _run(tmp_path: Path, which: str, index: str | None = MACHINE, **env: str) -> subprocess.CompletedProcess[str]:
    """The script with a PATH of awk, cat and, unless `index` is None, a stand-in apt-get that lists `index`."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for tool in ("awk", "cat"):
        found = shutil.which(tool)
        assert found is not None
        if not (folder / tool).exists():
            (folder / tool).symlink_to(found)
    if index is not None:
        (tmp_path / "index.txt").write_text(index)
        fake = folder / "apt-get"
        fake.write_text(f'#!/bin/sh\n[ "$1" = indextargets ] && cat "{tmp_path}/index.txt"\n')
        fake.chmod(0o755)
    base = {k: v for k, v in os.environ.items() if not k.startswith("CMB_DEBIAN")}
    return subprocess.run(
        [shutil.which("bash") or "/bin/bash", str(SCRIPT), which],
        env={**base, "PATH": str(folder), **env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_first_debian_entry_of_the_machine_is_the_mirror(tmp_path: Path) -> None:
    assert _run(tmp_path, "main").stdout == "http://mirror.example/debian\n"
    assert _run(tmp_path, "security").stdout == "http://security.example/debian-security\n"


def test_the_environment_overrides_the_machine(tmp_path: Path) -> None:
    out = _run(tmp_path, "main", CMB_DEBIAN_MIRROR="http://local.example/debian/")
    assert out.stdout == "http://local.example/debian\n"
    out = _run(tmp_path, "security", index=None, CMB_DEBIAN_SECURITY_MIRROR="http://local.example/sec")
    assert out.stdout == "http://local.example/sec\n"


@pytest.mark.parametrize("index", [None, "deb\tUbuntu\thttp://archive.example/ubuntu/\n"], ids=["no-apt", "no-debian"])
def test_a_machine_without_a_debian_mirror_is_a_clear_error(tmp_path: Path, index: str | None) -> None:
    out = _run(tmp_path, "main", index=index)
    assert out.returncode == 1 and out.stdout == ""
    assert "no Debian archive in this machine's apt configuration" in out.stderr and "CMB_DEBIAN_MIRROR" in out.stderr
    out = _run(tmp_path, "security", index=index)
    assert out.returncode == 1 and "CMB_DEBIAN_SECURITY_MIRROR" in out.stderr


def test_the_image_build_takes_its_mirrors_from_the_script() -> None:
    build = (SCRIPT.parent / "build-local.sh").read_text()
    assert 'mirror="$(bash "$here/debian-mirror.sh" main)"' in build
    assert 'security="$(bash "$here/debian-mirror.sh" security)"' in build
