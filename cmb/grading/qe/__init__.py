"""Check family `qe`: Quantum ESPRESSO pw.x inputs, graded by the values pw.x 6.7 will actually use.

An agent's input is judged by its *effective* settings: what pw.x 6.7 runs with once its defaults and its
conditional rules are applied (ecutrho absent = 4 × ecutwfc; tprnfor forced on for relax; smearing ignored
unless occupations='smearing'; vdw_corr='d3' silently means no correction). Those rules live as data in
`qe67_defaults.yaml`, each with its source, resolved by the shared procedure of `cmb.grading.settings`.

Modules: `_defaults` (the table), `_input` (the parsed input), `_lexer` and `_namelists` (gfortran namelist input),
`_cards`, `_infix` (arithmetic in positions), `_reader` (parse_pw_input), `_evaluator` (effective values and
what pw.x stops on), `_cell` (elements, cell, structure), `_targets` (settings named by checks), `_checks`
(qe.valid, qe.param, qe.kpoints, qe.species, qe.structure), `_slab` (qe.dipole_correction,
qe.constraints), `_box` (qe.box).
"""

from cmb.grading.qe._box import BoxParams
from cmb.grading.qe._cell import (
    cell_heights,
    functional_family,
    label_element,
    pseudo_element,
    pseudo_functional,
    pw_cell,
    pw_structure,
)
from cmb.grading.qe._checks import KPointsParams, ParamParams, QeStructureParams, SpeciesParams, ValidParams
from cmb.grading.qe._defaults import QeTable, VarSpec, qe_table
from cmb.grading.qe._evaluator import Evaluator, PwValue, effective_value, fatal_problems
from cmb.grading.qe._infix import eval_infix
from cmb.grading.qe._input import KPoints, PwInput
from cmb.grading.qe._reader import MAX_LINES, parse_pw_input, read_pw_input
from cmb.grading.qe._slab import DipoleParams
from cmb.grading.qe._targets import SettingRef, canonical_expected, resolve_setting

__all__ = [
    "MAX_LINES",
    "BoxParams",
    "DipoleParams",
    "Evaluator",
    "KPoints",
    "KPointsParams",
    "ParamParams",
    "PwInput",
    "PwValue",
    "QeStructureParams",
    "QeTable",
    "SettingRef",
    "SpeciesParams",
    "ValidParams",
    "VarSpec",
    "canonical_expected",
    "effective_value",
    "eval_infix",
    "fatal_problems",
    "cell_heights",
    "functional_family",
    "label_element",
    "parse_pw_input",
    "pseudo_element",
    "pseudo_functional",
    "pw_cell",
    "pw_structure",
    "qe_table",
    "read_pw_input",
    "resolve_setting",
]
