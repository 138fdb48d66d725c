"""A pw.x input as pw.x 6.7 reads it: settings by namelist, the cards, and what pw.x would stop on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_PROBLEMS = 50  # problems kept for one input; past them, reading stops


@dataclass(frozen=True)
class Problem:
    """Something in the input on which pw.x 6.7 stops."""

    message: str
    line: int | None = None
    involves: tuple[str, ...] = ()

    def text(self) -> str:
        """The message with its line number."""
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True)
class Species:
    """One ATOMIC_SPECIES line."""

    label: str
    mass: float
    pseudo: str
    line: int


@dataclass(frozen=True)
class Positions:
    """The ATOMIC_POSITIONS card."""

    unit: str
    labels: tuple[str, ...]
    coords: tuple[tuple[float, float, float], ...]
    line: int
    # if_pos per atom: 1 lets pw.x move that Cartesian force component, 0 holds it (1 1 1 on 4-column lines)
    if_pos: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class CellCard:
    """The CELL_PARAMETERS card ('none' = no unit given)."""

    unit: str
    vectors: tuple[tuple[float, float, float], ...]
    line: int


@dataclass(frozen=True)
class KPoints:
    """The K_POINTS card: kind is automatic, gamma, tpiba, crystal, tpiba_b, crystal_b, tpiba_c or crystal_c."""

    kind: str
    mesh: tuple[int, int, int] | None = None
    shift: tuple[int, int, int] | None = None
    points: tuple[tuple[float, float, float, float], ...] = ()
    absent: bool = False
    line: int | None = None


@dataclass(frozen=True)
class PwInput:
    """A pw.x input as pw.x 6.7 reads it."""

    name: str
    values: Mapping[str, Any]  # 'system.ecutwfc' -> 30.0, 'system.celldm(1)' -> 10.26, as typed by pw.x
    lines: Mapping[str, int]
    namelists: tuple[str, ...]  # namelists read, in order
    species: tuple[Species, ...]
    positions: Positions | None
    cell: CellCard | None
    kpoints: KPoints | None
    problems: tuple[Problem, ...]  # reading problems on which pw.x stops
    notes: tuple[str, ...]  # things pw.x ignores or warns about


def element_key(base: str, index: tuple[int, ...] | None) -> str:
    """The key of one array element: system.celldm(1); a scalar's key is its name."""
    return base if index is None else f"{base}({','.join(map(str, index))})"


def split_key(key: str) -> tuple[str, str | None]:
    """'system.celldm(1)' -> ('system.celldm', '1')."""
    base, _, rest = key.partition("(")
    return base, (rest[:-1] if rest else None)
