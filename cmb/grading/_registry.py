"""The check-type registry: a family module registers each of its check types here, once.

cmb's families (`FAMILY_MODULES`) register on the registry's first lookup; another package's family registers
through an entry point of group `cmb.checks` naming a module (`my-code = "my_pkg.checks"`) whose import registers
types `my-code.*`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from cmb.grading._submission import Submission
from cmb.models import Check, Reference
from cmb.plugins import CHECKS_GROUP, PluginRegistry


class NoParams(BaseModel):
    """Parameters of a check type that takes none."""

    model_config = ConfigDict(extra="forbid", frozen=True)


P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class Outcome:
    """What a check function returns. `deviation` is |error| / tolerance, used for partial credit."""

    passed: bool
    message: str
    expected: Any = None
    actual: Any = None
    deviation: float | None = None


@dataclass(frozen=True)
class CheckContext(Generic[P]):
    """Everything a check may look at: the check, its validated params, the submission, the reference."""

    check: Check
    params: P
    submission: Submission
    reference: Reference
    reference_dir: Path | None = None

    def expected(self) -> Any:
        """The reference value the check names; a grader/reference mismatch is a harness error."""
        key = self.check.reference
        if key is None:
            raise GraderConfigError(f"check {self.check.id!r} names no reference value")
        if key not in self.reference.values:
            raise GraderConfigError(f"check {self.check.id!r}: reference has no value {key!r}")
        return self.reference.values[key].value

    def reference_file(self, name: str) -> Path:
        """A file beside reference.yaml (reference input sets, structures)."""
        if self.reference_dir is None:
            raise GraderConfigError(f"check {self.check.id!r} needs reference files but none were given")
        path = self.reference_dir / name
        if not path.is_file():
            raise GraderConfigError(f"check {self.check.id!r}: reference file {name!r} not found")
        return path


class GraderConfigError(Exception):
    """The grader or reference is inconsistent: a harness bug, never the agent's fault."""


CheckFn = Callable[[CheckContext[Any]], Outcome]


@dataclass(frozen=True)
class CheckType:
    """A registered check type."""

    name: str
    family: str
    fn: CheckFn
    params: type[BaseModel] = NoParams
    needs_reference: bool = True
    numeric: bool = False  # compares numbers within a tolerance (tested at its edges)
    doc: str = ""
    # Params that set a bound the agent must meet (a k-spacing, a cutoff floor, a row count): a check that sets one
    # must name the prompt sentence stating that bound, in both prompts (the reduced-prompt rule).
    thresholds: tuple[str, ...] = ()


# family -> the module of cmb that registers its check types (imported on the registry's first lookup)
FAMILY_MODULES = {
    "numeric": "cmb.grading._numeric",
    "schema": "cmb.grading._schema",
    "structure": "cmb.grading._structure",
    "vasp": "cmb.grading.vasp",
    "qe": "cmb.grading.qe",
    "lammps": "cmb.grading.lammps",
    "vampire": "cmb.grading.vampire",
    "phx": "cmb.grading.phx",
}


def _types(group: str | None = None, builtins: tuple[str, ...] = ()) -> PluginRegistry[CheckType]:
    return PluginRegistry(group, "check type", _install if group else None, builtins)


@dataclass
class Registry:
    """Name -> check type."""

    types: PluginRegistry[CheckType] = field(default_factory=_types)

    def register(
        self,
        name: str,
        *,
        params: type[BaseModel] = NoParams,
        needs_reference: bool = True,
        numeric: bool = False,
        thresholds: tuple[str, ...] = (),
    ) -> Callable[[CheckFn], CheckFn]:
        """Register a check function under `name` (family = the part before the dot)."""
        family = name.split(".", 1)[0]

        def decorate(fn: CheckFn) -> CheckFn:
            doc = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
            unknown = [t for t in thresholds if t not in params.model_fields]
            if unknown:
                raise ValueError(f"check type {name!r}: thresholds {unknown} are not params of {params.__name__}")
            self.types.add(name, CheckType(name, family, fn, params, needs_reference, numeric, doc, thresholds))
            return fn

        return decorate

    def get(self, name: str) -> CheckType:
        """Look a type up; unknown names list the known ones."""
        if name not in self.types:
            raise self.types.unknown(name)
        return self.types[name]


def _install(family: str, loaded: object) -> None:
    """An entry point of group cmb.checks names a module whose import registered the family's check types."""
    if not isinstance(loaded, ModuleType):
        raise TypeError(f"{loaded!r} is not a module (a check plugin names the module that registers its types)")
    if not any(t.family == family for t in REGISTRY.types.values()):
        raise ValueError(f"module {loaded.__name__} registered no check type named {family}.*")


REGISTRY = Registry(_types(CHECKS_GROUP, tuple(FAMILY_MODULES.values())))
register = REGISTRY.register
