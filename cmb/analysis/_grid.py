"""The grid of every attempt (Figure C1): tasks in paper order, outcome codes per agent, condition and trial."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from cmb.analysis import _tables  # noqa: F401  (registers the other tables first, keeping the registry's order)
from cmb.analysis._analysis import Analysis, ordered, register_table
from cmb.analysis._prepare import AUDIT_VOIDED, FAILURE_ORDER, PASS, UNCLASSIFIED
from cmb.analysis._table import Table
from cmb.models import FailureClass

OUTCOME_SYMBOLS = {
    PASS: "#",
    FailureClass.SCIENTIFIC.value: "s",
    FailureClass.SOFTWARE.value: "w",
    FailureClass.FORMAT.value: "f",
    FailureClass.TIME_LIMIT.value: "t",
    AUDIT_VOIDED: "a",
    UNCLASSIFIED: "?",
}


# --- Figure C1: every attempt --------------------------------------------------------------------------------------


def task_order(a: Analysis) -> list[str]:
    """Tasks by kind (paper order), then id."""
    kinds = a.kinds()
    pairs = a.task_counts().select("kind", "task").unique().rows()
    return [t for _, t in sorted(pairs, key=lambda kt: (kinds.index(kt[0]) if kt[0] in kinds else 99, kt[1]))]


def positions(column: pl.Series, values: Sequence[str | None]) -> npt.NDArray[np.int64]:
    """Each entry's position in `values`, -1 where it is not there (or null), as an integer array.

    A lookup of the column's categorical codes in a table of a few entries: no string is hashed per row.
    """
    codes = column.cast(pl.Categorical).to_physical()
    named = pl.Series(values, dtype=pl.Categorical).to_physical()  # a None in values matches nothing
    where = np.flatnonzero(named.is_not_null().to_numpy())
    known = named.drop_nulls().cast(pl.Int64).to_numpy()
    largest = codes.max()
    size = max(int(largest) if isinstance(largest, int) else 0, int(known.max()) if known.size else 0) + 2
    table = np.full(size, -1, dtype=np.int64)  # the last entry: null
    table[known] = where
    found: npt.NDArray[np.int64] = table[codes.fill_null(size - 1).to_numpy()]
    return found


def _number(values: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values in order, and each value's position among them.

    np.unique's answer, in linear time when the values are small non-negative integers (as row numbers are).
    """
    if size > max(4 * values.size, 1 << 20):
        return np.unique(values, return_inverse=True)
    seen = np.zeros(size, dtype=bool)
    seen[values] = True
    return np.flatnonzero(seen), (np.cumsum(seen) - 1)[values]


class Grid:
    """Every attempt as a dense matrix: rows (agent, condition, trial), columns tasks, cells outcome codes."""

    def __init__(self, a: Analysis) -> None:
        self.tasks = task_order(a)
        self.outcomes: list[str | None] = [None, *ordered(a.runs["outcome"].unique().to_list(), [PASS, *FAILURE_ORDER])]
        agents, conditions = a.agents(), a.conditions()
        # Every label becomes its position in display order (one lookup per attempt, no join); a row is the
        # (agent, condition, trial) number, and the rows that occur are numbered in that order.
        runs = a.runs
        agent = positions(runs["agent"], agents)
        cond = positions(runs["condition"], conditions)
        task = positions(runs["task"], self.tasks)
        outcome = positions(runs["outcome"], self.outcomes[1:]) + 1
        trial = runs["trial"].cast(pl.Int64).fill_null(-1).to_numpy()
        ok = (agent >= 0) & (cond >= 0) & (task >= 0) & (outcome >= 1) & runs["trial"].is_not_null().to_numpy()
        if not ok.all():
            agent, cond, task, outcome, trial = agent[ok], cond[ok], task[ok], outcome[ok], trial[ok]
        first = int(trial.min()) if trial.size else 0
        span = int(trial.max()) - first + 1 if trial.size else 1
        row = (agent * len(conditions) + cond) * span + trial - first
        present, row = _number(row, len(agents) * len(conditions) * span)
        agent_of, rest = np.divmod(present, len(conditions) * span)
        cond_of, trial_of = np.divmod(rest, span)
        self.keys: list[tuple[str, str, int]] = [
            (agents[i], conditions[j], k + first)
            for i, j, k in zip(agent_of.tolist(), cond_of.tolist(), trial_of.tolist(), strict=True)
        ]
        self.codes = np.zeros((present.size, len(self.tasks)), dtype=np.int8)  # 0: not run
        self.codes[row, task] = outcome


@register_table("grid", "Every attempt")
def grid_table(a: Analysis) -> Table:
    """Figure C1 shape: one row per agent, condition and trial, one column per task, the outcome in each cell."""
    g = Grid(a)
    names = np.array(g.outcomes, dtype=object)
    symbols = np.array([" ", *(OUTCOME_SYMBOLS.get(str(o), "?") for o in g.outcomes[1:])])
    pass_code = g.outcomes.index(PASS) if PASS in g.outcomes else -1
    outcome_rows = names[g.codes].tolist()
    # each row's one-character cells viewed as one string: no Python string per cell
    lines = symbols[g.codes].view(f"<U{len(g.tasks)}").ravel().tolist() if g.tasks else [""] * len(g.keys)
    passed = (g.codes == pass_code).sum(axis=1).tolist()
    ran = (g.codes > 0).sum(axis=1).tolist()
    rows = [
        {"agent": agent, "condition": cond, "trial": trial, "outcomes": outcomes}
        for (agent, cond, trial), outcomes in zip(g.keys, outcome_rows, strict=True)
    ]
    cells = [
        [agent, cond, str(trial), f"{p}/{r}", line]
        for (agent, cond, trial), p, r, line in zip(g.keys, passed, ran, lines, strict=True)
    ]
    legend = ", ".join(f"{s} {o}" for o, s in OUTCOME_SYMBOLS.items())
    notes = [f"columns: {len(g.tasks)} tasks by kind then id; {legend}; blank: not run", a.epoch.summary()]
    meta = a.meta() | {"tasks": g.tasks}
    return Table(name="grid", title="Every attempt", header=["agent", "cond", "trial", "passed", "tasks"],
                 cells=cells, rows=rows, notes=notes, meta=meta)  # fmt: skip


def outcome_order() -> list[str]:
    """Outcomes in display order: pass first, then failure classes."""
    return ordered([PASS, *FAILURE_ORDER], [PASS, *FAILURE_ORDER])
