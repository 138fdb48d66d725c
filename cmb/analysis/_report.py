"""The self-contained HTML report of a sweep: every table, and inline SVG figures (no script, no network)."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

import polars as pl

from cmb import __version__
from cmb.analysis import _svg as svg
from cmb.analysis._analysis import Analysis
from cmb.analysis._grid import Grid, task_order
from cmb.analysis._prepare import CONDITION_ORDER, FAILURE_ORDER
from cmb.analysis._table import Table
from cmb.analysis._tables import KIND_LABELS

MAX_GRID_CELLS = 60_000  # above this the grid shows the pass fraction over trials instead of every attempt
MAX_TABLE_ROWS = 60  # a longer table shows its first rows (the most shared errors first) and says how many remain

CSS = """
:root { --ink:#1f2933; --muted:#6b7785; --line:#e4e8ee; --bg:#f6f7f9; --card:#fff; --accent:#1b786e; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
header { background:linear-gradient(120deg,#13443f,#1b786e); color:#fff; padding:28px 40px 22px; }
header h1 { margin:0 0 4px; font-size:26px; font-weight:650; letter-spacing:-0.01em; }
header p { margin:0; opacity:.85; }
main { max-width:1180px; margin:0 auto; padding:24px 32px 48px; }
.tiles { display:grid; grid-template-columns:repeat(auto-fit,minmax(150px,1fr)); gap:12px; margin:-44px 0 20px; }
.tile { background:var(--card); border-radius:10px; padding:12px 16px; box-shadow:0 1px 3px rgba(0,0,0,.08); }
.tile b { display:block; font-size:22px; font-weight:650; }
.tile span { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
section { background:var(--card); border-radius:12px; padding:20px 24px; margin:18px 0;
  box-shadow:0 1px 3px rgba(0,0,0,.06); }
section h2 { margin:0 0 4px; font-size:18px; font-weight:650; }
section > p.lead { margin:0 0 12px; color:var(--muted); }
figure { margin:12px 0 16px; }
figure svg { max-width:100%; height:auto; }
figcaption { color:var(--muted); font-size:12.5px; margin-top:4px; }
.matrices { display:flex; flex-wrap:wrap; gap:8px 18px; }
.scroll { overflow-x:auto; }
.scroll > svg { max-width:none; }
table { border-collapse:collapse; font-size:12.5px; margin:6px 0; font-variant-numeric:tabular-nums; }
th, td { padding:4px 9px; text-align:left; white-space:nowrap; border-bottom:1px solid var(--line); }
th { font-weight:600; color:#3d4852; background:#f1f4f7; position:sticky; top:0; }
tr:nth-child(even) td { background:#fafbfc; }
td.mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
ul.notes { color:var(--muted); font-size:12px; margin:6px 0 0; padding-left:18px; }
footer { color:var(--muted); font-size:12px; text-align:center; padding:12px; }
"""


def _table_html(t: Table, *, mono: tuple[int, ...] = (), limit: int | None = None) -> str:
    limit = MAX_TABLE_ROWS if limit is None else limit
    head = "".join(f"<th>{escape(h)}</th>" for h in t.header)
    body = []
    for row in t.cells[:limit]:
        tds = "".join(
            f'<td class="mono">{escape(c)}</td>' if i in mono else f"<td>{escape(c)}</td>" for i, c in enumerate(row)
        )
        body.append(f"<tr>{tds}</tr>")
    if not body:
        body.append(f'<tr><td colspan="{len(t.header)}">no rows</td></tr>')
    notes = "".join(f"<li>{escape(n)}</li>" for n in t.notes)
    if len(t.cells) > limit:
        more = f"{len(t.cells) - limit} more rows: cmb results SWEEP --table {t.name}"
        notes = f"<li>{escape(more)}</li>" + notes
    return (
        f'<div class="scroll"><table data-table="{escape(t.name)}"><thead><tr>{head}</tr></thead>'
        f'<tbody>{"".join(body)}</tbody></table></div><ul class="notes">{notes}</ul>'
    )


def _figure(name: str, content: str, caption: str) -> str:
    return f'<figure data-plot="{escape(name)}">{content}<figcaption>{escape(caption)}</figcaption></figure>'


def _primary_condition(t: Table) -> str | None:
    conds = [r["condition"] for r in t.rows]
    for c in CONDITION_ORDER:
        if c in conds:
            return c
    return conds[0] if conds else None


def _pass_figure(t: Table, level: float) -> str:
    cond = _primary_condition(t)
    rows = [r for r in t.rows if r["condition"] == cond]
    if not rows:
        return ""
    kinds = [k for k in KIND_LABELS if any(k in r["by_kind"] for r in rows)]
    kinds += sorted({k for r in rows for k in r["by_kind"]} - set(kinds))
    groups = [KIND_LABELS.get(k, k) for k in kinds] + ["all tasks"]
    series = [r["agent"] for r in rows]
    bars: list[list[svg.Bar]] = []
    for k in kinds:
        bars.append(
            [
                svg.Bar(r["by_kind"][k]["pass_rate"], r["by_kind"][k]["ci_low"], r["by_kind"][k]["ci_high"])
                if k in r["by_kind"]
                else svg.Bar(None)
                for r in rows
            ]
        )
    bars.append([svg.Bar(r["pass_rate"], r["ci_low"], r["ci_high"]) for r in rows])
    chart = svg.grouped_bars(groups, series, bars, label=f"Pass rate by task kind and agent ({cond})")
    caption = (
        f"Pass rate by task kind under {cond}, each agent a colour; whiskers: {round(100 * level)}% task-clustered "
        "bootstrap intervals."
    )
    return _figure("pass-by-kind", chart, caption)


def _conditions_figure(t: Table) -> str:
    blocks = []
    for r in t.rows:
        cc, dd = r["conditions"], r["deltas"]
        if not cc:
            continue

        def cell(c: str, cc: dict[str, Any] = cc) -> tuple[str, str, str]:
            if c not in cc:
                return ("–", "", svg.rate_color(None))
            x = cc[c]
            return (f"{100 * x['pass_rate']:.0f}%", f"{x['passes']}/{x['attempts']}", svg.rate_color(x["pass_rate"]))

        def delta(name: str, dd: dict[str, Any] = dd) -> tuple[str, str, str]:
            if name not in dd:
                return ("–", "", svg.delta_color(None))
            x = dd[name]
            sub = "" if x["ci_low"] is None else f"[{100 * x['ci_low']:+.0f}, {100 * x['ci_high']:+.0f}]"
            return (f"{100 * x['delta']:+.0f} pp", sub, svg.delta_color(x["delta"]))

        cells = [
            [cell("SF"), cell("WF"), delta("WF-SF")],
            [cell("SR"), cell("WR"), delta("WR-SR")],
            [delta("SR-SF"), delta("WR-WF"), ("", "", "#ffffff")],
        ]
        blocks.append(
            svg.matrix(
                r["agent"],
                ["full", "reduced", "Δ red.−full"],
                ["single task", "workflow", "Δ wf−single"],
                cells,
                label=f"Condition matrix of {r['agent']}",
            )  # fmt: skip
        )
    if not blocks:
        return ""
    caption = (
        "Pass rate under each condition with the count behind it; Δ cells in percentage points with bootstrap "
        "intervals: reduced minus full on the same tasks, workflow minus single task on different task sets."
    )
    return _figure("conditions", f'<div class="matrices">{"".join(blocks)}</div>', caption)


def _repeat_figures(t: Table) -> str:
    rows = [r for r in t.rows if r["tasks"]]
    if not rows:
        return ""
    n = max(r["trials"] for r in rows)
    rows = [r for r in rows if r["trials"] == n]
    labels = [f"{r['agent']} · {r['condition']}" for r in rows]
    segments = [f"{j}/{n}" for j in range(n, -1, -1)]
    counts = [[r["by_passing"].get(s, 0) for s in segments] for r in rows]
    totals = [sum(c) for c in counts]
    colors = [svg.rate_color(j / n) for j in range(n, -1, -1)]
    dist = svg.stacked_bars(labels, segments, counts, totals, label="Tasks by passing trials", colors=colors,
                            x_label="share of tasks (%)")  # fmt: skip
    out = _figure("repeat-distribution", dist, f"Tasks by how many of their {n} trials pass (Table 3 shape).")
    cond = _primary_condition(t)
    main = [r for r in rows if r["condition"] == cond]
    ks = list(range(1, max((len(r["pass_at_k"]) for r in main), default=0) + 1))
    if len(ks) >= 2:
        series: list[tuple[str, list[float | None], str, bool]] = []
        for i, r in enumerate(main):
            color = svg.PALETTE[i % len(svg.PALETTE)]
            series.append((f"{r['agent']} pass@k", [r["pass_at_k"].get(str(k)) for k in ks], color, False))
            series.append((f"{r['agent']} pass^k", [r["pass_hat_k"].get(str(k)) for k in ks], color, True))
        chart = svg.lines(ks, series, label=f"pass@k and pass^k ({cond})")
        caption = (
            f"Unbiased pass@k (solid: at least one of k trials passes) and pass^k (dashed: all k pass) under {cond}."
        )
        out += _figure("pass-at-k", chart, caption)
    return out


def _failures_figure(t: Table) -> str:
    rows = t.rows
    if not rows:
        return ""
    classes = [c for c in FAILURE_ORDER if any(r["by_class"].get(c) for r in rows)] or [FAILURE_ORDER[0]]
    labels = [f"{r['agent']} · {r['condition']}" for r in rows]
    counts = [[r["by_class"].get(c, 0) for c in classes] for r in rows]
    chart = svg.stacked_bars(labels, classes, counts, [r["runs"] for r in rows], label="Failures by class",
                             colors=[svg.OUTCOME_COLORS.get(c, "#adb5bd") for c in classes])  # fmt: skip
    caption = "Failed attempts by class as a share of all attempts of the row (infrastructure failures excluded)."
    return _figure("failures", chart, caption)


def _cost_figure(cost: Table, passes: Table) -> str:
    rate = {(r["agent"], r["condition"]): r for r in passes.rows}
    agents = sorted({r["agent"] for r in cost.rows if r["condition"]})
    color = {a: svg.PALETTE[i % len(svg.PALETTE)] for i, a in enumerate(agents)}
    markers = {"SF": "circle", "SR": "circle", "WF": "square", "WR": "diamond"}
    points = []
    for r in cost.rows:
        if not r["condition"] or (r["agent"], r["condition"]) not in rate or not r["attempts"]:
            continue
        per_attempt = r["cost_per_attempt_usd"]
        unpriced = r["total_is_lower_bound"]
        note = f"{per_attempt:.3g} USD per attempt" + (" (model unpriced: compute only)" if unpriced else "")
        points.append(
            svg.Point(
                label=f"{r['agent']} {r['condition']}" + (" ≥" if unpriced else ""),
                x=per_attempt,
                y=rate[(r["agent"], r["condition"])]["pass_rate"],
                color=color[r["agent"]],
                marker=markers.get(r["condition"], "circle"),
                note=note,
            )
        )
    if not points:
        return ""
    legend = [(a, color[a]) for a in agents]
    chart = svg.scatter(points, label="Cost per attempt against pass rate", x_label="cost per attempt (USD, log)",
                        legend=legend)  # fmt: skip
    caption = (
        "Cost per attempt (model + compute) against pass rate per agent and condition; ≥ marks a model without a "
        "price, whose point shows compute cost only. Circles: single tasks; squares: WF; diamonds: WR."
    )
    return _figure("cost-scatter", chart, caption)


def _grid_figure(a: Analysis) -> str:
    tasks = task_order(a)
    if not tasks:
        return ""
    kinds = dict(a.runs.select("task", "kind").unique().rows())
    spans: list[tuple[int, int, str]] = []
    for i, t in enumerate(tasks):
        kind = str(kinds[t])
        k = KIND_LABELS.get(kind, kind)
        if spans and spans[-1][2] == k:
            spans[-1] = (spans[-1][0], i + 1, k)
        else:
            spans.append((i, i + 1, k))
    index = {t: i for i, t in enumerate(tasks)}
    cond_rank = {c: i for i, c in enumerate(CONDITION_ORDER)}
    n_rows = a.runs.select("agent", "condition", "trial").unique().height
    values: list[list[str | float | None]] = []
    labels: list[str] = []
    breaks: list[int] = []
    if n_rows * len(tasks) <= MAX_GRID_CELLS:
        grid = Grid(a)
        names = grid.outcomes
        previous = None
        for key, codes in zip(grid.keys, grid.codes.tolist(), strict=True):
            if previous is not None and key[:2] != previous:
                breaks.append(len(labels))
            previous = key[:2]
            values.append([names[c] for c in codes])
            labels.append(f"{key[0]} · {key[1]} · {key[2]}")
        legend = [(o, c) for o, c in svg.OUTCOME_COLORS.items() if o in names]
        chart = svg.heatmap(labels, tasks, values, label="Every attempt", colors=svg.OUTCOME_COLORS,
                            group_breaks=breaks, col_group_labels=spans, legend=legend)  # fmt: skip
        caption = "Every attempt: rows agent · condition · trial, columns tasks by kind; colour = outcome."
    else:
        frac = a.runs.group_by(["agent", "condition", "task"]).agg(pl.col(a.pass_col).mean().alias("rate"))
        parts = frac.partition_by(["agent", "condition"], as_dict=True)
        keys = sorted(parts, key=lambda k: (str(k[0]), cond_rank.get(str(k[1]), 9)))
        for key in keys:
            row: list[str | float | None] = [None] * len(tasks)
            for task, r in parts[key].select("task", "rate").iter_rows():
                row[index[task]] = float(r)
            values.append(row)
            labels.append(f"{key[0]} · {key[1]}")
        legend = [(f"{v:.0%}", svg.rate_color(v)) for v in (0.0, 0.5)] + [("100% of trials pass", svg.rate_color(1.0))]
        chart = svg.heatmap(labels, tasks, values, label="Pass fraction per task", col_group_labels=spans,
                            legend=legend)  # fmt: skip
        caption = "Pass fraction over trials per agent · condition and task (too many attempts to draw one each)."
    return _figure("grid", f'<div class="scroll">{chart}</div>', caption)


def _tiles(a: Analysis, passes: Table, cost: Table) -> str:
    total = next((r for r in cost.rows if r["agent"] == "sweep total (kept)"), None)
    kept = a.runs
    rate = float(kept[a.pass_col].mean()) if kept.height else None  # type: ignore[arg-type]
    tiles = [
        ("attempts kept", f"{a.epoch.kept:,}"),
        ("dropped", f"{a.epoch.loaded - a.epoch.kept:,}"),
        ("agents", str(len(a.agents()))),
        ("tasks", str(kept["task"].n_unique())),
        ("pass rate", "–" if rate is None else f"{100 * rate:.1f}%"),
        (
            "cost (USD)",
            "–"
            if total is None
            else ("≥ " if total["total_is_lower_bound"] else "") + f"{total['total_cost_usd']:,.0f}",
        ),
    ]
    inner = "".join(f"<div class='tile'><b>{escape(v)}</b><span>{escape(k)}</span></div>" for k, v in tiles)
    return f'<div class="tiles">{inner}</div>'


def render_report(a: Analysis) -> str:
    """The report as one HTML document."""
    tables = {name: a.table(name) for name in ("pass", "conditions", "repeat", "failures", "cost", "shared-errors")}
    o = a.options
    sweeps = ", ".join(a.sweeps)
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = [
        (
            "Pass rate by task kind",
            "Fraction of attempts whose submission meets every check (Table 2 shape).",
            _pass_figure(tables["pass"], o.level) + _table_html(tables["pass"]),
        ),
        (
            "Evaluation conditions",
            "Single task or workflow, with full or reduced method guidance (Figure 4 shape).",
            _conditions_figure(tables["conditions"]) + _table_html(tables["conditions"]),
        ),
        (
            "Repeatability",
            "Pass rate over repeated trials and how consistent each task's outcome is (Table 3 shape).",
            _repeat_figures(tables["repeat"]) + _table_html(tables["repeat"]),
        ),
        (
            "Failures",
            "Why attempts failed, by class (Figure 5 shape).",
            _failures_figure(tables["failures"]) + _table_html(tables["failures"]),
        ),
        (
            "Cost",
            "Model cost as recorded by the gateway plus compute as metered when each attempt ran (estimated at the "
            "configured prices, and marked ~, for records from before metering).",
            _cost_figure(tables["cost"], tables["pass"]) + _table_html(tables["cost"]),
        ),
        (
            "Errors shared across agents",
            "Checks that two or more agents fail on the same task (Table D shape).",
            _table_html(tables["shared-errors"]),
        ),
        ("Every attempt", "The per-attempt grid (Figure C1 shape).", _grid_figure(a)),
    ]
    body = "".join(
        f"<section><h2>{escape(title)}</h2><p class='lead'>{escape(lead)}</p>{content}</section>"
        for title, lead, content in sections
    )
    dropped = ", ".join(f"{n} {r}" for r, n in a.epoch.dropped.items() if n) or "none"
    harness = ", ".join(f"{s}: {v}" for s, v in a.epoch.harness_versions.items())
    method = (
        f"<section><h2>Method</h2><ul class='notes'>"
        f"<li>{escape(a.epoch.summary())}</li>"
        f"<li>dropped: {escape(dropped)}; harness kept: {escape(harness or '–')}</li>"
        f"<li>outcomes: {escape(o.basis.value)} (a failed execution audit voids a pass)</li>"
        f"<li>intervals: task-clustered percentile bootstrap, {o.n_boot} resamples, seed {o.seed}, level {o.level}</li>"
        f"<li>compute: metered attempts at the price sheet recorded with them; records from before metering "
        f"estimated at {o.cost.cpu_hour_usd:.4g} USD per CPU-hour, {o.cost.node_hour_usd:.4g} USD per node-hour</li>"
        f"</ul></section>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>cmb report · {escape(sweeps)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>Sweep {escape(sweeps)}</h1><p>{escape(a.epoch.summary())} · generated {now} by cmb "
        f"{escape(__version__)}</p></header><main>{_tiles(a, tables['pass'], tables['cost'])}{body}{method}</main>"
        "<footer>cmb · every number recomputable from the Parquet store with the seed above</footer></body></html>"
    )


def write_report(a: Analysis, out: Path) -> Path:
    """Write the report to `out` (atomically) and return the path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(render_report(a), encoding="utf-8")
    tmp.replace(out)
    return out
