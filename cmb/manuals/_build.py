"""Build the offline manuals library from pinned sources: fetch, verify, select, index, swap in atomically."""

from __future__ import annotations

import fcntl
import fnmatch
import json
import os
import pydoc
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

from cmb.manuals._fetch import Progress, describe, fetch
from cmb.manuals._recipe import FORMAT, Generated, LibraryError, Recipe, Source, load_recipe

MOUNT_POINT = "/opt/manuals"  # where every sandbox sees the library
MANIFEST = "manifest.json"


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cmb"


def default_library() -> Path:
    return default_cache() / "manuals"


def read_manifest(library: Path) -> dict[str, Any] | None:
    """The manifest of a built library, or None when there is none (or it is unreadable)."""
    try:
        data = json.loads((library / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_current(library: Path, recipe: Recipe | None = None) -> bool:
    manifest = read_manifest(library)
    return manifest is not None and manifest.get("recipe") == (recipe or load_recipe()).digest


def build_library(
    out: Path,
    *,
    cache: Path | None = None,
    recipe: Recipe | None = None,
    force: bool = False,
    progress: Progress = lambda _: None,
) -> dict[str, Any]:
    """Build the library into `out` (replacing it only once the new one is complete); return its manifest."""
    recipe = recipe or load_recipe()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with (out.parent / f".{out.name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # a second build waits, then finds the library current
            if not force and is_current(out, recipe):
                progress(f"{out} is up to date (recipe {recipe.digest})")
                return read_manifest(out) or {}
            return _build(out, cache or default_cache(), recipe, progress)
    except OSError as exc:  # a full disk, a read-only folder: said plainly, the previous library untouched
        raise LibraryError(f"cannot build the manuals library at {out}: {exc}") from None


def _build(out: Path, cache: Path, recipe: Recipe, progress: Progress) -> dict[str, Any]:
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        entries: list[dict[str, Any]] = []
        for source in recipe.sources:
            archive = fetch(source, cache, progress)
            progress(f"{source.name}: selecting documentation from {archive.name}")
            files = _extract(source, archive, staging)
            entries.append({**_describe(source), "files": files})
        generated = [_generate(g, staging, progress) for g in recipe.generated]
        manifest = {
            "format": FORMAT,
            "recipe": recipe.digest,
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "mount_point": MOUNT_POINT,
            "sources": entries,
            "generated": generated,
        }
        (staging / "README.txt").write_text(_readme(manifest), encoding="utf-8")
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        _make_readable(staging)
        _swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    total = sum(e["files"] for e in entries) + sum(1 for g in generated if g["ok"])
    progress(f"built {out}: {total} files from {len(recipe.sources)} sources (recipe {recipe.digest})")
    return manifest


# -- sources --------------------------------------------------------------------------------------------------


def _members(archive: Path) -> Iterator[tuple[tarfile.TarFile, tarfile.TarInfo, str]]:
    """Regular files of the archive with their path below its top folder; links and odd entries never come out."""
    try:
        with tarfile.open(archive) as tar:
            for info in tar:
                parts = PurePosixPath(info.name).parts
                if not info.isfile() or len(parts) < 2:
                    continue
                rel = "/".join(parts[1:])
                if rel.startswith("/") or ".." in parts:
                    raise LibraryError(f"{archive.name}: member {info.name!r} leaves the archive's folder")
                yield tar, info, rel
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise LibraryError(f"{archive.name}: not a readable archive: {exc}") from None


def _extract(source: Source, archive: Path, staging: Path) -> int:
    written = 0
    wanted = {d.file: d for d in source.program_doc}
    for tar, info, rel in _members(archive):
        for sel in source.select:
            if not fnmatch.fnmatchcase(rel, sel.glob) or (sel.max_bytes is not None and info.size > sel.max_bytes):
                continue
            dest = staging / sel.into / (PurePosixPath(rel).name if sel.flatten else rel)
            if dest.exists():  # the first copy wins (QE keeps duplicates of its INPUT files in Doc/)
                break
            _write(dest, _read(tar, info))
            written += 1
            break
        if rel in wanted:
            doc = wanted[rel]
            text = program_header(_read(tar, info).decode("utf-8", "replace"), doc.program)
            if not text:
                raise LibraryError(f"{source.name}: {rel} has no comment block after PROGRAM {doc.program}")
            _write(staging / doc.into, f"{doc.program}.x: the input description from its source ({rel})\n\n{text}")
            written += 1
    if not written:
        raise LibraryError(f"{source.name}: nothing in {archive.name} matches the selection")
    return written


def program_header(source: str, program: str) -> str:
    """The comment block that opens a Fortran program: where the QE post-processing codes document their input."""
    lines = source.splitlines()
    start = next((i for i, s in enumerate(lines) if re.match(rf"\s*program\s+{program}\b", s, re.I)), None)
    if start is None:
        return ""
    block: list[str] = []
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if stripped and not stripped.startswith("!"):
            break
        body = stripped.lstrip("!")
        if not re.fullmatch(r"\s*-*\s*", body) or block:
            block.append(body)
    return textwrap.dedent("\n".join(block)).strip("\n") + "\n" if block else ""


def _read(tar: tarfile.TarFile, info: tarfile.TarInfo) -> bytes:
    fh = tar.extractfile(info)
    if fh is None:
        raise LibraryError(f"cannot read {info.name}")
    return fh.read()


def _write(dest: Path, content: bytes | str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        dest.write_text(content, encoding="utf-8")
    else:
        dest.write_bytes(content)


# -- generated pages -------------------------------------------------------------------------------------------


def _generate(item: Generated, staging: Path, progress: Progress) -> dict[str, Any]:
    """Help text and API reference written from the installed packages; a failure is recorded, not fatal."""
    dest = staging / item.into
    try:
        if item.pydoc:
            obj = pydoc.locate(item.pydoc)
            if obj is None:
                raise LookupError(f"{item.pydoc} is not importable here")
            text = pydoc.render_doc(obj, renderer=pydoc.plaintext)  # type: ignore[attr-defined]
            package = item.pydoc.split(".")[0]
        else:
            exe = shutil.which(item.command[0]) or str(Path(sys.executable).parent / item.command[0])
            done = subprocess.run([exe, *item.command[1:]], capture_output=True, text=True, timeout=120, check=False)
            if done.returncode != 0 or not done.stdout.strip():
                raise RuntimeError(f"{' '.join(item.command)} exited {done.returncode}: {done.stderr.strip()[-200:]}")
            text = done.stdout
            package = item.command[0]
        version = metadata.version(package)
    except Exception as exc:  # noqa: BLE001 - a missing package leaves a gap, named in the index
        progress(f"skipped {item.into}: {exc}")
        return {"into": item.into, "ok": False, "reason": str(exc)}
    _write(dest, f"Generated from {package} {version}.\n\n{text}")
    return {"into": item.into, "ok": True, "package": package, "version": version}


# -- index and swap --------------------------------------------------------------------------------------------


def _describe(source: Source) -> dict[str, Any]:
    return {
        "name": source.name,
        "title": source.title,
        "origin": source.origin,
        "file": source.archive,
        "fetch": describe(source),
        "sha256": source.sha256,
    }


def _readme(manifest: dict[str, Any]) -> str:
    lines = [
        "Offline manuals of the codes installed in this sandbox (read-only).",
        "",
        "Search them with grep, e.g.  grep -n -A12 'Variable: *ecutrho' quantum-espresso/INPUT_PW.txt",
        "                             grep -l 'fix box/relax' lammps/*.rst",
        "",
    ]
    for s in manifest["sources"]:
        lines += [f"{s['name']}/  {s['title']}", f"    from {s['origin']}; {s['files']} files", ""]
    gaps = [g for g in manifest["generated"] if not g["ok"]]
    lines += [
        "Also installed (not copied here):",
        "    pseudopotentials: /usr/share/espresso/pseudo (ESPRESSO_PSEUDO)",
        "    LAMMPS potentials: /usr/share/lammps/potentials",
        "    Quantum ESPRESSO examples: /usr/share/doc/quantum-espresso/examples",
        "",
        "Python packages: numpy, scipy, h5py, ase, pymatgen, spglib, matplotlib, phonopy, phono3py;",
        "use help(...) or pydoc for any of them.",
    ]
    if gaps:
        lines += ["", "Not available in this build:"] + [f"    {g['into']}: {g['reason']}" for g in gaps]
    return "\n".join(lines) + "\n"


def _make_readable(root: Path) -> None:
    """Every sandbox user reads the library; nobody writes it."""
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _swap_in(staging: Path, out: Path) -> None:
    """Replace `out` with the finished build; a running sandbox that bound the old copy keeps reading it."""
    if out.exists() or out.is_symlink():
        old = out.with_name(f".{out.name}.old.{os.getpid()}")
        out.rename(old)
        staging.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        staging.rename(out)
