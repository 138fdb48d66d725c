"""The Brillouin-zone sampling VASP would use: a KPOINTS file as VASP reads it, or the KSPACING mesh without one."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from cmb.grading._submission import SubmissionError, is_finite_number
from cmb.grading.vasp._files import InputFiles
from cmb.grading.vasp._values import ValueProblem, read_int, read_real

if TYPE_CHECKING:
    from pymatgen.core.structure import Structure

MAX_KPOINTS = 100_000
MAX_SUBDIVISIONS = 1000


@dataclass(frozen=True)
class KpointSet:
    """How VASP would sample the Brillouin zone."""

    kind: Literal["gamma", "monkhorst-pack", "auto", "kspacing", "explicit", "line"]
    description: str
    mesh: tuple[int, int, int] | None = None
    gamma_included: bool | None = None
    count: int | None = None


def mesh_includes_gamma(mesh: tuple[int, ...], shift: tuple[float, ...], monkhorst: bool) -> bool:
    """Monkhorst-Pack meshes sit half a step off Γ along even subdivisions; an extra user shift adds to that."""
    for n, s in zip(mesh, shift, strict=True):
        offset = s + (0.5 if monkhorst and n % 2 == 0 else 0.0)
        if abs(offset - round(offset)) > 1e-6:
            return False
    return True


def reciprocal_lengths(lattice: Any) -> list[float]:
    """|b_i| with b_i·a_j = δ_ij (no 2π), in 1/Å."""
    b = np.linalg.inv(np.asarray(lattice.matrix, dtype=float)).T
    return [float(x) for x in np.linalg.norm(b, axis=1)]


def _int_tokens(line: str, count: int, what: str) -> list[int]:
    tokens = line.split()[:count]
    if len(tokens) < count:
        raise ValueProblem(f"expected {count} {what}")
    return [read_int(t) for t in tokens]


def parse_kpoints(text: str, name: str, lattice: Callable[[], Any]) -> KpointSet:
    """Interpret a KPOINTS file as VASP does (only the first letter of the mode line counts)."""
    lines = text.replace("\r", "").split("\n")
    try:
        if len(lines) < 3:
            raise ValueProblem("fewer than 3 lines")
        nk = _int_tokens(lines[1], 1, "k-point count")[0]
        mode = lines[2].strip()[:1].upper()
        if nk < 0:
            raise ValueProblem("negative number of k points")
        if nk == 0:
            return _automatic(lines, mode, lattice)
        if mode == "L":
            return KpointSet("line", f"line mode, {nk} points per segment (a band-structure path)")
        if nk > MAX_KPOINTS:
            raise ValueProblem(f"more than {MAX_KPOINTS} k points")
        points = []
        for i in range(nk):
            if 3 + i >= len(lines):
                raise ValueProblem(f"{nk} k points announced but only {i} listed")
            points.append([read_real(t) for t in lines[3 + i].split()[:3]])
            if len(points[-1]) < 3:
                raise ValueProblem(f"k point {i + 1} has fewer than 3 coordinates")
        has_gamma = any(all(abs(c) < 1e-8 for c in pt) for pt in points)
        return KpointSet("explicit", f"explicit list of {nk} k points", None, has_gamma, nk)
    except ValueProblem as exc:
        raise SubmissionError(f"{name}: not a readable KPOINTS file ({exc})") from None


def _automatic(lines: list[str], mode: str, lattice: Callable[[], Any]) -> KpointSet:
    if mode == "A":
        if len(lines) < 4:
            raise ValueProblem("fully automatic mode without a length")
        length = read_real(lines[3].split()[0] if lines[3].split() else "")
        if length <= 0:
            raise ValueProblem("the length must be positive")
        n = [max(1, int(length * bi + 0.5)) for bi in reciprocal_lengths(lattice())]
        mesh = (n[0], n[1], n[2])
        return KpointSet("auto", f"fully automatic, length {length:g} -> Γ-centred {mesh_str(mesh)}", mesh, True)
    if mode in ("G", "M"):
        if len(lines) < 4:
            raise ValueProblem("no subdivisions line")
        sub = _int_tokens(lines[3], 3, "subdivisions")
        mesh = (sub[0], sub[1], sub[2])
        if any(k < 1 or k > MAX_SUBDIVISIONS for k in mesh):
            raise ValueProblem(f"subdivisions {mesh} must be between 1 and {MAX_SUBDIVISIONS}")
        shift: tuple[float, ...] = (0.0, 0.0, 0.0)
        if len(lines) > 4 and lines[4].split():
            tokens = lines[4].split()[:3]
            if len(tokens) < 3:
                raise ValueProblem("the shift line needs 3 numbers")
            shift = tuple(read_real(t) for t in tokens)
        monkhorst = mode == "M"
        kind: Literal["gamma", "monkhorst-pack"] = "monkhorst-pack" if monkhorst else "gamma"
        shift_text = "" if not any(shift) else f" shifted by {' '.join(f'{s:g}' for s in shift)}"
        gamma = mesh_includes_gamma(mesh, shift, monkhorst)
        desc = f"{'Monkhorst-Pack' if monkhorst else 'Γ-centred'} {mesh_str(mesh)}{shift_text}"
        return KpointSet(kind, desc, mesh, gamma)
    raise ValueProblem(
        f"automatic mode {lines[2].strip()[:20]!r} is not Gamma, Monkhorst-Pack or Auto "
        "(meshes from generating vectors are not graded)"
    )


def mesh_str(mesh: tuple[int, ...]) -> str:
    """A mesh for messages: 8×8×8."""
    return "×".join(str(n) for n in mesh)


def kspacing_mesh(lattice: Any, kspacing: float) -> tuple[int, int, int]:
    """VASP's mesh for KSPACING: N_i = max(1, ceiling(|b_i| 2π / KSPACING))."""
    b = reciprocal_lengths(lattice)
    n = [max(1, math.ceil(bi * 2 * math.pi / kspacing - 1e-9)) for bi in b]
    return n[0], n[1], n[2]


def kpoint_set(files: InputFiles, name: str, incar: str, poscar: str) -> tuple[KpointSet, Structure | None]:
    """The sampling of the calculation in `files`: KPOINTS file `name`, else INCAR's KSPACING on the POSCAR.

    The structure comes back when reading the sampling needed it (a fully automatic or KSPACING mesh).
    """
    cell: list[Structure] = []

    def lattice() -> Any:
        cell.append(files.structure(poscar))
        return cell[-1].lattice

    if files.exists(name):
        kset = parse_kpoints(files.text(name), files.path(name), lattice)
        return kset, cell[-1] if cell else None
    try:
        resolver = files.resolver(incar, poscar)
        spacing, kgamma = resolver.effective("KSPACING"), resolver.effective("KGAMMA")
    except SubmissionError as exc:
        raise SubmissionError(f"no {files.path(name)} file, and its KSPACING cannot be read: {exc}") from None
    if not is_finite_number(spacing.value) or spacing.value <= 0:
        raise SubmissionError(f"no {name} file, and {spacing.describe()} is not a positive spacing")
    structure = files.structure(poscar)
    mesh = kspacing_mesh(structure.lattice, float(spacing.value))
    gamma = True if kgamma.value is True else mesh_includes_gamma(mesh, (0.0, 0.0, 0.0), True)
    desc = (
        f"no {name} file: VASP builds a {'Γ-centred' if kgamma.value else 'shifted'} {mesh_str(mesh)} mesh from "
        f"{spacing.describe()}, {kgamma.describe()}"
    )
    return KpointSet("kspacing", desc, mesh, gamma), structure
