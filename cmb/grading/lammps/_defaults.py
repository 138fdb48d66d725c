"""What the interpreter knows about LAMMPS itself: defaults and command grammars from `lammps_defaults.yaml`."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

TABLE_FILE = "lammps_defaults.yaml"


@dataclass(frozen=True)
class Grammar:
    """How a fix style's arguments read: named positional groups, keywords with their value counts, dampings."""

    positional: tuple[tuple[str, int], ...]
    keywords: Mapping[str, int]
    damping: Mapping[str, int]


@dataclass(frozen=True)
class Tables:
    """The contents of the table, typed."""

    default_units: str
    time_unit: Mapping[str, str]
    dt: Mapping[str, float]
    skin: Mapping[str, float]
    neighbor_style: str
    settings: Mapping[str, Any]
    box_required: Mapping[str, str]
    box_forbidden: Mapping[str, str]
    suffixes: tuple[str, ...]
    manybody: Mapping[str, tuple[int, bool]]  # style -> (number of files, elements are the last ntypes words)
    per_type_file: frozenset[str]
    fix_grammar: Mapping[str, Grammar]  # fix style -> grammar
    pressure_keywords: tuple[str, ...]


@functools.cache
def tables() -> Tables:
    """LAMMPS defaults and command grammars, loaded once from the table."""
    text = (resources.files("cmb.grading.lammps") / TABLE_FILE).read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    grammars = {
        name: Grammar(
            tuple((str(p[0]), int(p[1])) for p in g["positional"]),
            {str(k): int(v) for k, v in g["keywords"].items()},
            {str(k): int(v) for k, v in g["damping"].items()},
        )
        for name, g in raw["fixes"]["grammars"].items()
    }
    settings = {k: tuple(v) if isinstance(v, list) else v for k, v in raw["settings"].items() if k != "source"}
    return Tables(
        default_units=raw["units"]["default"],
        time_unit=raw["units"]["time_unit"],
        dt={k: float(v) for k, v in raw["timestep"]["default"].items()},
        skin={k: float(v) for k, v in raw["neighbor"]["skin"].items()},
        neighbor_style=raw["neighbor"]["style"],
        settings=settings,
        box_required=raw["box"]["required"],
        box_forbidden=raw["box"]["forbidden"],
        suffixes=tuple(raw["pair_styles"]["accelerator_suffixes"]),
        manybody={
            k: (int(v["files"]), v.get("elements") == "last_ntypes") for k, v in raw["pair_styles"]["manybody"].items()
        },
        per_type_file=frozenset(raw["pair_styles"]["per_type_file"]),
        fix_grammar={style: grammars[g] for style, g in raw["fixes"]["styles"].items()},
        pressure_keywords=tuple(raw["fixes"]["pressure_keywords"]),
    )


def base_style(style: str) -> str:
    """A style without its accelerator suffix (sw/omp -> sw)."""
    head, _, tail = style.rpartition("/")
    return head if head and tail in tables().suffixes else style


def default_settings() -> dict[str, Any]:
    """The state of a fresh LAMMPS (and after `clear`): default units and what follows from them."""
    t = tables()
    units = t.default_units
    values: dict[str, Any] = {
        "units": units,
        "dt": t.dt[units],
        "neighbor.skin": t.skin[units],
        "neighbor.style": t.neighbor_style,
        "box": False,
        "pair_coeff": (),
        "masses": (),
    }
    values.update(t.settings)
    return values
