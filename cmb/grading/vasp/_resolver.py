"""Effective INCAR values: what the INCAR sets, else VASP's (conditional) default from the data table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cmb.grading._compare import show
from cmb.grading._registry import GraderConfigError
from cmb.grading._structure import collinear_moments
from cmb.grading._submission import SubmissionError
from cmb.grading.settings import Effective, Leaf, Origin, Rule, RuleEvaluator, Undetermined
from cmb.grading.vasp._defaults import TABLE_FILE, FromPotcar, PerIon, TagSpec, Unknowable, vasp_defaults
from cmb.grading.vasp._incar import Incar
from cmb.grading.vasp._potcar import POTCAR_FUNCTIONS, PotcarInfo
from cmb.grading.vasp._values import ValueProblem, coerce, fmt, read_typed, same


@dataclass(frozen=True)
class IncarValue(Effective):
    """The value VASP would use for a tag; `note` says where it comes from (an INCAR line, a wiki page)."""

    def describe(self) -> str:
        """E.g. `ISMEAR = 1 (not in INCAR: VASP default, <wiki>)`."""
        return f"{self.name} = {fmt(self.value)} ({self.note})" if self.known else f"{self.name}: {self.note}"


class IncarResolver(RuleEvaluator[TagSpec, IncarValue]):
    """Effective values of INCAR tags: explicit, or VASP's (conditional) default from the data table."""

    table_name = TABLE_FILE
    value_type = IncarValue

    def __init__(
        self,
        incar: Incar,
        *,
        nions: Callable[[], int] | None = None,
        potcar: Callable[[], PotcarInfo | None] | None = None,
    ) -> None:
        super().__init__()
        self.incar = incar
        self._nions, self._potcar = nions, potcar
        self._table = vasp_defaults()

    def key(self, name: str) -> str:
        """Tags are case-insensitive."""
        return name.upper()

    def spec(self, name: str) -> TagSpec | None:
        """The table entry of a tag, if any."""
        return self._table.get(name.upper())

    def given(self, name: str) -> bool:
        """Whether the INCAR sets the tag."""
        return name in self.incar.entries

    def as_written(self, name: str) -> tuple[bool, Any]:
        """The INCAR's own value of a tag, before any default."""
        entry = self.incar.entries.get(name)
        return (False, None) if entry is None else (True, read_typed(self.spec(name), entry.raw))

    def read(self, name: str, spec: TagSpec | None) -> IncarValue:
        """The INCAR's value; SubmissionError when it is ambiguous or has the wrong number of values per ion."""
        if name in self.incar.conflicts:
            a, b = self.incar.conflicts[name]
            raise SubmissionError(
                f"{self.incar.name}: {name} is set twice with different values (line {a.line}: {show(a.raw)!r}, "
                f"line {b.line}: {show(b.raw)!r}); which one VASP uses is not documented, so it is ambiguous"
            )
        entry = self.incar.entries[name]
        try:
            value = read_typed(spec, entry.raw)
        except ValueProblem as exc:  # pragma: no cover - parse_incar already validated known tags
            raise SubmissionError(f"{self.incar.name}:{entry.line}: {name}: {exc}") from None
        result = IncarValue(name, value, Origin.SET, note=f"{self.incar.name} line {entry.line}", written=entry.raw)
        if spec is not None and spec.per_ion:
            self._check_per_ion(result)
        return result

    def uncurated(self, name: str) -> IncarValue:
        """A tag the table does not know: its INCAR value, or not set."""
        if self.given(name):
            return self.read(name, None)
        return IncarValue(name, None, Origin.ABSENT, note="not in INCAR; this grader records no VASP default for it")

    def same(self, name: str, value: Any, operand: Any) -> bool:
        """Equality in the tag's type (keywords by VASP's matching, case-insensitively)."""
        return same(value, coerce(self.spec(name), operand))

    def typed(self, name: str, spec: TagSpec, value: Any) -> Any:
        """A default in the tag's type."""
        return coerce(spec, value)

    def leaf(self, name: str, expr: Leaf) -> Any:
        """One value per ion, a value from the POTCAR header, or none a grader can reproduce."""
        if isinstance(expr, PerIon):
            return [float(expr.per_ion)] * (self.nions() * expr.components)
        if isinstance(expr, FromPotcar):
            info = self._potcar() if self._potcar else None
            result = POTCAR_FUNCTIONS[expr.from_potcar](info) if info is not None else None
            if result is None:
                spec = self.spec(name)
                where = (spec.note or spec.source) if spec is not None else "POTCAR"
                have = "no POTCAR was submitted" if info is None else f"{info.source} does not give it"
                raise Undetermined(
                    f"not in INCAR; VASP takes its default from the POTCAR header ({where}) "
                    f"and {have}, so it cannot be verified: set {name} explicitly"
                )
            return result * expr.times if expr.times is not None else result
        if isinstance(expr, Unknowable):
            raise Undetermined(f"not in INCAR; {expr.unknown}, so it cannot be verified: set {name} explicitly")
        return super().leaf(name, expr)

    def defaulted(self, name: str, spec: TagSpec, rule: Rule[Any] | None, value: Any, origin: Origin) -> IncarValue:
        """VASP's default, citing its wiki page and the tags it depended on."""
        why = ", ".join(f"{t} = {fmt(self.effective(t).value)}" for t in (rule.when if rule else {}))
        note = "not in INCAR: VASP default" + (f" for {why}" if why else "") + f", {spec.source}"
        if spec.note:
            note += f"; {spec.note}"
        info = self._potcar() if self._potcar and rule is not None and isinstance(rule.value, FromPotcar) else None
        if info is not None:
            note += f" (from {info.source})"
        return IncarValue(name, value, origin, rule, note)

    def undetermined(self, name: str, why: Undetermined) -> IncarValue:
        """A default that cannot be told, and why."""
        if why.in_condition:
            note = "not in INCAR; its default depends on a value that cannot be known"
        elif why.depends_on is not None:
            note = f"not in INCAR; its default follows {why.depends_on}, unknown"
        else:
            note = why.reason
        return IncarValue(name, None, Origin.UNKNOWN, note=note)

    def nions(self) -> int:
        """Number of ions (from the POSCAR)."""
        if self._nions is None:
            raise GraderConfigError("the number of ions is needed but no POSCAR was given")
        return self._nions()

    def _check_per_ion(self, eff: IncarValue) -> None:
        """VASP reads one value per ion (three in a noncollinear run); any other count is an input error."""
        noncollinear = self.effective("LNONCOLLINEAR").value is True
        components = 3 if noncollinear else 1
        need = self.nions() * components
        if len(eff.value) != need:
            kind = "noncollinear " if noncollinear else ""
            raise SubmissionError(
                f"{eff.describe()}: {len(eff.value)} values, but a {kind}run with {need // components} ions "
                f"needs {need}"
            )


def magnetic_moments(resolver: IncarResolver) -> list[float]:
    """Collinear moments per ion as VASP would start them: zero without spin polarisation."""
    noncollinear = resolver.effective("LNONCOLLINEAR").value is True
    ispin = resolver.effective("ISPIN").value
    if not noncollinear and ispin != 2:
        return [0.0] * resolver.nions()  # not spin-polarised: MAGMOM is not used
    values = [float(v) for v in resolver.effective("MAGMOM").value]
    if not noncollinear:
        return values
    vectors = [values[i : i + 3] for i in range(0, len(values), 3)]
    try:
        return collinear_moments(vectors)
    except ValueError as exc:
        raise SubmissionError(f"MAGMOM: {exc}; only collinear order is compared") from None
