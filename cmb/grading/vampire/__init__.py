"""VAMPIRE decks (main input, material and unit-cell files), graded on what VAMPIRE would do with them.

Importing the package registers the `vampire.*` check types.
"""

from cmb.grading.vampire import _checks  # noqa: F401  (registers the check types)
from cmb.grading.vampire._reader import (
    Deck,
    Effective,
    UnitCell,
    VampireInputError,
    defaults,
    parse_input,
    parse_material_file,
    parse_ucf,
    read_deck,
)

__all__ = [
    "Deck",
    "Effective",
    "UnitCell",
    "VampireInputError",
    "defaults",
    "parse_input",
    "parse_material_file",
    "parse_ucf",
    "read_deck",
]
