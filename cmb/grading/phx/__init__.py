"""Quantum ESPRESSO ph.x 6.7 inputs, graded on what ph.x would do with them.

Importing the package registers the `phx.*` check types.
"""

from cmb.grading.phx import _checks  # noqa: F401  (registers the check types)
from cmb.grading.phx._reader import (
    Effective,
    PhInput,
    PhInputError,
    defaults,
    parse_ph_input,
    pw_control,
    same_folder,
)

__all__ = ["Effective", "PhInput", "PhInputError", "defaults", "parse_ph_input", "pw_control", "same_folder"]
