"""Check family `vasp`: VASP input files graded without running VASP.

What is graded is the value VASP would *use*: a tag missing from the INCAR takes VASP's own default, and
several defaults depend on other tags (NSW = 10 without IBRION means molecular dynamics, IBRION = 0). Those
defaults are data (`vasp_defaults.yaml`, each entry citing the VASP wiki), resolved by the shared procedure of
`cmb.grading.settings`; defaults that come from the POTCAR are computed from its header when one is submitted
and otherwise reported as unverifiable rather than guessed.

Modules: `_values` (INCAR values as VASP reads them), `_incar` (the INCAR reader), `_potcar`, `_kpoints`,
`_files` (one calculation's files), `_defaults` (the table), `_resolver` (effective values), `_checks` (the
check types vasp.incar, vasp.kpoints, vasp.poscar, vasp.potcar).
"""

from cmb.grading.vasp._checks import IncarParams, KpointsParams, PoscarParams, PotcarParams
from cmb.grading.vasp._defaults import TagSpec, vasp_defaults
from cmb.grading.vasp._files import InputFiles
from cmb.grading.vasp._incar import Incar, parse_incar
from cmb.grading.vasp._kpoints import KpointSet, kspacing_mesh, parse_kpoints
from cmb.grading.vasp._potcar import PotcarInfo, parse_potcar, parse_potcar_spec
from cmb.grading.vasp._resolver import IncarResolver, IncarValue, magnetic_moments
from cmb.grading.vasp._values import canonical_keyword

__all__ = [
    "Incar",
    "IncarParams",
    "IncarResolver",
    "IncarValue",
    "InputFiles",
    "KpointSet",
    "KpointsParams",
    "PoscarParams",
    "PotcarInfo",
    "PotcarParams",
    "TagSpec",
    "canonical_keyword",
    "kspacing_mesh",
    "magnetic_moments",
    "parse_incar",
    "parse_kpoints",
    "parse_potcar",
    "parse_potcar_spec",
    "vasp_defaults",
]
