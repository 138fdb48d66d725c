"""The setting a check targets (`system.ecutrho`, `system.starting_magnetization(Fe1)`), checked against the table."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cmb.grading._registry import GraderConfigError
from cmb.grading._submission import SubmissionError, is_finite_number
from cmb.grading.qe._cell import species_element
from cmb.grading.qe._defaults import VarSpec, parse_declaration, qe_table
from cmb.grading.qe._evaluator import canonical_spelling
from cmb.grading.qe._input import PwInput, element_key

_SETTING = re.compile(r"\s*&?([A-Za-z]+)\s*\.\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(\s*([^()]*?)\s*\))?\s*$")


@dataclass(frozen=True)
class SettingRef:
    """A setting named by a check: 'system.ecutrho', 'system.starting_magnetization(Fe1)', 'system.celldm(1)'."""

    base: str
    spec: VarSpec | None  # None: declared but not curated (only an explicit value can be graded)
    vtype: str
    dims: tuple[int, ...]
    index: str | None

    def keys(self, pw: PwInput) -> list[tuple[str, str]]:
        """(key, description) for each concrete element; SubmissionError when the species is not there."""
        if self.index is None:
            return [(self.base, self.base)]
        if re.fullmatch(r"[+-]?\d+(\s*,\s*[+-]?\d+)*", self.index):
            key = element_key(self.base, tuple(int(x) for x in self.index.split(",")))
            if self.spec is not None and self.spec.per_species and int(self.index) > len(pw.species):
                raise SubmissionError(f"{key}: the input has only {len(pw.species)} species")
            return [(key, key)]
        by_label = [(i + 1, sp) for i, sp in enumerate(pw.species) if sp.label == self.index]
        matched = by_label or [(i + 1, sp) for i, sp in enumerate(pw.species) if species_element(sp) == self.index]
        if not matched:
            labels = [sp.label for sp in pw.species]
            raise SubmissionError(
                f"{self.base}({self.index}): no species labelled or of element {self.index!r} {labels}"
            )
        return [(element_key(self.base, (i,)), f"{self.base}({i}: {sp.label})") for i, sp in matched]


def resolve_setting(text: str | None) -> SettingRef:
    """Validate a check's target.setting against the table (a grader error when it is wrong)."""
    m = _SETTING.match(text or "")
    if m is None:
        raise GraderConfigError(f"setting {text!r}: expected namelist.variable, e.g. system.ecutrho")
    nl, name, index = m.group(1).lower(), m.group(2).lower(), m.group(3)
    table = qe_table()
    decl = table.declarations.get(nl, {}).get(name)
    if decl is None:
        raise GraderConfigError(f"setting {text!r}: pw.x 6.7 has no variable {name!r} in namelist &{nl}")
    vtype, dims = parse_declaration(decl)
    spec = table.variables.get(f"{nl}.{name}")
    if dims and index is None:
        raise GraderConfigError(f"setting {text!r}: {name} is an array; name an element, e.g. {name}(1)")
    if not dims and index is not None:
        raise GraderConfigError(f"setting {text!r}: {name} is not an array")
    numeric_index = index is not None and re.fullmatch(r"[+-]?\d+(\s*,\s*[+-]?\d+)*", index)
    if index is not None and not numeric_index:
        if spec is None or not spec.per_species:
            raise GraderConfigError(f"setting {text!r}: only per-species arrays take a species label or element")
    if numeric_index and index is not None:
        idx = tuple(int(x) for x in index.split(","))
        if len(idx) != len(dims) or any(not 1 <= i <= d for i, d in zip(idx, dims, strict=False)):
            raise GraderConfigError(f"setting {text!r}: index out of the array's bounds {dims}")
    return SettingRef(f"{nl}.{name}", spec, vtype, dims, index.replace(" ", "") if index else None)


def canonical_expected(ref: SettingRef, value: Any) -> Any:
    """A grader's expected value in the setting's canonical form (aliases resolved, any letter case)."""
    where = f"expected value {value!r} for {ref.base}"
    if ref.vtype == "bool":
        if not isinstance(value, bool):
            raise GraderConfigError(f"{where}: not a boolean")
        return value
    if ref.vtype == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise GraderConfigError(f"{where}: not an integer")
        return value
    if ref.vtype == "float":
        if not is_finite_number(value):
            raise GraderConfigError(f"{where}: not a finite number")
        return float(value)
    if not isinstance(value, str):
        raise GraderConfigError(f"{where}: not a string")
    spec = ref.spec
    if spec is not None and spec.values is not None:
        canon = canonical_spelling(spec, value.strip(), exact=False)
        if canon is None:
            raise GraderConfigError(f"{where}: pw.x 6.7 knows no such value (known: {sorted(spec.values)})")
        return canon
    return value.strip() if spec is None or spec.case_sensitive else value.strip().lower()
