"""The manuals library builder on small archives made here, and the real pinned recipe."""

from __future__ import annotations

import hashlib
import io
import json
import stat
import tarfile
from pathlib import Path

import pytest

from cmb.manuals import (
    LibraryError,
    build_library,
    is_current,
    load_recipe,
    program_header,
    read_manifest,
)
from cmb.manuals._recipe import Generated, ProgramDoc, Recipe, Selection, Source

FORTRAN = """\
! Copyright notice
!
PROGRAM toy
  !------------------------------------------------------------------
  !
  !  toy.x: reads namelist &input
  !     nq    :  number of q points (integer, must be specified)
  !
  USE kinds, ONLY : DP
  ! a later comment that is not documentation
END PROGRAM toy
"""


def _tarball(path: Path, files: dict[str, bytes], links: dict[str, str] | None = None) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _recipe(tmp_path: Path, files: dict[str, bytes] | None = None, **source_kw) -> Recipe:
    archive = tmp_path / "src" / "code-1.0.tar.gz"
    archive.parent.mkdir(exist_ok=True)
    files = files or {
        "code-1.0/PW/Doc/INPUT_PW.txt": b"Variable: ecutrho\nDefault: 4 * ecutwfc\n",
        "code-1.0/Doc/INPUT_PW.txt": b"a duplicate copy\n",
        "code-1.0/doc/big.dat": b"x" * 5000,
        "code-1.0/doc/small.dat": b"y",
        "code-1.0/src/toy.f90": FORTRAN.encode(),
        "code-1.0/src/other.f90": b"not selected",
    }
    digest = _tarball(archive, files, links={"code-1.0/doc/escape.dat": "/etc/passwd"})
    kw = {
        "select": (
            Selection(glob="*/Doc/INPUT_*.txt", into="code", flatten=True),
            Selection(glob="doc/*", into="code", max_bytes=1000),
        ),
        "program_doc": (ProgramDoc(file="src/toy.f90", program="toy", into="code/INPUT_TOY.txt"),),
        **source_kw,
    }
    source = Source(name="code", title="Code 1.0", origin="a test archive", url=archive.as_uri(), sha256=digest, **kw)
    generated = [
        Generated(into="py/phonopy.load.txt", pydoc="phonopy.load"),
        Generated(into="py/x.txt", pydoc="no_such_pkg.x"),
    ]
    return Recipe([source], generated, digest="test-" + digest[:8])


def test_build_selects_indexes_and_locks_down(tmp_path: Path) -> None:
    lib, recipe = tmp_path / "lib", _recipe(tmp_path)
    messages: list[str] = []
    manifest = build_library(lib, cache=tmp_path / "cache", recipe=recipe, progress=messages.append)
    files = sorted(str(p.relative_to(lib)) for p in lib.rglob("*") if p.is_file())
    assert files == [
        "README.txt",
        "code/INPUT_PW.txt",
        "code/INPUT_TOY.txt",
        "code/doc/small.dat",
        "manifest.json",
        "py/phonopy.load.txt",
    ]  # big.dat over its size limit, the symlink never extracted, the duplicate INPUT_PW.txt dropped
    assert (lib / "code/INPUT_PW.txt").read_text().startswith("Variable: ecutrho")
    toy = (lib / "code/INPUT_TOY.txt").read_text()
    assert "nq    :  number of q points" in toy and "USE kinds" not in toy and "later comment" not in toy
    assert "Generated from phonopy" in (lib / "py/phonopy.load.txt").read_text()
    assert manifest == json.loads((lib / "manifest.json").read_text())
    assert manifest["sources"][0]["files"] == 3 and manifest["sources"][0]["sha256"] == recipe.sources[0].sha256
    assert [g["ok"] for g in manifest["generated"]] == [True, False]
    readme = (lib / "README.txt").read_text()
    assert "code/  Code 1.0" in readme and "py/x.txt: no_such_pkg.x is not importable" in readme
    assert any("skipped py/x.txt" in m for m in messages)
    for path in [lib, *lib.rglob("*")]:
        assert stat.S_IMODE(path.stat().st_mode) == (0o755 if path.is_dir() else 0o644)
    assert not [
        p for p in lib.parent.iterdir() if p.name.startswith(".lib.") and p.suffix != ".lock"
    ]  # no staging folder left


def test_a_current_library_is_kept_and_a_forced_build_replaces_it(tmp_path: Path) -> None:
    lib, recipe = tmp_path / "lib", _recipe(tmp_path)
    build_library(lib, cache=tmp_path / "cache", recipe=recipe)
    assert is_current(lib, recipe)
    (tmp_path / "src" / "code-1.0.tar.gz").unlink()  # no download is needed while the library is current
    (lib / "stale.txt").write_text("left over")
    messages: list[str] = []
    build_library(lib, cache=tmp_path / "cache", recipe=recipe, progress=messages.append)
    assert "up to date" in messages[0] and (lib / "stale.txt").exists()
    build_library(lib, cache=tmp_path / "cache", recipe=recipe, force=True)  # from the verified cached download
    assert not (lib / "stale.txt").exists() and (lib / "code/INPUT_PW.txt").is_file()


def test_an_altered_download_is_refused_and_the_old_library_survives(tmp_path: Path) -> None:
    lib, recipe = tmp_path / "lib", _recipe(tmp_path)
    build_library(lib, cache=tmp_path / "cache2", recipe=recipe)
    before = read_manifest(lib)
    bad = Recipe([Source(**{**recipe.sources[0].__dict__, "sha256": "0" * 64})], [], digest="other")
    with pytest.raises(LibraryError, match="gave sha256 .*, expected 0000.*refusing"):
        build_library(lib, cache=tmp_path / "cache3", recipe=bad)
    assert read_manifest(lib) == before
    assert not list((tmp_path / "cache3" / "downloads").iterdir())  # no partial file kept
    assert not [p for p in lib.parent.iterdir() if p.name.startswith(".lib.") and p.suffix != ".lock"]


def test_unreachable_empty_and_hostile_sources_are_clear_errors(tmp_path: Path) -> None:
    recipe = _recipe(tmp_path)
    gone = Source(**{**recipe.sources[0].__dict__, "url": (tmp_path / "nowhere.tar.gz").as_uri()})
    with pytest.raises(LibraryError, match="cannot download"):
        build_library(tmp_path / "a", cache=tmp_path / "c", recipe=Recipe([gone], digest="x"))
    nothing = Source(
        **{**recipe.sources[0].__dict__, "select": (Selection(glob="nope/*", into="x"),), "program_doc": ()}
    )
    with pytest.raises(LibraryError, match="nothing in code-1.0.tar.gz matches"):
        build_library(tmp_path / "b", cache=tmp_path / "c", recipe=Recipe([nothing], digest="y"))
    hostile = _recipe(tmp_path, files={"code-1.0/../../evil.txt": b"x", "code-1.0/Doc/INPUT_A.txt": b"a"})
    with pytest.raises(LibraryError, match="leaves the archive"):
        build_library(tmp_path / "d", cache=tmp_path / "c", recipe=hostile)
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "d").exists()


def test_junk_in_place_of_an_archive_is_a_clear_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x00\xff" * 100)
    source = Source(
        "junk",
        "t",
        "o",
        hashlib.sha256(junk.read_bytes()).hexdigest(),
        url=junk.as_uri(),
        select=(Selection(glob="*", into="x"),),
    )
    with pytest.raises(LibraryError, match="not a readable archive"):
        build_library(tmp_path / "lib", cache=tmp_path / "c", recipe=Recipe([source], digest="j"))


def test_an_unwritable_destination_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(LibraryError, match="cannot build the manuals library"):
        build_library(tmp_path / "a-file" / "lib", cache=tmp_path / "c", recipe=_recipe(tmp_path))


def test_recipe_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "sources.toml"
    bad.write_text("[[source]]\nname = 'x'\nunknown_key = 1\n")
    with pytest.raises(LibraryError, match="sources.toml"):
        load_recipe(bad)
    bad.write_text('[[generated]]\ninto = "../outside.txt"\npydoc = "json"\n')
    with pytest.raises(LibraryError, match="must stay inside"):
        load_recipe(bad)


def test_program_header_reads_the_documentation_block_only() -> None:
    text = program_header(FORTRAN, "toy")
    assert text.splitlines()[0] == "toy.x: reads namelist &input"
    assert program_header(FORTRAN, "absent") == ""


def test_the_pinned_recipe_is_complete() -> None:
    recipe = load_recipe()
    assert {s.name for s in recipe.sources} >= {"quantum-espresso", "lammps", "phonopy", "phono3py"}
    for s in recipe.sources:
        assert len(s.sha256) == 64 and int(s.sha256, 16) >= 0
        assert s.client in ("apt", "pip") and not s.url  # fetched with the ordinary clients, no host written down
        assert s.archive.endswith((".tar.gz", ".tar.xz"))


@pytest.mark.slow
def test_the_real_library_holds_what_agents_look_up(tmp_path: Path) -> None:
    # Downloads about 190 MB once (kept in the user's cache, checked by sha256 on every use).
    lib = tmp_path / "manuals"
    manifest = build_library(lib)
    assert is_current(lib)
    assert {s["name"]: s["files"] > 0 for s in manifest["sources"]} == dict.fromkeys(
        ["quantum-espresso", "lammps", "phonopy", "phono3py", "kdotpy"], True
    )
    assert all(g["ok"] for g in manifest["generated"]), manifest["generated"]
    pw = (lib / "quantum-espresso/INPUT_PW.txt").read_text()
    assert "Variable:       ecutrho" in pw and '4 * "ecutwfc"' in pw and "vdw_corr" in pw
    assert "fildyn" in (lib / "quantum-espresso/INPUT_Q2R.txt").read_text()
    assert "asr" in (lib / "quantum-espresso/INPUT_MATDYN.txt").read_text()
    for name in ("INPUT_PH.txt", "INPUT_DOS.txt", "INPUT_PROJWFC.txt", "html/INPUT_PW.html"):
        assert (lib / "quantum-espresso" / name).stat().st_size > 1000, name
    assert "pair_style eam" in (lib / "lammps/pair_eam.rst").read_text()
    assert (lib / "lammps/fix_box_relax.rst").is_file() and (lib / "lammps/Commands_all.rst").is_file()
    assert (lib / "phonopy/example/Si-QE/README.md").is_file()
    assert "--displacement" in (lib / "phonopy/phonopy-help.txt").read_text()
    assert "class Phono3py" in (lib / "phono3py/api/phono3py.Phono3py.txt").read_text()
    assert "selfcon" in (lib / "kdotpy/helpfile.txt").read_text()
    assert sum(p.stat().st_size for p in lib.rglob("*") if p.is_file()) < 100 * 1024 * 1024
