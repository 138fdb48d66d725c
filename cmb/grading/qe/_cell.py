"""The crystal of a pw.x input: elements of the species, the cell pw.x builds, positions and magnetic order.

qe-tools only turns validated numbers (ibrav, celldm or A..cosBC, CELL_PARAMETERS) into a cell: the lattice
generation it shares with pw.x.
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np

from cmb.grading._structure import MAX_SITES
from cmb.grading._submission import SubmissionError, is_finite_number
from cmb.grading.qe._defaults import functional_tokens
from cmb.grading.qe._evaluator import Evaluator
from cmb.grading.qe._input import PwInput, Species

if TYPE_CHECKING:
    from pymatgen.core.structure import Structure

BOHR_TO_ANG = 0.52917720859  # QE 6.7's BOHR_RADIUS_ANGS, also qe-tools' CONSTANTS.bohr_to_ang


def label_element(label: str) -> str | None:
    """The element pw.x associates with a species label (upflib atomic_number: 'Fe1' -> Fe, 'C_h' -> C)."""
    if not label:
        return None
    if len(label) == 1 or label[1].isdigit() or label[1] in "-_":
        symbol = label[0].upper()
    else:
        symbol = label[0].upper() + label[1].lower()
    return symbol if is_element(symbol) else None


def pseudo_element(filename: str) -> str | None:
    """The element a pseudopotential file name starts with ('Fe.pbe-spn-...', 'fe_pbe_v1.5...'), if any."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    m = re.match(r"([A-Za-z]{1,2})(?=[^A-Za-z]|$)", base)
    if m is None:
        return None
    symbol = m.group(1).capitalize()
    return symbol if is_element(symbol) else None


def pseudo_functional(filename: str) -> str | None:
    """The functional family named in a pseudopotential file name ('Si.pbesol-n-rrkjus' -> pbesol), if any."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    tokens = functional_tokens()
    found = {tokens[w] for w in re.split(r"[^a-z0-9]+", base) if w in tokens}
    return found.pop() if len(found) == 1 else None


def functional_family(name: str) -> str | None:
    """A functional or family name ('PBE', 'pz', 'lda') -> family, or None."""
    tokens = functional_tokens()
    lowered = name.strip().lower()
    if lowered in tokens:
        return tokens[lowered]
    found = {tokens[w] for w in re.split(r"[^a-z0-9]+", lowered) if w in tokens}
    return found.pop() if len(found) == 1 else None


@functools.cache
def is_element(symbol: str) -> bool:
    """Whether a symbol names a chemical element."""
    from pymatgen.core.periodic_table import Element

    try:
        Element(symbol)
    except ValueError:
        return False
    return True


def species_element(sp: Species) -> str | None:
    """The element of a species: the pseudopotential's when its file name says, else the label's."""
    return pseudo_element(sp.pseudo) or label_element(sp.label)


def _number(value: Any) -> str:
    # Fixed point: qe-tools reads "1e-16" as nothing and "1.0e-16" as 1.0 (it drops exponents), and a phonopy
    # supercell's rounding noise comes out of repr() in exactly that form. 15 decimals are far below any tolerance.
    return f"{float(value):.15f}"


def _cell_text(pw: PwInput) -> str:
    """A minimal canonical pw.x text for qe-tools: only validated numbers, one dummy atom."""
    keys = ["ibrav", *[f"celldm({i})" for i in range(1, 7)], "a", "b", "c", "cosab", "cosac", "cosbc"]
    body = [f"  ibrav = {int(pw.values['system.ibrav'])}"]
    for k in keys[1:]:
        v = pw.values.get(f"system.{k}")
        if is_finite_number(v) and v != 0:
            body.append(f"  {k} = {_number(v)}")
    text = "&SYSTEM\n" + "\n".join(body) + "\n  nat = 1\n  ntyp = 1\n/\n"
    text += "ATOMIC_SPECIES\nX 1.0 X.UPF\nATOMIC_POSITIONS crystal\nX 0.0 0.0 0.0\n"
    if pw.cell is not None:
        text += f"CELL_PARAMETERS {_cell_unit(pw)}\n"
        text += "".join(" ".join(_number(x) for x in vec) + "\n" for vec in pw.cell.vectors)
    return text + "K_POINTS gamma\n"


def _alat_given(pw: PwInput) -> bool:
    return any(is_finite_number(pw.values.get(k)) and pw.values[k] != 0 for k in ("system.celldm(1)", "system.a"))


def _cell_unit(pw: PwInput) -> str:
    assert pw.cell is not None
    if pw.cell.unit != "none":
        return pw.cell.unit
    return "alat" if _alat_given(pw) else "bohr"  # cell_base_init


def pw_cell(pw: PwInput) -> np.ndarray:
    """The cell (rows = lattice vectors, Å) pw.x builds; SubmissionError naming the problem otherwise."""
    ibrav = pw.values.get("system.ibrav")
    if not isinstance(ibrav, int) or isinstance(ibrav, bool):
        raise SubmissionError(f"{pw.name}: ibrav is not set")
    if ibrav == 0 and pw.cell is None:
        raise SubmissionError(f"{pw.name}: ibrav=0 needs a CELL_PARAMETERS card")
    if ibrav != 0 and pw.cell is not None:
        raise SubmissionError(f"{pw.name}: redundant data for cell parameters (ibrav={ibrav} and CELL_PARAMETERS)")
    if pw.cell is not None and _cell_unit(pw) in ("bohr", "angstrom") and _alat_given(pw):
        raise SubmissionError(f"{pw.name}: lattice parameter specified twice (celldm(1) or A, and CELL_PARAMETERS)")
    if all(is_finite_number(pw.values.get(k)) and pw.values[k] != 0 for k in ("system.celldm(1)", "system.a")):
        raise SubmissionError(f"{pw.name}: do not specify both celldm and A, B, C")
    from qe_tools.parsers import PwInputFile

    try:
        parsed = PwInputFile(_cell_text(pw), validate_species_names=False)
        cell = np.array(parsed.structure["cell"], dtype=float)
    except Exception as exc:  # qe-tools raises many types (KeyError, InputValidationError...) on bad cells
        why = " ".join(f"{type(exc).__name__}: {exc}".split())
        raise SubmissionError(f"{pw.name}: no cell from ibrav={ibrav} and its parameters ({why})"[:400]) from None
    if ibrav == -9:
        # qe-tools 2.3.0 swaps v1 and v2 of ibrav=-9; pw.x 6.7 (latgen.f90) has v1=(a/2,-b/2,0), v2=(a/2,b/2,0).
        cell = cell[[1, 0, 2]]
    if cell.shape != (3, 3) or not np.all(np.isfinite(cell)) or abs(float(np.linalg.det(cell))) < 1e-6:
        raise SubmissionError(f"{pw.name}: the cell has no volume")
    return cell


def cell_heights(cell: np.ndarray) -> np.ndarray:
    """Distance (Å) between each pair of opposite faces: the volume over the area of the face of the other two."""
    volume = abs(float(np.linalg.det(cell)))
    return np.array([volume / np.linalg.norm(np.cross(cell[(i + 1) % 3], cell[(i + 2) % 3])) for i in range(3)])


def _alat_ang(pw: PwInput, cell: np.ndarray) -> float:
    if is_finite_number(pw.values.get("system.celldm(1)")) and pw.values["system.celldm(1)"] != 0:
        return float(pw.values["system.celldm(1)"]) * BOHR_TO_ANG
    if is_finite_number(pw.values.get("system.a")) and pw.values["system.a"] != 0:
        return float(pw.values["system.a"])
    return float(np.linalg.norm(cell[0]))  # ibrav=0 without celldm/A: alat = |a1|


_POSITION_SCALE = {"angstrom": lambda pw, cell: 1.0, "bohr": lambda pw, cell: BOHR_TO_ANG, "alat": _alat_ang}


def pw_structure(pw: PwInput) -> Structure:
    """Cell, atoms and starting magnetic moments as a pymatgen Structure in Å.

    The `magmom` site property holds the sign of each species' starting magnetization (±1, 0 when zero or
    when the run is not spin-polarised): starting_magnetization is a fraction of the valence charge, not a
    moment, so only the pattern of signs (the magnetic order) is comparable. Non-collinear runs give vectors
    along angle1/angle2.
    """
    if pw.positions is None:
        raise SubmissionError(f"{pw.name}: no readable ATOMIC_POSITIONS card")
    card_problems = [p.text() for p in pw.problems if set(p.involves) & {"ATOMIC_POSITIONS", "ATOMIC_SPECIES"}]
    if card_problems:
        raise SubmissionError(f"{pw.name}: " + "; ".join(card_problems[:3]))
    nat = len(pw.positions.labels)
    if nat > MAX_SITES:
        raise SubmissionError(f"{pw.name}: {nat} atoms is over the {MAX_SITES}-site limit of this grader")
    cell = pw_cell(pw)
    coords = np.array(pw.positions.coords, dtype=float).reshape(-1, 3)
    unit = pw.positions.unit
    if unit == "crystal":
        cart = coords @ cell
    else:
        cart = coords * _POSITION_SCALE[unit](pw, cell)
    by_label = {sp.label: (i + 1, sp) for i, sp in enumerate(pw.species)}
    elements = []
    for label in pw.positions.labels:
        element = species_element(by_label[label][1])
        if element is None:
            raise SubmissionError(f"{pw.name}: no element for species {label!r} (label or pseudopotential name)")
        elements.append(element)
    moments = _moments(pw, [by_label[label][0] for label in pw.positions.labels])
    from pymatgen.core.lattice import Lattice
    from pymatgen.core.structure import Structure

    return Structure(Lattice(cell), elements, cart, coords_are_cartesian=True, site_properties={"magmom": moments})


def _moments(pw: PwInput, species_index: list[int]) -> list[list[float]]:
    ev = Evaluator(pw.values)
    nspin, noncolin = ev.effective("system.nspin").value, ev.effective("system.noncolin").value
    per_species: dict[int, list[float]] = {}
    for idx in set(species_index):
        m = ev.effective(f"system.starting_magnetization({idx})").value
        sign = 0.0 if nspin == 1 or not is_finite_number(m) or abs(m) < 1e-6 else math.copysign(1.0, m)
        if noncolin:
            theta = math.radians(ev.effective(f"system.angle1({idx})").value or 0.0)
            phi = math.radians(ev.effective(f"system.angle2({idx})").value or 0.0)
            vec = [math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)]
            per_species[idx] = [sign * x for x in vec]
        else:
            per_species[idx] = [0.0, 0.0, sign]
    return [per_species[i] for i in species_index]
