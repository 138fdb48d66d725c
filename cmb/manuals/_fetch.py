"""Fetch a pinned source with the ordinary client for it (apt-get source, pip download), then check its sha256.

No registry host is written here: apt-get reads the machine's Debian mirror from its own configuration (or
CMB_DEBIAN_MIRROR), pip uses the index the machine's pip is configured with.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Callable
from pathlib import Path

from cmb.manuals._recipe import LibraryError, Source

Progress = Callable[[str], None]
Fetcher = Callable[[Source, Path, Path, Progress], Path]  # (source, scratch, cache, progress) -> its file in scratch

PIP = [sys.executable, "-m", "pip"]
MIRROR_VAR = "CMB_DEBIAN_MIRROR"
_INDEX_FORMAT = "$(TARGET_OF)\t$(LABEL)\t$(REPO_URI)"


def fetch(source: Source, cache: Path, progress: Progress) -> Path:
    """The source's archive, fetched once into `cache`/downloads and checked against its pinned sha256 every time."""
    source.check()
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    target = downloads / source.archive
    if target.is_file() and sha256(target) == source.sha256:
        return target
    with tempfile.TemporaryDirectory(prefix=".fetch.", dir=downloads) as scratch:
        got = FETCHERS[source.client](source, Path(scratch), cache, progress)
        if not got.is_file():
            raise LibraryError(f"{source.name}: {describe(source)} left no {source.archive}")
        digest = sha256(got)
        if digest != source.sha256:
            raise LibraryError(
                f"{source.name}: {describe(source)} gave sha256 {digest}, expected {source.sha256}; refusing it"
            )
        got.replace(target)
    return target


def describe(source: Source) -> str:
    """How the source is fetched, as a command a person could run."""
    return {
        "apt": f"apt-get source {source.apt} ({source.suite})",
        "pip": f"pip download {source.pip}",
        "url": source.url,
    }[source.client]


def debian_mirror() -> str:
    """The Debian archive this machine's apt uses, as apt itself reads its sources (CMB_DEBIAN_MIRROR overrides)."""
    override = os.environ.get(MIRROR_VAR, "").strip()
    if override:
        return override.rstrip("/")
    try:
        listed = subprocess.run(
            ["apt-get", "indextargets", "--format", _INDEX_FORMAT],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        listed = ""
    for line in listed.splitlines():
        kind, label, uri = (line.split("\t") + ["", ""])[:3]
        if kind == "deb" and label == "Debian" and uri:
            return uri.rstrip("/")
    raise LibraryError(
        "no Debian mirror in this machine's apt configuration (apt-get indextargets lists no deb entry labelled "
        f"Debian; run apt-get update if its lists are missing), and {MIRROR_VAR} is not set"
    )


def _run(argv: list[str], cwd: Path, what: str) -> None:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LibraryError(f"{what}: cannot run {argv[0]}: {exc}") from None
    if done.returncode != 0:
        output = (done.stderr.strip() or done.stdout.strip())[-1500:]
        raise LibraryError(f"{what}: `{' '.join(argv)}` exited {done.returncode}: {output}")


def _apt_source(source: Source, scratch: Path, cache: Path, progress: Progress) -> Path:
    """Run `apt-get source --download-only` with a private apt state whose one deb-src entry is the machine's mirror."""
    state = cache / "apt"
    for folder in ("lists/partial", "cache", "sources.list.d"):
        (state / folder).mkdir(parents=True, exist_ok=True)
    sources = state / "sources.list"
    sources.write_text(f"deb-src {debian_mirror()} {source.suite} main\n", encoding="utf-8")
    options = [
        f"Dir::Etc::SourceList={sources}",
        f"Dir::Etc::SourceParts={state / 'sources.list.d'}",
        f"Dir::State::Lists={state / 'lists'}",
        f"Dir::Cache={state / 'cache'}",
        "Acquire::Languages=none",
    ]
    apt = ["apt-get", "-q", *(arg for o in options for arg in ("-o", o))]
    progress(f"{source.name}: apt-get update of the {source.suite} sources")
    _run([*apt, "update"], scratch, source.name)
    progress(f"{source.name}: {describe(source)}")
    _run([*apt, "source", "--download-only", "--only-source", source.apt], scratch, source.name)
    return scratch / source.archive


def _pip_download(source: Source, scratch: Path, cache: Path, progress: Progress) -> Path:
    """Run `pip download` for the sdist alone (no dependencies, never a wheel of the package itself)."""
    project = source.pip.partition("==")[0].strip()
    progress(f"{source.name}: {describe(source)}")
    argv = [*PIP, "download", "--no-deps", "--no-binary", project, "--dest", str(scratch), source.pip]
    _run(argv, scratch, source.name)
    return scratch / source.archive


def _url(source: Source, scratch: Path, cache: Path, progress: Progress) -> Path:
    """A plain download, for a local mirror or a file."""
    target = scratch / source.archive
    progress(f"{source.name}: downloading {source.url}")
    try:
        with urllib.request.urlopen(source.url, timeout=120) as response, target.open("wb") as fh:  # noqa: S310
            size = int(response.headers.get("Content-Length") or 0)
            done, reported = 0, 0
            while chunk := response.read(1 << 20):
                fh.write(chunk)
                done += len(chunk)
                if size and done - reported >= size // 4:
                    reported = done
                    progress(f"{source.name}: {done >> 20} of {size >> 20} MiB")
    except OSError as exc:
        raise LibraryError(f"{source.name}: cannot download {source.url}: {exc}") from None
    return target


FETCHERS: dict[str, Fetcher] = {"apt": _apt_source, "pip": _pip_download, "url": _url}


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()
