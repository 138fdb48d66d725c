"""Effective values of pw.x settings: the input's, else pw.x 6.7's defaults and rules from the data table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cmb.grading._submission import is_finite_number
from cmb.grading.qe._defaults import TABLE_FILE, DependsOn, Fallback, QeTable, VarSpec, qe_table
from cmb.grading.qe._input import Problem, PwInput, split_key
from cmb.grading.settings import (
    Effective,
    Leaf,
    Origin,
    Rule,
    RuleEvaluator,
    Undetermined,
    describe_condition,
    describe_expr,
)


@dataclass(frozen=True)
class PwValue(Effective):
    """The value pw.x 6.7 uses for one setting, and how it came to be."""

    def describe(self, unit: str | None = None) -> str:
        """Human-readable value and provenance."""
        u = f" {unit}" if unit and is_finite_number(self.value) else ""
        shown = "not set" if self.value is None else f"{fmt(self.value)}{u}"
        if self.origin is Origin.SET:
            return shown + (f" ({self.note})" if self.note else "")
        if self.origin in (Origin.DEFAULT, Origin.CONDITIONAL_DEFAULT) and self.rule is None:
            return f"{shown} (not in the input: pw.x 6.7 default{': ' + self.note if self.note else ''})"
        if self.origin is Origin.CONDITIONAL_DEFAULT:
            return f"{shown} (not in the input: {self.note})"  # the rule's note
        if self.origin is Origin.FORCED:
            written = "" if self.written is None else f"; the input's {fmt(self.written)} is overridden"
            return f"{shown} ({self.note}{written})"
        return self.note


def fmt(value: Any) -> str:
    """A value as a pw.x input would write it."""
    if isinstance(value, bool):
        return ".true." if value else ".false."
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return repr(value)
    return str(value)


class Evaluator(RuleEvaluator[VarSpec, PwValue]):
    """Effective values of curated settings, by the table's defaults and rules."""

    table_name = TABLE_FILE
    value_type = PwValue

    def __init__(self, values: Mapping[str, Any], table: QeTable | None = None) -> None:
        super().__init__()
        self.values = values
        self.table = table or qe_table()

    def spec(self, name: str) -> VarSpec | None:
        """The curated entry of a setting key ('system.starting_magnetization(2)' -> its array's)."""
        return self.table.variables.get(split_key(name)[0])

    def is_set(self, name: str) -> bool:
        """Whether the input gives the setting (any element, for arrays) with a value pw.x counts as given."""
        spec = self.table.variables.get(name)
        keys = [k for k in self.values if k == name or k.startswith(name + "(")]
        if spec is None or spec.unset_when is None:
            return bool(keys)
        return any(not self.holds(name, spec.unset_when, self.values[k]) for k in keys)

    def written(self, key: str) -> tuple[bool, Any]:
        """(given, value) as written, with `unset_when` values counted as not given."""
        if key not in self.values:
            return False, None
        spec = self.spec(key)
        raw = self.values[key]
        if spec is not None and spec.unset_when is not None and self.holds(key, spec.unset_when, raw):
            return False, raw
        return True, raw

    def given(self, name: str) -> bool:
        """Whether the input gives this key with a value pw.x counts as given."""
        return self.written(name)[0]

    def as_written(self, name: str) -> tuple[bool, Any]:
        """The input's own value, `unset_when` values included."""
        return name in self.values, self.values.get(name)

    def uncurated(self, name: str) -> PwValue:
        """Declared but not curated: only what the input says is known."""
        given, raw = self.written(name)
        if given:
            return PwValue(name, raw.rstrip() if isinstance(raw, str) else raw, Origin.SET, written=raw)
        return PwValue(name, None, Origin.UNKNOWN, note=f"{name} is not in the input and the grader knows no default")

    def forced(self, name: str, spec: VarSpec, rule: Rule[Any], value: Any) -> PwValue:
        """pw.x overrides the input: the input's value is shown when it differs."""
        given, raw = self.written(name)
        shown_written = raw if given and raw != value else None
        return PwValue(name, value, Origin.FORCED, rule, rule.note or "set by pw.x", shown_written)

    def defaulted(self, name: str, spec: VarSpec, rule: Rule[Any] | None, value: Any, origin: Origin) -> PwValue:
        """The value of a rule, or the default."""
        if rule is not None:
            return PwValue(
                name, value, origin, rule, rule.note or "pw.x 6.7 rule when " + describe_condition(rule.when)
            )
        return PwValue(name, value, origin, note=describe_expr(spec.default) or (spec.note or ""))

    def undetermined(self, name: str, why: Undetermined) -> PwValue:
        """A value the grader cannot tell, and why."""
        return PwValue(name, None, Origin.UNKNOWN, note=why.reason)

    def leaf(self, name: str, expr: Leaf) -> Any:
        """A value pw.x takes from the pseudopotential files."""
        if isinstance(expr, DependsOn):
            raise Undetermined(f"not in the input: pw.x 6.7 takes it from the {expr.depends_on} files")
        return super().leaf(name, expr)

    def read(self, name: str, spec: VarSpec) -> PwValue:
        """The input's value as pw.x takes it: spellings resolved, trimmed, clamped; an unknown spelling stops it."""
        raw = self.values[name]
        value = raw
        note = ""
        if spec.type == "str":
            text = str(raw).rstrip()  # Fortran TRIM
            if spec.values is not None:
                canon = canonical_spelling(spec, text, exact=spec.case_sensitive)
                if canon is None:
                    accepted = sorted({s for spellings in spec.values.values() for s in spellings if s})
                    if isinstance(spec.unknown_value, Fallback):
                        fb = spec.unknown_value
                        note = f"{fb.note}: {text!r} is not a spelling it knows"
                        return PwValue(name, fb.fallback, Origin.FORCED, note=note)
                    note = f"pw.x 6.7 stops: {name} = {text!r} is not accepted (accepted spellings: {accepted})"
                    return PwValue(name, None, Origin.INVALID, note=note, written=raw)
                value = canon
                if canon != text:
                    note = f"written {text!r}"
            else:
                value = text if spec.case_sensitive else text.lower()
        if spec.clamp is not None and is_finite_number(value):
            lo, hi = spec.clamp
            clamped = min(max(float(value), lo), hi)
            if clamped != value:
                note = f"written {fmt(raw)}, brought into [{lo:g}, {hi:g}] by pw.x"
            value = clamped
        return PwValue(name, value, Origin.SET, note=note, written=raw)


def canonical_spelling(spec: VarSpec, text: str, *, exact: bool) -> str | None:
    """The canonical value a spelling stands for, or None."""
    assert spec.values is not None
    for canon, spellings in spec.values.items():
        for s in [*spellings, canon] if not exact else spellings:
            if (s == text) if exact else (s.lower() == text.lower()):
                return canon
    return None


def fatal_problems(pw: PwInput) -> list[Problem]:
    """Table rules on which pw.x stops, in the order pw.x checks them."""
    ev = Evaluator(pw.values)
    found: list[Problem] = []
    for key in pw.values:  # values pw.x rejects as it reads them (calculation='SCF', smearing='COLD')
        if split_key(key)[0] in qe_table().variables:
            eff = ev.effective(key)
            if eff.origin is Origin.INVALID:
                found.append(
                    Problem(eff.note.removeprefix("pw.x 6.7 stops: "), pw.lines.get(key), (split_key(key)[0],))
                )
    for rule in qe_table().fatal:
        if ev.matches(rule.when):
            involves = tuple(rule.involves or rule.when.keys())
            lines = [pw.lines[k] for k in pw.lines if split_key(k)[0] in involves]
            found.append(Problem(f"{rule.message} ({rule.source})", min(lines) if lines else None, involves))
    return found


def effective_value(pw: PwInput, key: str) -> PwValue:
    """The effective value of one concrete setting key; a pw.x stop involving it makes it invalid."""
    eff = Evaluator(pw.values).effective(key)
    base = split_key(key)[0]
    stops = [p for p in [*pw.problems, *fatal_problems(pw)] if base in p.involves]
    if stops:
        return PwValue(key, eff.value, Origin.INVALID, note=f"pw.x 6.7 stops: {stops[0].text()}", written=eff.written)
    return eff
