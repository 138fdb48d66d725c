"""The grid of every attempt (Figure C1): tasks in paper order, outcome codes per agent, condition and trial."""

from __future__ import annotations

import numpy as np
import polars as pl

from cmb.analysis._analysis import Analysis, ordered, register_table
from cmb.analysis._prepare import AUDIT_VOIDED, CONDITION_ORDER, FAILURE_ORDER, PASS, UNCLASSIFIED
from cmb.analysis._table import Table
from cmb.analysis._tables import rank  # also registers the other tables first, keeping the registry's order
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
    pairs = a.runs.select("kind", "task").unique().rows()
    return [t for _, t in sorted(pairs, key=lambda kt: (kinds.index(kt[0]) if kt[0] in kinds else 99, kt[1]))]


class Grid:
    """Every attempt as a dense matrix: rows (agent, condition, trial), columns tasks, cells outcome codes."""

    def __init__(self, a: Analysis) -> None:
        self.tasks = task_order(a)
        self.outcomes: list[str | None] = [None, *ordered(a.runs["outcome"].unique().to_list(), [PASS, *FAILURE_ORDER])]
        keys = a.runs.select("agent", "condition", "trial").unique()
        keys = keys.with_columns(pl.col("condition").replace_strict(rank(CONDITION_ORDER), default=99).alias("_c"))
        keys = keys.sort(["agent", "_c", "trial"]).drop("_c").with_row_index("_row")
        task_index = pl.DataFrame({"task": self.tasks, "_col": range(len(self.tasks))})
        codes = pl.DataFrame({"outcome": self.outcomes[1:], "_code": range(1, len(self.outcomes))})
        cells = (
            a.runs.select("agent", "condition", "trial", "task", "outcome")
            .join(keys, on=["agent", "condition", "trial"])
            .join(task_index, on="task")
            .join(codes, on="outcome")
        )
        self.keys: list[tuple[str, str, int]] = keys.select("agent", "condition", "trial").rows()
        self.codes = np.zeros((keys.height, len(self.tasks)), dtype=np.int8)  # 0: not run
        self.codes[cells["_row"].to_numpy(), cells["_col"].to_numpy()] = cells["_code"].to_numpy()


@register_table("grid", "Every attempt")
def grid_table(a: Analysis) -> Table:
    """Figure C1 shape: one row per agent, condition and trial, one column per task, the outcome in each cell."""
    g = Grid(a)
    names = np.array(g.outcomes, dtype=object)
    symbols = np.array([" ", *(OUTCOME_SYMBOLS.get(str(o), "?") for o in g.outcomes[1:])])
    pass_code = g.outcomes.index(PASS) if PASS in g.outcomes else -1
    outcome_rows = names[g.codes].tolist()
    lines = ["".join(row) for row in symbols[g.codes].tolist()]
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
