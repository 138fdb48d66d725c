"""Check family `lammps`: the effective settings of a LAMMPS input script, read without running LAMMPS.

The grader never runs the script: LAMMPS scripts can run `shell` and `python` commands, so even `run 0`
would execute agent code. Instead a small interpreter follows the part of LAMMPS that decides what a run
would use: line continuation, comments, quotes, variables and `$` substitution (numeric formulas are
evaluated by a tiny parser, never by `eval`), `include` of files inside the submission, loops built from
`label`/`jump`/`next`, `if` when its condition is statically known, and the defaults of LAMMPS (tabled in
`lammps_defaults.yaml`). It records the state at every `run` and `minimize` (a *stage*); checks read a
setting at the last stage (or at every/any stage), so a fix defined after the last run never counts. A
setting at a stage is reported in the shared model of `cmb.grading.settings` (`effective`): set by a command,
LAMMPS's default, or the default of the unit style.

What cannot be known splits three ways:
- LAMMPS itself would stop (undefined variable, `units` after the box exists, wrong number of elements in a
  many-body `pair_coeff` ...): every check on the script fails with that message;
- the grader cannot follow the script (a file outside the submission, nesting or loops past the limits):
  every check fails, saying so;
- a value is known only at run time, or control flow depends on one: only the settings it may change become
  `Unknown`, and only the checks that read them fail.

Modules: `_defaults` (the table), `_state` (values, records, errors), `_lines`, `_formula`, `_interpreter`,
`_commands` and `_control` (the command handlers), `_data_file`, `_lookup` (settings by path), `_compare`,
`_checks` (lammps.setting, lammps.pair_coeff, lammps.fix, lammps.no_fix), `_neb` (lammps.neb_coords, the
final replica of an NEB run).
"""

from cmb.grading.lammps._checks import FixParams, NoFixParams, PairCoeffParams, SettingParams
from cmb.grading.lammps._compare import compare
from cmb.grading.lammps._data_file import DataFile, parse_data_file
from cmb.grading.lammps._defaults import base_style, tables
from cmb.grading.lammps._interpreter import interpret
from cmb.grading.lammps._lines import logical_lines, split_words
from cmb.grading.lammps._lookup import ElementMap, effective, element_map, lookup
from cmb.grading.lammps._neb import NebCoordsParams, parse_neb_coords
from cmb.grading.lammps._state import Absent, Script, Stage, Unknown, parse_number, type_bounds

__all__ = [
    "Absent",
    "DataFile",
    "ElementMap",
    "FixParams",
    "NebCoordsParams",
    "NoFixParams",
    "PairCoeffParams",
    "Script",
    "SettingParams",
    "Stage",
    "Unknown",
    "base_style",
    "compare",
    "effective",
    "element_map",
    "interpret",
    "logical_lines",
    "lookup",
    "parse_data_file",
    "parse_neb_coords",
    "parse_number",
    "split_words",
    "tables",
    "type_bounds",
]
