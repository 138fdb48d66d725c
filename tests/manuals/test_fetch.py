"""Sources fetched with the ordinary clients: apt-get source from the machine's own mirror, pip download.

The clients here are stand-ins on PATH that record how they were called; the real ones run in the slow test of
test_build.py.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path

import pytest

from cmb.manuals import LibraryError, _fetch, build_library, debian_mirror, load_recipe
from cmb.manuals._recipe import Recipe, Selection, Source

INDEX = "deb\tDebian-Security\thttp://security.example/debian-security/\ndeb\tDebian\thttp://mirror.example/debian/\n"


def _archive(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "code-1.0.tar.gz"
    data = b"Variable: ecutrho\n"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("code-1.0/Doc/INPUT_PW.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _client(tmp_path: Path, name: str, body: str) -> Path:
    """A stand-in program: logs its arguments, then runs `body` (sh)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    exe = folder / name
    exe.write_text(f'#!/bin/sh\necho "$*" >> "{tmp_path}/{name}.log"\n{body}\n')
    exe.chmod(0o755)
    return exe


def _fake_apt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, index: str = INDEX, source: str = "") -> None:
    archive, _ = _archive(tmp_path)
    (tmp_path / "index.txt").write_text(index)
    body = (
        'case "$*" in\n'
        f'  *indextargets*) cat "{tmp_path}/index.txt" ;;\n'
        f'  *" source "*) {source or f"cp {archive} ."} ;;\n'
        "esac"
    )
    _client(tmp_path, "apt-get", body)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv(_fetch.MIRROR_VAR, raising=False)


def _recipe(tmp_path: Path, **fetch: str) -> Recipe:
    _, digest = _archive(tmp_path)
    source = Source(
        name="code",
        title="Code 1.0",
        origin="a test archive",
        sha256=digest,
        file="code-1.0.tar.gz",
        select=(Selection(glob="Doc/*", into="code", flatten=True),),
        **fetch,
    )
    return Recipe([source], [], digest="fetch-test")


def test_apt_sources_come_with_apt_get_source_from_the_machines_own_mirror(tmp_path, monkeypatch):
    _fake_apt(tmp_path, monkeypatch)
    lib, cache = tmp_path / "lib", tmp_path / "cache"
    manifest = build_library(lib, cache=cache, recipe=_recipe(tmp_path, apt="code=1.0-1", suite="bookworm"))
    assert (lib / "code" / "INPUT_PW.txt").read_text() == "Variable: ecutrho\n"
    assert (cache / "apt" / "sources.list").read_text() == "deb-src http://mirror.example/debian bookworm main\n"
    calls = (tmp_path / "apt-get.log").read_text().splitlines()
    assert calls[0].startswith("indextargets") and [c.split()[-1] for c in calls[1:]] == ["update", "code=1.0-1"]
    assert "source --download-only --only-source code=1.0-1" in calls[2]
    assert f"Dir::Etc::SourceList={cache / 'apt' / 'sources.list'}" in calls[1]  # never the machine's own lists
    assert manifest["sources"][0]["fetch"] == "apt-get source code=1.0-1 (bookworm)"
    assert manifest["sources"][0]["file"] == "code-1.0.tar.gz" and "url" not in manifest["sources"][0]
    assert json.loads((lib / "manifest.json").read_text()) == manifest


def test_the_mirror_is_the_override_or_the_machines_debian_entry_or_a_clear_error(tmp_path, monkeypatch):
    _fake_apt(tmp_path, monkeypatch)
    assert debian_mirror() == "http://mirror.example/debian"
    monkeypatch.setenv(_fetch.MIRROR_VAR, "http://local.example/debian/")
    assert debian_mirror() == "http://local.example/debian"
    _fake_apt(tmp_path, monkeypatch, index="deb\tNodeSource\thttps://node.example/node_20.x/\n")
    with pytest.raises(LibraryError, match="no Debian mirror.*CMB_DEBIAN_MIRROR"):
        debian_mirror()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no apt at all
    with pytest.raises(LibraryError, match="no Debian mirror"):
        debian_mirror()


def test_pip_sources_are_the_sdist_from_pip_download(tmp_path, monkeypatch):
    archive, _ = _archive(tmp_path)
    fake = _client(tmp_path, "pip", f'while [ "$1" != --dest ]; do shift; done\ncp {archive} "$2"')
    monkeypatch.setattr(_fetch, "PIP", [str(fake)])
    lib = tmp_path / "lib"
    manifest = build_library(lib, cache=tmp_path / "cache", recipe=_recipe(tmp_path, pip="code==1.0"))
    assert (lib / "code" / "INPUT_PW.txt").is_file()
    [call] = (tmp_path / "pip.log").read_text().splitlines()
    assert call.startswith("download --no-deps --no-binary code --dest ") and call.endswith(" code==1.0")
    assert manifest["sources"][0]["fetch"] == "pip download code==1.0"


def test_a_failing_client_or_a_missing_archive_is_a_clear_error_and_leaves_nothing(tmp_path, monkeypatch):
    _fake_apt(tmp_path, monkeypatch, source="echo 'E: Unable to find a source package for code' >&2; exit 100")
    cache = tmp_path / "cache"
    with pytest.raises(LibraryError, match="code: `apt-get .*` exited 100: E: Unable to find a source package"):
        build_library(tmp_path / "lib", cache=cache, recipe=_recipe(tmp_path, apt="code=1.0-1", suite="bookworm"))
    _fake_apt(tmp_path, monkeypatch, source="true")
    with pytest.raises(LibraryError, match=r"apt-get source code=1.0-1 \(bookworm\) left no code-1.0.tar.gz"):
        build_library(tmp_path / "lib", cache=cache, recipe=_recipe(tmp_path, apt="code=1.0-1", suite="bookworm"))
    assert not list((cache / "downloads").iterdir()) and not (tmp_path / "lib").exists()


def test_a_source_says_exactly_one_way_to_fetch_one_file(tmp_path):
    recipe = tmp_path / "sources.toml"
    head = '[[source]]\nname = "x"\ntitle = "t"\norigin = "o"\nsha256 = "0"\n'
    for fields, error in [
        ('file = "x.tar.gz"\n', "exactly one of apt, pip, url"),
        ('pip = "x==1"\nurl = "file:///x.tar.gz"\n', "exactly one"),
        ('apt = "x=1-1"\nfile = "x.tar.gz"\n', "names its Debian suite"),
        ('pip = "x==1"\nfile = "../x.tar.gz"\n', "not a file name"),
    ]:
        recipe.write_text(head + fields)
        with pytest.raises(LibraryError, match=error):
            load_recipe(recipe)
