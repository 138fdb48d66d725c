"""The slim, categorical analysis frame and the group-bys over it give what the plain definitions give."""

from __future__ import annotations

import math
from datetime import timedelta

import numpy as np
import polars as pl
import pytest

from cmb.analysis import Analysis, AnalysisOptions, prepare, synthetic_sweep, write_store
from cmb.analysis._analysis import Grouping, count, counted, float_sums
from cmb.analysis._grid import positions
from cmb.analysis._prepare import ANALYSIS_COLUMNS, CATEGORICAL
from cmb.store import RUNS_SCHEMA
from tests.analysis.helpers import analysis, run, table
from tests.analysis.helpers import write_store as write_rows


def _frame(n: int = 5000, seed: int = 3) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    agents = np.array(["b", "a", "c", None], dtype=object)
    return pl.DataFrame(
        {
            "agent": pl.Series(agents[rng.integers(0, 4, n)].tolist(), dtype=pl.Categorical),
            "condition": pl.Series(np.array(["SF", "WR"])[rng.integers(0, 2, n)].tolist()),  # a String key
            "x": rng.normal(size=n) * 1e6,
            "y": np.where(rng.random(n) < 0.2, None, rng.random(n)).tolist(),
        },
        schema_overrides={"y": pl.Float64},
    )


def test_float_sums_are_each_groups_values_summed_in_row_order():
    df = _frame()
    got = float_sums(df, ["agent", "condition"], x=pl.col("x"), y=pl.col("y")).sort("agent", "condition")
    expect = df.with_columns(pl.col("agent").cast(pl.String)).partition_by(["agent", "condition"], as_dict=True)
    assert got.height == len(expect)
    for r in got.iter_rows(named=True):
        part = expect[(r["agent"], r["condition"])]
        assert r["x"] == float(part["x"].to_numpy().sum())  # numpy's pairwise sum of the group, bit for bit
        assert r["y"] == pytest.approx(math.fsum(part["y"].drop_nulls().to_list()), rel=1e-12)  # nulls add nothing


def test_float_sums_do_not_depend_on_how_the_frame_is_chunked():
    df = _frame(20_000)
    chunked = pl.concat([df.slice(i, 997) for i in range(0, df.height, 997)], rechunk=False)
    assert chunked.n_chunks() > 1
    for by in (["agent"], ["agent", "condition"], []):
        one = float_sums(df.rechunk(), by, x=pl.col("x"))
        assert one.equals(float_sums(chunked, by, x=pl.col("x")))
        assert one.equals(float_sums(df, Grouping.of(df, by), x=pl.col("x")))


def test_float_sums_of_a_whole_frame_and_of_no_rows():
    df = _frame(100)
    whole = float_sums(df, [], x=pl.col("x"))
    assert whole.columns == ["x"] and whole["x"].item() == float(df["x"].to_numpy().sum())
    empty = df.head(0)
    assert float_sums(empty, [], x=pl.col("x"))["x"].to_list() == [0.0]
    assert float_sums(empty, ["agent"], x=pl.col("x")).height == 0


def test_grouping_lists_each_groups_rows_in_row_order():
    df = _frame(300)
    g = Grouping.of(df, ["agent"])
    assert g.order is not None
    seen = set()
    for key, i, j in zip(g.keys["agent"].to_list(), g.starts, g.ends, strict=True):
        rows = g.order[i:j]
        assert list(rows) == sorted(rows)
        assert set(df["agent"].cast(pl.String).gather(rows).to_list()) == {key}
        seen.add(key)
    assert seen == set(df["agent"].cast(pl.String).to_list())  # null is a group of its own


def test_count_and_counted_are_integer_counts():
    df = _frame(2000).with_columns(flag=pl.col("x") > 0)
    got = counted(df.lazy(), ["agent"], hits=count("flag"), big=count(pl.col("x") > 1e6))
    assert got.schema["attempts"] == pl.Int64 and got.schema["hits"] == pl.Int64
    assert got["agent"].to_list() == sorted(got["agent"].to_list(), key=lambda v: (v is not None, v or ""))
    for r in got.iter_rows(named=True):
        part = df.filter(pl.col("agent").eq_missing(r["agent"]))
        assert (r["attempts"], r["hits"], r["big"]) == (part.height, part["flag"].sum(), (part["x"] > 1e6).sum())


def test_positions_look_labels_up_by_their_codes():
    column = pl.Series(["t2", None, "t9", "t1", "t2"], dtype=pl.Categorical)
    assert positions(column, ["t1", "t2"]).tolist() == [1, -1, -1, 0, 1]
    assert positions(column, [None, "t9"]).tolist() == [-1, -1, 1, -1, -1]
    assert positions(column.cast(pl.String), ["t9"]).tolist() == [-1, -1, 0, -1, -1]


def test_the_prepared_frame_is_slim_and_categorical():
    a = analysis([run("x", "t1", "SF", 0, "P"), run("x", "t2", "SR", 0, "scientific")], n_boot=200)
    for frame in (a.all, a.runs):
        assert tuple(frame.columns) == ANALYSIS_COLUMNS
        for column in (*[c for c in CATEGORICAL if c in ANALYSIS_COLUMNS], "outcome"):
            assert frame.schema[column] == pl.Categorical
    assert a.runs["outcome"].to_list() == ["pass", "scientific"]
    assert a.agents() == ["x"] and a.conditions() == ["SF", "SR"]


def test_the_latest_version_is_the_first_row_of_the_latest_finish():
    """The epoch's version choice is what `sort_by(rank).last()` chose, ties and unranked rows included."""
    rng = np.random.default_rng(5)
    t0 = run("x", "t1", "SF", 0, "P")["finished_at"]
    rows = []
    for i in range(400):
        task = f"t{rng.integers(0, 6)}"
        r = run(f"a{rng.integers(0, 3)}", task, "SF", i, "P" if rng.random() < 0.7 else "infrastructure")
        r["finished_at"] = t0 + timedelta(minutes=int(rng.integers(0, 8)))  # many ties
        r["task_hash"] = f"h{rng.integers(0, 3)}"
        r["harness_version"] = f"v{rng.integers(0, 2)}"
        rows.append(r)
    frame = pl.from_arrow(table(rows, RUNS_SCHEMA))
    assert isinstance(frame, pl.DataFrame)
    df, report = prepare(frame.lazy())
    # the definition, with sort_by over the same ranks
    infra = pl.col("failure_class").eq_missing("infrastructure")
    rank = pl.when(~infra).then(pl.col("finished_at"))
    ref = frame.with_columns(_h=pl.col("harness_version").sort_by(rank).last().over("sweep"))
    ref = ref.with_columns(stale_h=~infra & pl.col("harness_version").ne_missing(pl.col("_h")))
    rank = pl.when(~infra & ~pl.col("stale_h")).then(pl.col("finished_at"))
    ref = ref.with_columns(_t=pl.col("task_hash").sort_by(rank).last().over(["sweep", "task"]))
    ref = ref.with_columns(stale_t=~infra & ~pl.col("stale_h") & pl.col("task_hash").ne_missing(pl.col("_t")))
    assert df["drop_reason"].eq_missing("stale-harness").to_list() == ref["stale_h"].to_list()
    assert df["drop_reason"].eq_missing("stale-task").to_list() == ref["stale_t"].to_list()
    assert report.dropped["stale-task"] == ref["stale_t"].sum() > 0 and ref["stale_h"].sum() > 0


def test_a_store_with_several_writes_of_a_key_is_deduplicated_on_load(tmp_path):
    first = run("x", "t1", "SF", 0, "scientific", run_id="w1")
    retry = run("x", "t1", "SF", 0, "P", run_id="w2")
    retry["finished_at"] = first["finished_at"] + timedelta(hours=1)
    write_rows(tmp_path, [first, retry, run("x", "t2", "SF", 0, "P", run_id="w3")])
    a = Analysis.from_store(tmp_path, ["s"], AnalysisOptions(n_boot=200))
    assert a.epoch.loaded == 2
    assert sorted(a.all["run_id"].to_list()) == ["w2", "w3"]


def test_a_group_without_a_named_model_shows_none():
    rows = [run("x", "t1", "SF", 0, "P", model=None), run("y", "t1", "SF", 0, "P")]
    t = analysis(rows, n_boot=200).table("pass")
    by_agent = {r["agent"]: r for r in t.rows}
    assert by_agent["x"]["model"] is None and by_agent["y"]["model"]
    assert [c[1] for c in t.cells if c[0] == "x"] == ["–"]


def test_float_figures_are_the_same_on_every_load(tmp_path):
    runs, checks = synthetic_sweep(sweep="v", trials=3, seed=2)
    write_store(tmp_path, runs, checks)
    tables = [
        {
            name: Analysis.from_store(tmp_path, ["v"], AnalysisOptions(n_boot=200)).table(name).rows
            for name in ("pass", "cost")
        }
        for _ in range(3)
    ]
    assert tables[0] == tables[1] == tables[2]
