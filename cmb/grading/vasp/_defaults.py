"""VASP's own INCAR defaults, as data: the table in `vasp_defaults.yaml`, validated once.

Each entry gives a tag's type, VASP's default (a literal, or rules in the shared grammar of
`cmb.grading.settings`) and the VASP wiki page documenting it. Three expressions are VASP's own: one value per
ion (`per_ion`), a value read from the POTCAR header (`from_potcar`), and a value a grader cannot reproduce
(`unknown`).
"""

from __future__ import annotations

import functools
import importlib.resources
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, model_validator

from cmb.grading._registry import GraderConfigError
from cmb.grading.settings import Leaf, MinOf, Rule, Strict, Term, condition_references, references

WIKI = "https://www.vasp.at/wiki/index.php/"
TABLE_FILE = "vasp_defaults.yaml"

TagType = Literal["int", "float", "bool", "keyword", "string", "float_list"]
PotcarFunction = Literal["max_enmax", "max_enmin", "lexch"]


class PerIon(Leaf):
    """`per_ion` times the number of ions (times `components` per ion), ions counted from the POSCAR."""

    per_ion: float = Field(description="The value for each ion")
    components: int = Field(default=1, ge=1, description="Values per ion (3 for a noncollinear moment)")


class FromPotcar(Leaf):
    """A value read from the POTCAR header, times a factor when one is given."""

    from_potcar: PotcarFunction = Field(description="What is read: the largest ENMAX or ENMIN, or LEXCH")
    times: float | None = Field(default=None, description="Factor applied to it")


class Unknowable(Leaf):
    """A value VASP computes from things a grader cannot reproduce."""

    unknown: str = Field(description="Why it cannot be reproduced")


TagValue = PerIon | FromPotcar | Unknowable | Term | MinOf | bool | int | float | str | list[Any] | None


class Choice(Strict):
    """One value of a keyword tag: its canonical name, exact aliases and the leading letters VASP reads."""

    name: str = Field(description="Canonical spelling")
    aliases: list[str] = Field(default_factory=list, description="Other exact spellings (case-insensitive)")
    prefixes: list[str] = Field(default_factory=list, description="Leading letters that select this value")


class TagSpec(Strict):
    """One INCAR tag: its type, VASP's default (literal or rules), and where that is documented."""

    type: TagType = Field(description="Value type")
    default: TagValue = Field(default=None, description="Literal default (null: not set / feature off)")
    rules: list[Rule[TagValue]] = Field(default_factory=list, description="Ordered conditional defaults")
    choices: list[Choice] = Field(default_factory=list, description="Known values of a keyword tag")
    depends_on_potcar: bool = Field(default=False, description="The default is read from the POTCAR")
    per_ion: bool = Field(
        default=False, description="A list with one value per ion (three per ion in a noncollinear run)"
    )
    note: str | None = Field(default=None, description="Shown in grading messages")
    source: str = Field(description="VASP wiki page of the tag")

    @model_validator(mode="after")
    def _one_default(self) -> TagSpec:
        if self.rules and "default" in self.model_fields_set:
            raise ValueError("give either default or rules, not both")
        if self.rules and self.rules[-1].when:
            raise ValueError("the last rule must have no condition (it is the fallback)")
        if any(rule.force for rule in self.rules):
            raise ValueError("VASP defaults never override the INCAR (no force)")
        if not self.source.startswith(WIKI):
            raise ValueError(f"source must be a VASP wiki page ({WIKI}...)")
        return self


class DefaultsTable(Strict):
    """The whole `vasp_defaults.yaml`."""

    version: int = Field(description="Schema version")
    tags: dict[str, TagSpec] = Field(description="Upper-case tag -> spec")

    @model_validator(mode="after")
    def _conditions_name_known_tags(self) -> DefaultsTable:
        for name, spec in self.tags.items():
            if name != name.upper():
                raise ValueError(f"tag {name!r} must be upper case")
            for rule in spec.rules:
                for other in condition_references(rule.when):
                    if other not in self.tags:
                        raise ValueError(f"{name}: condition on {other!r}, which has no entry")
            for expr in [spec.default, *(rule.value for rule in spec.rules)]:
                for other in references(expr):
                    if other not in self.tags:
                        raise ValueError(f"{name}: refers to {other!r}, which has no entry")
        return self


@functools.cache
def vasp_defaults() -> dict[str, TagSpec]:
    """The curated defaults table, validated once."""
    text = importlib.resources.files("cmb.grading.vasp").joinpath(TABLE_FILE).read_text(encoding="utf-8")
    try:
        return DefaultsTable.model_validate(yaml.safe_load(text)).tags
    except ValidationError as exc:
        raise GraderConfigError(f"{TABLE_FILE} is invalid: {exc}") from None
