"""The header counts, box and Masses section of a LAMMPS data file (what read_data sets)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cmb.grading.lammps._state import FLOAT, Unknown, parse_number


@dataclass
class DataFile:
    """The header and Masses of a LAMMPS data file."""

    ntypes: int | Unknown
    natoms: int | Unknown
    bounds: tuple[float, ...] | Unknown
    masses: list[tuple[int, float]]


_HEADER = {
    "atoms": re.compile(r"(\d{1,18})\s+atoms"),
    "atom types": re.compile(r"(\d{1,18})\s+atom\s+types"),
    "x": re.compile(r"(\S+)\s+(\S+)\s+xlo\s+xhi"),
    "y": re.compile(r"(\S+)\s+(\S+)\s+ylo\s+yhi"),
    "z": re.compile(r"(\S+)\s+(\S+)\s+zlo\s+zhi"),
}


def parse_data_file(text: str, name: str) -> DataFile:
    """Read the header counts, box and Masses section of a data file (first line is a title)."""
    lines = text.split("\n")
    found: dict[str, tuple[str, ...]] = {}
    i = 1
    while i < len(lines):
        line = lines[i].split("#", 1)[0].strip()
        if line and line[0].isalpha():
            break  # first section keyword ends the header
        for key, rx in _HEADER.items():
            m = rx.fullmatch(line)
            if m:
                found[key] = m.groups()
        i += 1
    ntypes: int | Unknown = Unknown(f"{name}: no 'atom types' line in the header")
    if "atom types" in found:
        ntypes = int(found["atom types"][0])
    natoms: int | Unknown = Unknown(f"{name}: no 'atoms' line in the header")
    if "atoms" in found:
        natoms = int(found["atoms"][0])
    bounds: tuple[float, ...] | Unknown = Unknown(f"{name}: box bounds missing or not numbers")
    numbers = [parse_number(v) for k in "xyz" for v in found.get(k, ("?", "?"))]
    if all(v is not None for v in numbers):
        bounds = tuple(v for v in numbers if v is not None)
    masses: list[tuple[int, float]] = []
    while i < len(lines):
        if lines[i].split("#", 1)[0].strip() == "Masses":
            i += 1
            while i < len(lines):
                words = lines[i].split("#", 1)[0].split()
                if words and words[0][0].isalpha():
                    break
                if len(words) >= 2 and re.fullmatch(r"\d{1,18}", words[0]) and FLOAT.fullmatch(words[1]):
                    masses.append((int(words[0]), float(words[1])))
                i += 1
            break
        i += 1
    return DataFile(ntypes, natoms, bounds, masses)
