"""The cards after the namelists, read as pw.x 6.7's read_cards does (only those that are graded in detail)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cmb.grading._compare import show
from cmb.grading.qe._defaults import CardSpec, qe_table
from cmb.grading.qe._infix import eval_infix
from cmb.grading.qe._input import CellCard, KPoints, Positions, Problem, Species
from cmb.grading.qe._lexer import INTEGER, REAL, fortran_real

CARD_LINE_CHARS = 256  # pw.x reads card lines as CHARACTER(256): anything beyond is cut off
MAX_KPOINTS = 40000  # pw.x's npk
_FIRST_WORD = re.compile(r"[^\s,/]*")


class CardState:
    """What the cards hold, and the problems and notes met reading them."""

    def __init__(self, lines: list[str], values: Mapping[str, Any]) -> None:
        self.lines = lines
        self.values = values
        self.species: list[Species] = []
        self.positions: Positions | None = None
        self.cell: CellCard | None = None
        self.kpoints: KPoints | None = None
        self.problems: list[Problem] = []
        self.notes: list[str] = []

    def problem(self, message: str, line: int | None, card: str) -> None:
        """Record a problem with a card on which pw.x stops."""
        self.problems.append(Problem(message, line, (card,)))

    def data_line(self, i: int) -> tuple[int, str | None]:
        """pw.x's read_line: the next line that is not blank and does not start with '#'."""
        while i < len(self.lines):
            line = self.lines[i][:CARD_LINE_CHARS]
            i += 1
            if line.strip() and not line.startswith("#"):
                return i, line
        return i, None

    def count(self, name: str) -> int | None:
        """An integer count of &SYSTEM (nat, ntyp), when the input gives one."""
        value = self.values.get(f"system.{name}")
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def _card_option(card: str, header: str, line: int, state: CardState) -> str | None:
    spec: CardSpec = getattr(qe_table().cards, card)
    upper = header.upper()
    for substring, option in spec.options:
        if substring in upper[len(card) :]:
            return option
    if header.strip() == card or spec.unknown_option == "bare":
        if header.strip() == card and card != "K_POINTS":
            meaning = spec.note or spec.bare
            state.notes.append(f"line {line}: {card} without units (deprecated): pw.x 6.7 assumes {meaning}")
        return spec.bare
    state.problem(f"unknown option for {card}: {show(header.strip())!r}", line, card)
    return None


def _list_items(line: str) -> list[str]:
    """Items of a Fortran list-directed READ: separated by blanks or commas, ending at '/'."""
    return [t for t in re.split(r"[\s,]+", line.split("/", 1)[0].strip()) if t]


def _read_species(state: CardState, header: str, i: int) -> int:
    line_no = i
    ntyp = state.count("ntyp")
    if ntyp is None or not 1 <= ntyp <= 10:
        state.problem("ATOMIC_SPECIES: system.ntyp must be set (1 to 10) to read it", line_no, "ATOMIC_SPECIES")
        return i
    for _ in range(ntyp):
        i, line = state.data_line(i)
        if line is None:
            state.problem("ATOMIC_SPECIES: end of file before all ntyp species", line_no, "ATOMIC_SPECIES")
            return i
        items = _list_items(line)
        mass = fortran_real(items[1]) if len(items) >= 3 else None
        if mass is None:
            state.problem(f"cannot read atomic species from {show(line.strip())!r}", i, "ATOMIC_SPECIES")
            continue
        label = items[0]
        if len(label) > 3:
            state.problem(f"species label {label!r} is longer than 3 characters (pw.x cuts it)", i, "ATOMIC_SPECIES")
            continue
        if any(s.label == label for s in state.species):
            state.problem(f"two occurrences of the same atomic label {label!r}", i, "ATOMIC_SPECIES")
            continue
        state.species.append(Species(label, mass, items[2], i))
    return i


def _read_positions(state: CardState, header: str, i: int) -> int:
    line_no = i
    unit = _card_option("ATOMIC_POSITIONS", header, line_no, state)
    if not state.species:
        state.problem("ATOMIC_SPECIES must be present before ATOMIC_POSITIONS", line_no, "ATOMIC_POSITIONS")
        return i
    nat = state.count("nat")
    if unit is None or nat is None or nat < 1:
        return i
    if unit == "crystal_sg":
        state.problem("crystal_sg (Wyckoff) positions are not supported by this grader", line_no, "ATOMIC_POSITIONS")
        return i
    labels: list[str] = []
    coords: list[tuple[float, float, float]] = []
    if_pos: list[tuple[int, int, int]] = []
    known = {s.label for s in state.species}
    for _ in range(nat):
        i, line = state.data_line(i)
        if line is None:
            state.problem("end of file reading atomic positions", line_no, "ATOMIC_POSITIONS")
            return i
        fields = line.split("!", 1)[0].split()
        if len(fields) not in (4, 7):
            state.problem("wrong number of columns in ATOMIC_POSITIONS", i, "ATOMIC_POSITIONS")
            continue
        xyz = [fortran_real(f) if REAL.match(f) else eval_infix(f) for f in fields[1:4]]
        if any(v is None for v in xyz):
            state.problem(f"cannot read a position from {show(line.strip())!r}", i, "ATOMIC_POSITIONS")
            continue
        if fields[0] not in known:
            state.problem(f"species {fields[0]} in ATOMIC_POSITIONS is nonexistent", i, "ATOMIC_POSITIONS")
            continue
        flags = (1, 1, 1)
        if len(fields) == 7:
            if not all(re.fullmatch(r"[+-]?\d+", f) for f in fields[4:7]):
                state.problem(f"if_pos must be integers in {show(line.strip())!r}", i, "ATOMIC_POSITIONS")
                continue
            flags = (int(fields[4]), int(fields[5]), int(fields[6]))
        labels.append(fields[0])
        coords.append((float(xyz[0]), float(xyz[1]), float(xyz[2])))  # type: ignore[arg-type]
        if_pos.append(flags)
    state.positions = Positions(unit, tuple(labels), tuple(coords), line_no, tuple(if_pos))
    return i


def _read_cell(state: CardState, header: str, i: int) -> int:
    line_no = i
    unit = _card_option("CELL_PARAMETERS", header, line_no, state) or "none"
    vectors: list[tuple[float, float, float]] = []
    for _ in range(3):
        i, line = state.data_line(i)
        items = _list_items(line) if line is not None else []
        nums = [fortran_real(t) for t in items[:3]]
        if len(nums) < 3 or any(v is None for v in nums):
            state.problem("CELL_PARAMETERS: three real numbers expected per line", i, "CELL_PARAMETERS")
            return i
        vectors.append((float(nums[0]), float(nums[1]), float(nums[2])))  # type: ignore[arg-type]
    state.cell = CellCard(unit, tuple(vectors), line_no)
    return i


def _read_kpoints(state: CardState, header: str, i: int) -> int:
    line_no = i
    kind = _card_option("K_POINTS", header, line_no, state) or "tpiba"
    upper = header.upper()
    if kind in ("tpiba", "crystal"):
        kind += "_b" if "_B" in upper else "_c" if "_C" in upper else ""
    if kind == "gamma":
        state.kpoints = KPoints("gamma", line=line_no)
        return i
    i, line = state.data_line(i)
    items = _list_items(line) if line is not None else []
    if kind == "automatic":
        ints = [int(t) if INTEGER.match(t) and len(t) < 10 else None for t in items[:6]]
        if len(ints) < 6 or any(v is None for v in ints):
            state.problem("K_POINTS automatic: six integers nk1 nk2 nk3 k1 k2 k3 expected", i, "K_POINTS")
            return i
        nk1, nk2, nk3, k1, k2, k3 = (int(v) for v in ints)  # type: ignore[arg-type]
        if min(nk1, nk2, nk3) <= 0:
            state.problem("invalid values for nk1, nk2, nk3", i, "K_POINTS")
            return i
        if any(k not in (0, 1) for k in (k1, k2, k3)):
            state.problem("invalid offsets: must be 0 or 1", i, "K_POINTS")
            return i
        state.kpoints = KPoints("automatic", (nk1, nk2, nk3), (k1, k2, k3), line=line_no)
        return i
    if not items or not INTEGER.match(items[0]) or len(items[0]) > 9:
        state.problem("K_POINTS: the number of k-points is missing", i, "K_POINTS")
        return i
    nks = int(items[0])
    if not 1 <= nks <= MAX_KPOINTS:
        state.problem(f"K_POINTS: {nks} k-points (1 to {MAX_KPOINTS} allowed)", i, "K_POINTS")
        return i
    points: list[tuple[float, float, float, float]] = []
    for _ in range(nks):
        i, line = state.data_line(i)
        nums = [fortran_real(t) for t in (_list_items(line) if line is not None else [])[:4]]
        if len(nums) < 4 or any(v is None for v in nums):
            state.problem("K_POINTS: x y z weight expected for each k-point", i, "K_POINTS")
            return i
        points.append(tuple(float(v) for v in nums))  # type: ignore[arg-type]
    state.kpoints = KPoints(kind, points=tuple(points), line=line_no)
    return i


_CARD_READERS = {
    "ATOMIC_SPECIES": _read_species,
    "ATOMIC_POSITIONS": _read_positions,
    "CELL_PARAMETERS": _read_cell,
    "K_POINTS": _read_kpoints,
}


def read_cards(lines: list[str], start: int, values: Mapping[str, Any]) -> CardState:
    state = CardState(lines, values)
    known = qe_table().cards.known
    prefixes = tuple(known)
    seen: set[str] = set()
    ignored = 0
    i = start
    while i < len(lines):
        line = lines[i][:CARD_LINE_CHARS]
        i += 1
        stripped = line.strip()
        if not stripped or line[0] in "#!":
            continue
        m = _FIRST_WORD.match(stripped)
        first = m.group(0) if m is not None else stripped
        if first in known:
            if first in seen:
                state.problem(f"card {first} appears twice", i, first)
                continue
            seen.add(first)
            reader = _CARD_READERS.get(first)
            if reader is not None:
                i = reader(state, line, i)
            continue
        ignored += 1
        if ignored > 10:
            continue  # enough said; the rest is skipped as pw.x skips it
        upper = first.upper()
        if upper.startswith(prefixes):
            hint = next(k for k in known if upper.startswith(k))
            state.notes.append(
                f"line {i}: {show(first)!r} is not a card for pw.x 6.7, which ignores it (write {hint} in upper "
                "case, followed by a blank before its option)"
            )
        else:
            state.notes.append(f"line {i}: ignored by pw.x ({show(stripped)!r})")
    if state.kpoints is None and "K_POINTS" not in seen:
        state.kpoints = KPoints("gamma", absent=True)
    for card in ("ATOMIC_SPECIES", "ATOMIC_POSITIONS"):
        if card not in seen:
            state.problems.append(Problem(f"card {card} is missing", None, (card,)))
    return state
