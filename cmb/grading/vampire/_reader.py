"""Reading a VAMPIRE deck as VAMPIRE reads it: the main input file, the material file and the unit-cell file.

The rules (tokenisation, units, defaults, how atoms get their materials) are those of the VAMPIRE source; the
defaults live in vampire_defaults.yaml beside this module, each with the source file it comes from.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml

DEFAULTS_FILE = Path(__file__).with_name("vampire_defaults.yaml")
MAX_UCF_ATOMS = 2000
MAX_INTERACTIONS = 200000


class VampireInputError(ValueError):
    """A deck VAMPIRE would refuse or misread; the message says why."""


@cache
def defaults() -> dict[str, Any]:
    """The defaults and unit tables of vampire_defaults.yaml."""
    data = yaml.safe_load(DEFAULTS_FILE.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("version") != 1:
        raise RuntimeError(f"{DEFAULTS_FILE}: unexpected layout")
    return data


@dataclass(frozen=True)
class Statement:
    """One `key:word = value !unit` line (material lines carry their [index] and [sub-index])."""

    key: str
    word: str
    value: str
    unit: str
    line: int
    index: int | None = None
    sub_index: int | None = None

    @property
    def name(self) -> str:
        return f"{self.key}:{self.word}"


def _clean(line: str, drop_quotes: bool) -> str:
    line = line.split("#", 1)[0]
    for ch in " \t\r" + ('"' if drop_quotes else ""):
        line = line.replace(ch, "")
    return line


def parse_input(text: str) -> list[Statement]:
    """The main input file: blanks removed, '#' starts a comment, fields split at ':', '=' and '!'."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = _clean(raw, drop_quotes=False)
        tokens = [t for t in re.split(r"[:=!]", line) if t]
        if not tokens:
            continue
        key, word, value, unit = (tokens + ["", "", "", ""])[:4]
        out.append(Statement(key, word, value.replace('"', ""), unit, n))
    return out


_MAT_LINE = re.compile(
    r"^(?P<key>[^:=!\[\]]+)(?:\[(?P<index>[^\]]*)\])?(?::(?P<word>[^:=!\[\]]*)(?:\[(?P<sub>[^\]]*)\])?)?"
    r"(?:=(?P<value>[^=!]*))?(?:!(?P<unit>.*))?$"
)


def _index(text: str | None, line: int, what: str) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise VampireInputError(f"material file line {line}: {what} [{text}] is not an integer") from None
    if not 1 <= value <= 100:
        raise VampireInputError(f"material file line {line}: {what} {value} is outside 1-100")
    return value


def parse_material_file(text: str) -> list[Statement]:
    """The material file: `material[n]:keyword[m] = value !unit`, quotes and blanks removed."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = _clean(raw, drop_quotes=True)
        if not line:
            continue
        m = _MAT_LINE.match(line)
        if m is None:
            raise VampireInputError(f"material file line {n}: cannot read {raw.strip()[:60]!r}")
        out.append(
            Statement(
                m["key"],
                m["word"] or "",
                m["value"] or "",
                m["unit"] or "",
                n,
                _index(m["index"], n, "material index"),
                _index(m["sub"], n, "sub-index"),
            )
        )
    return out


def to_internal(value: str, unit: str, unit_type: str, where: str) -> float:
    """A number converted to VAMPIRE's internal units (A, J, J/T) as units::convert does."""
    try:
        number = float(value)
    except ValueError:
        raise VampireInputError(f"{where}: {value!r} is not a number") from None
    table = defaults()["units"]
    for kind, units in table.items():
        if unit in units and (unit == "" or kind == unit_type or unit_type == "none" and kind == "none"):
            return number * float(units[unit])
    found = next((k for k, u in table.items() if unit in u and unit), None)
    if found is not None:
        raise VampireInputError(f"{where}: unit !{unit} is a {found} unit, not a {unit_type} unit")
    raise VampireInputError(f"{where}: !{unit} is not a unit VAMPIRE knows")


# ------------------------------------------------------------------------------------------------ unit-cell file


@dataclass(frozen=True)
class UcfAtom:
    """One atom of the unit cell: fractional position, material (from 0) and layer/height categories."""

    id: int
    frac: tuple[float, float, float]
    mat: int
    lcat: int
    hcat: int


@dataclass(frozen=True)
class Interaction:
    """One directed exchange term i -> j in cell (dx, dy, dz), as a 3x3 tensor (file units)."""

    i: int
    j: int
    cell: tuple[int, int, int]
    tensor: tuple[tuple[float, float, float], ...]
    line: int

    @property
    def isotropic(self) -> float:
        return (self.tensor[0][0] + self.tensor[1][1] + self.tensor[2][2]) / 3.0


@dataclass
class UnitCell:
    """A VAMPIRE unit-cell file."""

    size: tuple[float, float, float]
    shape: np.ndarray
    atoms: list[UcfAtom]
    exchange_type: str
    interactions: list[Interaction] = field(default_factory=list)

    @property
    def lattice(self) -> np.ndarray:
        """The cell VAMPIRE builds: the three sizes along x, y and z (it ignores the shape lines)."""
        return np.diag(self.size)

    def cart(self, atom: UcfAtom, cell: tuple[int, int, int] = (0, 0, 0)) -> np.ndarray:
        out: np.ndarray = (np.asarray(atom.frac) + np.asarray(cell)) * np.asarray(self.size)
        return out


def _numbers(line: str, count: int, what: str, n: int) -> list[float]:
    tokens = line.split()
    if len(tokens) < count:
        raise VampireInputError(f"unit-cell file line {n}: expected {count} numbers for {what}")
    try:
        return [float(t) for t in tokens[:count]]
    except ValueError:
        raise VampireInputError(f"unit-cell file line {n}: {what} is not numeric") from None


def parse_ucf(text: str, num_materials: int) -> UnitCell:
    """The unit-cell file, with the checks VAMPIRE makes on reading it (ranges, symmetric interactions)."""
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip() and "#" not in ln]
    if len(lines) < 6:
        raise VampireInputError("unit-cell file: too short (sizes, three shape lines, atom count, atoms)")
    size = tuple(_numbers(lines[0][1], 3, "the cell sizes", lines[0][0]))
    if any(not 0.1 <= s <= 1e7 for s in size):
        raise VampireInputError("unit-cell file: cell sizes must be 0.1 A - 1 mm")
    shape = np.array([_numbers(lines[k][1], 3, "a shape vector", lines[k][0]) for k in (1, 2, 3)])
    n_line, count_line = lines[4]
    try:
        n_atoms = int(count_line.split()[0])
    except (ValueError, IndexError):
        raise VampireInputError(f"unit-cell file line {n_line}: no atom count") from None
    if not 1 <= n_atoms <= MAX_UCF_ATOMS:
        raise VampireInputError(f"unit-cell file: {n_atoms} atoms is outside 1-{MAX_UCF_ATOMS}")
    body = lines[5:]
    if len(body) < n_atoms:
        raise VampireInputError(f"unit-cell file: {n_atoms} atoms announced, {len(body)} lines follow")
    atoms = []
    for n, ln in body[:n_atoms]:
        tokens = ln.split()
        try:
            ident, cx, cy, cz = int(tokens[0]), *(float(t) for t in tokens[1:4])
            rest = [int(t) for t in tokens[4:7]] + [0, 0, 0]
        except (ValueError, IndexError):
            raise VampireInputError(f"unit-cell file line {n}: expected 'id cx cy cz mat lcat hcat'") from None
        if not all(0.0 <= c <= 1.0 for c in (cx, cy, cz)):
            raise VampireInputError(f"unit-cell file line {n}: fractional coordinates must lie in 0-1")
        if not 0 <= rest[0] < num_materials:
            raise VampireInputError(
                f"unit-cell file line {n}: material id {rest[0]} but the material file defines {num_materials} "
                "(ids count from 0)"
            )
        atoms.append(UcfAtom(ident, (cx, cy, cz), rest[0], rest[1], rest[2]))
    cell = UnitCell(size, shape, atoms, "none")  # type: ignore[arg-type]
    rest_lines = body[n_atoms:]
    if not rest_lines:
        return cell
    n, header = rest_lines[0]
    tokens = header.split()
    try:
        n_int = int(tokens[0])
        kind = tokens[1]
    except (ValueError, IndexError):
        raise VampireInputError(f"unit-cell file line {n}: expected 'number-of-interactions type'") from None
    base = kind.removeprefix("normalised-")
    width = defaults()["exchange_types"].get(base)
    if width is None:
        raise VampireInputError(f"unit-cell file line {n}: exchange type {kind!r} is not isotropic/vectorial/tensorial")
    if not 0 <= n_int <= MAX_INTERACTIONS or len(rest_lines) - 1 < n_int:
        raise VampireInputError(f"unit-cell file: {n_int} interactions announced, {len(rest_lines) - 1} lines follow")
    cell.exchange_type = kind
    for n, ln in rest_lines[1 : n_int + 1]:
        tokens = ln.split()
        try:
            i, j, dx, dy, dz = (int(t) for t in tokens[1:6])
            values = [float(t) for t in tokens[6 : 6 + width]]
        except ValueError:
            raise VampireInputError(f"unit-cell file line {n}: expected 'id i j dx dy dz J...'") from None
        if len(values) < width or not all(math.isfinite(v) for v in values):
            raise VampireInputError(f"unit-cell file line {n}: {kind} exchange needs {width} finite values")
        if not (0 <= i < n_atoms and 0 <= j < n_atoms):
            raise VampireInputError(f"unit-cell file line {n}: atom index outside 0-{n_atoms - 1}")
        if width == 1:
            t = ((values[0], 0.0, 0.0), (0.0, values[0], 0.0), (0.0, 0.0, values[0]))
        elif width == 3:
            t = ((values[0], 0.0, 0.0), (0.0, values[1], 0.0), (0.0, 0.0, values[2]))
        else:
            t = (tuple(values[0:3]), tuple(values[3:6]), tuple(values[6:9]))  # type: ignore[assignment]
        cell.interactions.append(Interaction(i, j, (dx, dy, dz), t, n))
    keys = {(x.i, x.j, x.cell) for x in cell.interactions}
    missing = [x for x in cell.interactions if (x.j, x.i, (-x.cell[0], -x.cell[1], -x.cell[2])) not in keys]
    if missing:
        x = missing[0]
        raise VampireInputError(
            f"unit-cell file line {x.line}: interaction {x.i} -> {x.j} in cell {x.cell} has no reverse "
            f"({len(missing)} such); VAMPIRE stops on asymmetric interaction lists"
        )
    return cell


# ------------------------------------------------------------------------------------------------ the deck


@dataclass(frozen=True)
class Effective:
    """The value VAMPIRE uses for a setting, and where it comes from."""

    name: str
    value: Any
    origin: str

    def describe(self) -> str:
        return f"{self.name} = {self.value!r} ({self.origin})"


@dataclass
class Deck:
    """The three files of a VAMPIRE run, read as VAMPIRE reads them."""

    input: list[Statement]
    input_name: str
    material_name: str | None
    materials: list[Statement]
    ucf_name: str | None
    ucf: UnitCell | None

    @property
    def num_materials(self) -> int:
        return num_materials(self.materials)

    # -------------------------------------------------------------------------------------------- input settings

    def statements(self, name: str) -> list[Statement]:
        return [s for s in self.input if s.name == name]

    def setting(self, name: str) -> Effective:
        """Effective value of a main-input setting (the last statement wins), VAMPIRE's default otherwise."""
        spec = defaults()["input"].get(name)
        found = self.statements(name)
        if spec is None:
            if not found:
                return Effective(name, None, "not set (no default known to the grader)")
            s = found[-1]
            return Effective(name, s.value or True, f"{self.input_name} line {s.line}")
        if not found:
            return Effective(name, spec["default"], "VAMPIRE default")
        s = found[-1]
        where = f"{self.input_name} line {s.line}"
        return Effective(name, _typed(spec, s, where), where)

    # -------------------------------------------------------------------------------------------- materials

    def material(self, index: int, word: str) -> Effective:
        """Effective value of material[index]:word (index from 1)."""
        spec = defaults()["material"].get(word, {"type": "keyword", "default": None})
        found = [s for s in self.materials if s.index == index and s.word == word and s.sub_index is None]
        name = f"material[{index}]:{word}"
        if not found:
            return Effective(name, spec["default"], "VAMPIRE default")
        s = found[-1]
        where = f"{self.material_name} line {s.line}"
        return Effective(name, _typed(spec, s, where), where)

    def exchange_matrix(self, i: int, j: int) -> float:
        """material[i]:exchange-matrix[j] in joules (for normalised exchange types), 0 if not given."""
        found = [s for s in self.materials if s.index == i and s.word == "exchange-matrix" and s.sub_index == j]
        if not found:
            return 0.0
        s = found[-1]
        return to_internal(s.value, s.unit, "energy", f"{self.material_name} line {s.line}")

    def select_by_height(self) -> Effective:
        """Whether materials are reassigned by height (and unit-cell category): create/interface.cpp."""
        flag = self.setting("create:select-material-by-height")
        heights = [s for s in self.materials if s.word in ("minimum-height", "maximum-height")]
        if heights:
            s = heights[0]
            return Effective("material selection by height", True, f"{self.material_name} line {s.line} ({s.word})")
        return Effective("material selection by height", bool(flag.value), flag.origin)

    # -------------------------------------------------------------------------------------------- the crystal

    def site_materials(self) -> tuple[list[int], str]:
        """Material (from 1) of each unit-cell atom in the crystal VAMPIRE builds, and how it was decided.

        Atoms start with the material of their unit-cell line (cs_create_crystal_structure2.cpp: that is also
        their unit-cell category). With selection by height (layers.cpp), every material whose height window
        holds the atom and whose unit-cell-category equals the atom's category claims it, the last one winning.
        """
        if self.ucf is None:
            raise VampireInputError("no unit-cell file: the sublattices cannot be built")
        mats = [a.mat + 1 for a in self.ucf.atoms]
        select = self.select_by_height()
        if not select.value:
            return mats, "each atom keeps the material of its unit-cell line (no selection by height)"
        windows = {}
        for m in range(1, self.num_materials + 1):
            lo = float(self.material(m, "minimum-height").value)
            hi = float(self.material(m, "maximum-height").value)
            if lo > 0.0 or hi < 1.0:
                raise VampireInputError(
                    f"material[{m}] fills only heights {lo:g}-{hi:g} of the system: a layered system, not the bulk "
                    "crystal of the unit cell"
                )
            windows[m] = int(self.material(m, "unit-cell-category").value) - 1
        out = []
        for atom in self.ucf.atoms:
            owner = atom.mat + 1
            for m, category in windows.items():
                if category == atom.mat:
                    owner = m  # layers.cpp: the last material of the atom's category wins
            out.append(owner)
        unclaimed = sorted({a.mat + 1 for a in self.ucf.atoms} - {c + 1 for c in windows.values()})
        note = (
            f"materials reassigned by height ({select.origin}): each material claims the atoms of its "
            "unit-cell-category"
        )
        if unclaimed:
            note += (
                f"; no material has unit-cell-category {', '.join(map(str, unclaimed))}, so those atoms are "
                "claimed by no material of their own"
            )
        return out, note

    def spins(self) -> tuple[list[np.ndarray], list[int], str]:
        """Initial unit spin of each unit-cell atom, its material, and how the materials were decided."""
        mats, note = self.site_materials()
        vectors = []
        for m in mats:
            eff = self.material(m, "initial-spin-direction")
            if eff.value == "random":
                raise VampireInputError(f"{eff.name} is random: no ordered starting state")
            v = np.asarray(eff.value, dtype=float)
            norm = float(np.linalg.norm(v))
            if norm == 0:
                raise VampireInputError(f"{eff.describe()}: a zero vector")
            vectors.append(v / norm)
        return vectors, mats, note


def num_materials(statements: list[Statement]) -> int:
    found = [s for s in statements if s.index is None and s.word == "num-materials"]
    if not found:
        return 1
    try:
        n = int(found[-1].value)
    except ValueError:
        raise VampireInputError(f"material file line {found[-1].line}: num-materials is not an integer") from None
    if not 1 <= n <= 100:
        raise VampireInputError(f"material file line {found[-1].line}: num-materials must be 1-100")
    return n


def _typed(spec: dict[str, Any], s: Statement, where: str) -> Any:
    kind = spec["type"]
    if kind == "flag":
        return s.value.lower() != "false"
    if kind == "keyword":
        return s.value
    if kind == "int":
        try:
            return int(float(s.value))
        except ValueError:
            raise VampireInputError(f"{where}: {s.name} = {s.value!r} is not an integer") from None
    if kind == "vector":
        if s.value == "random":
            return "random"
        try:
            vec = [float(t) for t in s.value.split(",")]
        except ValueError:
            raise VampireInputError(f"{where}: {s.name} = {s.value!r} is not 'x,y,z'") from None
        if len(vec) != 3:
            raise VampireInputError(f"{where}: {s.name} needs three components")
        return vec
    value = to_internal(s.value, s.unit, spec.get("unit_type", "none"), where)
    if spec.get("unit_type") == "moment" and not 0.1 * 9.24e-24 <= value <= 1e8 * 9.24e-24:
        raise VampireInputError(
            f"{where}: {s.name} = {s.value} {('!' + s.unit) if s.unit else '(no unit: J/T)'} is outside "
            "0.1-1e8 muB; VAMPIRE stops (give the moment with !muB)"
        )
    return value


def read_deck(read_text: Any, input_name: str) -> Deck:
    """The deck whose main input file is `input_name`; `read_text(name)` reads a file of the submission."""
    statements = parse_input(read_text(input_name))
    folder = str(Path(input_name).parent)

    def beside(name: str) -> str:
        return name if folder in ("", ".") else f"{folder}/{name}"

    mat_name = next((s.value for s in reversed(statements) if s.name == "material:file"), None)
    materials = parse_material_file(read_text(beside(mat_name))) if mat_name else []
    ucf_name = next((s.value for s in reversed(statements) if s.name == "material:unit-cell-file"), None)
    deck = Deck(statements, input_name, beside(mat_name) if mat_name else None, materials, None, None)
    if ucf_name:
        deck.ucf_name = beside(ucf_name)
        deck.ucf = parse_ucf(read_text(deck.ucf_name), deck.num_materials)
    return deck


# ------------------------------------------------------------------------------------------------ geometry


@dataclass(frozen=True)
class Pair:
    """A neighbour of unit-cell atom i: atom j in cell `cell`, at distance `r` (A)."""

    i: int
    j: int
    cell: tuple[int, int, int]
    r: float


def neighbours(cell: UnitCell, r_max: float) -> list[Pair]:
    """Every pair i -> j (j in any periodic image) closer than r_max, in the orthogonal cell VAMPIRE builds."""
    size = np.asarray(cell.size)
    reach = [int(math.ceil(r_max / s)) + 1 for s in size]
    out = []
    for ia, a in enumerate(cell.atoms):
        ra = cell.cart(a)
        for ja, b in enumerate(cell.atoms):
            for off in itertools.product(*(range(-n, n + 1) for n in reach)):
                if ia == ja and off == (0, 0, 0):
                    continue
                r = float(np.linalg.norm(cell.cart(b, off) - ra))  # type: ignore[arg-type]
                if r < r_max:
                    out.append(Pair(ia, ja, off, r))  # type: ignore[arg-type]
    return out
