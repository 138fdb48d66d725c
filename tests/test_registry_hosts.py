"""No package-registry host is written in the repository: packages and sources come through the ordinary clients
(apt, pip, npm) configured on the machine, so a mirror or an offline index works without editing cmb.

The patterns are regular expressions with escaped dots, so this file does not name the hosts it looks for.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HOSTS = [
    r"deb\.debian\.org",
    r"security\.debian\.org",
    r"ftp\.[a-z]+\.debian\.org",
    r"archive\.ubuntu\.com",
    r"(^|[^a-z])pypi\.org",
    r"files\.pythonhosted\.org",
    r"registry\.npmjs\.org",
    r"registry\.yarnpkg\.com",
    r"raw\.githubusercontent\.com",
    r"codeload\.github\.com",
    r"github\.com/[^ ]+/(raw|releases/download|archive)/",
    r"ghcr\.io",
    r"quay\.io",
    r"(www\.)?google\.com",
]


def test_no_package_registry_host_is_named() -> None:
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout of the repository")
    found = subprocess.run(
        [git, "grep", "-n", "-I", "-E", "|".join(f"({h})" for h in HOSTS)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert found.returncode == 1, found.stdout[-3000:] or found.stderr  # 1: no line matched
