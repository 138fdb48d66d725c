"""Small, dependency-free SVG charts for the report.

Grouped bars with intervals, stacked bars, scatter, lines, heatmaps and matrices. Static markup only (no script),
so the report renders offline in any browser.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif"
INK = "#1f2933"
MUTED = "#6b7785"
GRID = "#e4e8ee"
# Okabe-Ito, colour-blind safe, for series.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
OUTCOME_COLORS = {
    "pass": "#2a9d8f",
    "scientific": "#e76f51",
    "operational/software": "#f4a261",
    "operational/format": "#e9c46a",
    "time-limit": "#8d6cab",
    "audit-voided": "#577590",
    "unclassified": "#adb5bd",
}


def _attrs(**kw: object) -> str:
    return " ".join(f'{k.rstrip("_").replace("_", "-")}="{escape(str(v))}"' for k, v in kw.items() if v is not None)


def el(tag: str, content: str = "", /, **kw: object) -> str:
    """An element with attributes (numbers with one decimal, names with dashes instead of underscores)."""
    attrs = " ".join(
        f'{k.rstrip("_").replace("_", "-")}="{f"{v:.1f}" if isinstance(v, float) else escape(str(v))}"'
        for k, v in kw.items()
        if v is not None
    )
    return f"<{tag} {attrs}>{content}</{tag}>" if content else f"<{tag} {attrs}/>"


def text(x: float, y: float, s: str, *, size: float = 12, anchor: str = "start", fill: str = INK, **kw: object) -> str:
    """A text element (escaped)."""
    extra = _attrs(**kw)
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" {extra}>'
        f"{escape(s)}</text>"
    )


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" '
        f'height="{height:.0f}" role="img" aria-label="{escape(label)}" font-family="{escape(FONT)}">'
        f"<title>{escape(label)}</title>{''.join(body)}</svg>"
    )


def text_width(s: str, size: float = 12) -> float:
    """Rough rendered width, enough for layout."""
    return 0.58 * size * len(s)


def _label_ink(fill: str) -> str:
    """Dark text on a light fill, white on a dark one."""
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 160 else "#ffffff"


def _legend(
    items: Sequence[tuple[str, str]], x: float, y: float, max_width: float, *, lines: Sequence[bool] = ()
) -> tuple[list[str], float]:
    """Swatches (or line samples, dashed where `lines[i]`) and labels from (x, y); returns markup and height."""
    out: list[str] = []
    cx, cy = x, y
    for i, (label, color) in enumerate(items):
        w = 18 + text_width(label, 11) + 16 + (10 if lines else 0)
        if cx + w > x + max_width and cx > x:
            cx, cy = x, cy + 18
        if lines:
            dash = "5 3" if lines[i] else None
            out.append(el("line", x1=cx, x2=cx + 22, y1=cy - 4, y2=cy - 4, stroke=color, stroke_width=2,
                          stroke_dasharray=dash))  # fmt: skip
            out.append(text(cx + 27, cy, label, size=11, fill=INK))
        else:
            out.append(f'<rect x="{cx:.1f}" y="{cy - 9:.1f}" width="11" height="11" rx="2" fill="{color}"/>')
            out.append(text(cx + 16, cy, label, size=11, fill=INK))
        cx += w
    return out, cy - y + 18


@dataclass(frozen=True)
class Bar:
    """One bar: value in [0, 1] with an optional interval and a label written above it."""

    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


def grouped_bars(
    groups: Sequence[str],
    series: Sequence[str],
    bars: Sequence[Sequence[Bar]],
    *,
    label: str,
    y_label: str = "pass rate (%)",
    width: float = 1000,
    height: float = 340,
) -> str:
    """Vertical bars per group and series (bars[g][s]) on a 0-100 % axis with interval whiskers."""
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(series))]
    legend, legend_h = _legend(list(zip(series, colors, strict=True)), 56, 16, width - 70)
    top, bottom, left, right = 24 + legend_h, 52, 56, 16
    ph = height - top - bottom
    pw = width - left - right
    body = list(legend)
    for tick in range(0, 101, 20):
        y = top + ph * (1 - tick / 100)
        body.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        body.append(text(left - 6, y + 4, str(tick), size=11, anchor="end", fill=MUTED))
    body.append(text(14, top + ph / 2, y_label, size=11, anchor="middle", fill=MUTED,
                     transform=f"rotate(-90 14 {top + ph / 2:.1f})"))  # fmt: skip
    gw = pw / max(len(groups), 1)
    bw = min(36.0, 0.8 * gw / max(len(series), 1))
    for gi, group in enumerate(groups):
        gx = left + gi * gw + (gw - bw * len(series)) / 2
        body.append(text(left + (gi + 0.5) * gw, height - bottom + 18, group, size=11, anchor="middle"))
        for si, bar in enumerate(bars[gi]):
            if bar.value is None:
                continue
            x = gx + si * bw
            h = ph * bar.value
            y = top + ph - h
            tip = f"{series[si]} · {group}: {100 * bar.value:.1f}%"
            if bar.low is not None and bar.high is not None:
                tip += f" [{100 * bar.low:.1f}, {100 * bar.high:.1f}]"
            body.append(
                f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bw - 2:.1f}" height="{max(h, 0.5):.1f}" rx="2" '
                f'fill="{colors[si]}"><title>{escape(tip)}</title></rect>'
            )
            if bar.low is not None and bar.high is not None:
                cx = x + bw / 2
                y1, y2 = top + ph * (1 - bar.low), top + ph * (1 - bar.high)
                body.append(el("line", x1=cx, x2=cx, y1=y1, y2=y2, stroke=INK, stroke_width=1.2))
                for yy in (y1, y2):
                    body.append(el("line", x1=cx - 4, x2=cx + 4, y1=yy, y2=yy, stroke=INK, stroke_width=1.2))
    body.append(f'<line x1="{left}" x2="{width - right}" y1="{top + ph}" y2="{top + ph}" stroke="{MUTED}"/>')
    return _svg(width, height, body, label)


def stacked_bars(
    rows: Sequence[str],
    segments: Sequence[str],
    counts: Sequence[Sequence[int]],
    totals: Sequence[int],
    *,
    label: str,
    colors: Sequence[str] | None = None,
    width: float = 1000,
    x_label: str = "share of attempts (%)",
) -> str:
    """Horizontal stacked bars: counts[r][s] as a share of totals[r]."""
    colors = list(colors or [PALETTE[i % len(PALETTE)] for i in range(len(segments))])
    left = 24 + max((text_width(r, 11) for r in rows), default=40)
    right = 16
    legend, legend_h = _legend(list(zip(segments, colors, strict=True)), left, 16, width - left - right)
    top = 24 + legend_h
    row_h = 22
    height = top + row_h * len(rows) + 40
    pw = width - left - right
    peak = max((sum(c) / t for c, t in zip(counts, totals, strict=True) if t), default=1.0)
    step = next(s for s in (0.02, 0.05, 0.1, 0.2, 0.25) if peak / s <= 5 or s == 0.25)
    scale_max = min(1.0, max(step, math.ceil(peak / step - 1e-9) * step))
    body = list(legend)
    for i in range(round(scale_max / step) + 1):
        frac = step * i
        x = left + pw * frac / scale_max
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{top + row_h * len(rows)}" stroke="{GRID}"/>')
        body.append(text(x, top + row_h * len(rows) + 16, f"{100 * frac:.0f}", size=11, anchor="middle", fill=MUTED))
    body.append(text(left + pw / 2, height - 6, x_label, size=11, anchor="middle", fill=MUTED))
    for ri, row in enumerate(rows):
        y = top + ri * row_h
        body.append(text(left - 8, y + 15, row, size=11, anchor="end"))
        x = float(left)
        total = totals[ri] or 1
        for si, n in enumerate(counts[ri]):
            if n <= 0:
                continue
            w = pw * (n / total) / scale_max
            tip = f"{row} · {segments[si]}: {n} of {totals[ri]} ({100 * n / total:.1f}%)"
            body.append(
                f'<rect x="{x:.1f}" y="{y + 3:.1f}" width="{w:.1f}" height="{row_h - 6}" fill="{colors[si]}">'
                f"<title>{escape(tip)}</title></rect>"
            )
            if w > 22:
                body.append(text(x + w / 2, y + 15, str(n), size=10, anchor="middle", fill=_label_ink(colors[si])))
            x += w
    return _svg(width, height, body, label)


@dataclass(frozen=True)
class Point:
    """A labelled point of a scatter plot."""

    label: str
    x: float
    y: float
    color: str
    marker: str = "circle"
    note: str = ""


def scatter(
    points: Sequence[Point],
    *,
    label: str,
    x_label: str,
    y_label: str = "pass rate (%)",
    log_x: bool = True,
    width: float = 1000,
    height: float = 420,
    legend: Sequence[tuple[str, str]] = (),
) -> str:
    """Points on a (log) x axis against a 0-100 % y axis, each labelled."""
    leg, legend_h = _legend(list(legend), 64, 16, width - 80)
    top, bottom, left, right = 24 + legend_h, 48, 64, 24
    pw, ph = width - left - right, height - top - bottom
    xs = [p.x for p in points if p.x > 0 or not log_x]
    if not xs:
        xs = [1.0]
    fx: list[float]
    if log_x:
        lo = math.floor(math.log10(min(xs)))
        hi = math.ceil(math.log10(max(xs)))
        hi = hi if hi > lo else lo + 1
        ticks = [10.0**e for e in range(lo, hi + 1)]

        def sx(v: float) -> float:
            return left + pw * (math.log10(max(v, 10.0**lo)) - lo) / (hi - lo)

        fx = ticks
    else:
        vmax = max(xs) * 1.1 or 1.0

        def sx(v: float) -> float:
            return left + pw * v / vmax

        fx = [vmax * i / 5 for i in range(6)]

    def sy(v: float) -> float:
        return top + ph * (1 - v)

    body = list(leg)
    for tick in range(0, 101, 20):
        y = sy(tick / 100)
        body.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        body.append(text(left - 6, y + 4, str(tick), size=11, anchor="end", fill=MUTED))
    for v in fx:
        x = sx(v)
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + ph}" stroke="{GRID}"/>')
        body.append(text(x, top + ph + 16, _num(v), size=11, anchor="middle", fill=MUTED))
    body.append(text(left + pw / 2, height - 8, x_label, size=11, anchor="middle", fill=MUTED))
    body.append(text(16, top + ph / 2, y_label, size=11, anchor="middle", fill=MUTED,
                     transform=f"rotate(-90 16 {top + ph / 2:.1f})"))  # fmt: skip
    placed: list[tuple[float, float, float, float]] = []
    points = [p for p in points if math.isfinite(p.x) and math.isfinite(p.y)]
    for p in points:
        if log_x and p.x <= 0:
            continue
        x, y = sx(p.x), sy(p.y)
        tip = escape(f"{p.label}: {p.note}" if p.note else p.label)
        paint: dict[str, object] = {"fill": p.color, "fill_opacity": 0.85, "stroke": "#fff"}
        if p.marker == "square":
            shape = el("rect", x=x - 6, y=y - 6, width=12, height=12, **paint)
        elif p.marker == "diamond":
            d = f"M{x:.1f},{y - 8:.1f} L{x + 8:.1f},{y:.1f} L{x:.1f},{y + 8:.1f} L{x - 8:.1f},{y:.1f} Z"
            shape = el("path", d=d, **paint)
        else:
            shape = el("circle", cx=x, cy=y, r=7, **paint)
        body.append(f"<g><title>{tip}</title>{shape}</g>")
        placed.append((x - 8, y - 8, x + 8, y + 8))
    for p in points:
        if log_x and p.x <= 0:
            continue
        body.append(_place_label(p.label, sx(p.x), sy(p.y), placed, (left, top, width - right, top + ph)))
    return _svg(width, height, body, label)


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _place_label(
    label: str,
    x: float,
    y: float,
    placed: list[tuple[float, float, float, float]],
    frame: tuple[float, float, float, float],
) -> str:
    """Put a point's label where it hits no other label or marker (right, left, above, below, then further out)."""
    w, h = text_width(label, 10), 12.0
    candidates = []
    for reach in (1.0, 2.2, 3.4):
        candidates += [
            (x + 10 * reach, y + 4, "start"),
            (x - 10 * reach, y + 4, "end"),
            (x, y - 11 * reach, "middle"),
            (x, y + 11 * reach + 8, "middle"),
            (x + 8 * reach, y - 10 * reach, "start"),
            (x - 8 * reach, y - 10 * reach, "end"),
            (x + 8 * reach, y + 10 * reach + 6, "start"),
            (x - 8 * reach, y + 10 * reach + 6, "end"),
        ]
    best = candidates[0]
    for tx, ty, anchor in candidates:
        x0 = tx if anchor == "start" else (tx - w if anchor == "end" else tx - w / 2)
        box = (x0, ty - h + 2, x0 + w, ty + 2)
        inside = box[0] >= frame[0] and box[2] <= frame[2] + 20 and box[1] >= frame[1] - 10 and box[3] <= frame[3]
        if inside and not any(_overlaps(box, other) for other in placed):
            best = (tx, ty, anchor)
            placed.append(box)
            break
    else:
        tx, ty, anchor = best
        x0 = tx if anchor == "start" else tx - w
        placed.append((x0, ty - h + 2, x0 + w, ty + 2))
    tx, ty, anchor = best
    return text(tx, ty, label, size=10, anchor=anchor, fill=INK)


def _num(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 1:
        return f"{v:g}"
    return f"{v:.2g}"


def lines(
    xs: Sequence[int],
    series: Sequence[tuple[str, Sequence[float | None], str, bool]],
    *,
    label: str,
    x_label: str = "k",
    y_label: str = "probability (%)",
    width: float = 1000,
    height: float = 320,
) -> str:
    """Line chart on a 0-100 % axis; series are (name, values, colour, dashed)."""
    leg_items = [(name, color) for name, _, color, _ in series]
    leg, legend_h = _legend(leg_items, 56, 16, width - 70, lines=[dashed for *_, dashed in series])
    top, bottom, left, right = 24 + legend_h, 44, 56, 24
    pw, ph = width - left - right, height - top - bottom
    n = max(len(xs) - 1, 1)

    def sx(i: int) -> float:
        return left + pw * i / n

    body = list(leg)
    for tick in range(0, 101, 20):
        y = top + ph * (1 - tick / 100)
        body.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        body.append(text(left - 6, y + 4, str(tick), size=11, anchor="end", fill=MUTED))
    for i, k in enumerate(xs):
        body.append(text(sx(i), top + ph + 16, str(k), size=11, anchor="middle", fill=MUTED))
    body.append(text(left + pw / 2, height - 6, x_label, size=11, anchor="middle", fill=MUTED))
    body.append(text(14, top + ph / 2, y_label, size=11, anchor="middle", fill=MUTED,
                     transform=f"rotate(-90 14 {top + ph / 2:.1f})"))  # fmt: skip
    for name, values, color, dashed in series:
        pts = [(sx(i), top + ph * (1 - v)) for i, v in enumerate(values) if v is not None]
        if not pts:
            continue
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        path = " ".join(f"{'M' if j == 0 else 'L'}{x:.1f},{y:.1f}" for j, (x, y) in enumerate(pts))
        body.append(f'<path d="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}>')
        body.append(f"<title>{escape(name)}</title></path>")
        for x, y in pts:
            body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')
    return _svg(width, height, body, label)


def rate_color(v: float | None) -> str:
    """Sequential colour for a rate in [0, 1]: pale sand to deep teal."""
    if v is None:
        return "#f1f3f5"
    v = min(1.0, max(0.0, v))
    stops = ((0.0, (253, 237, 222)), (0.5, (158, 212, 196)), (1.0, (27, 120, 110)))
    for (x0, c0), (x1, c1) in zip(stops, stops[1:], strict=False):
        if v <= x1:
            t = (v - x0) / (x1 - x0)
            r, g, b = (round(a + (b_ - a) * t) for a, b_ in zip(c0, c1, strict=True))
            return f"#{r:02x}{g:02x}{b:02x}"
    return "#1b786e"


def delta_color(d: float | None) -> str:
    """Diverging colour for a difference in [-1, 1]: red below zero, blue above."""
    if d is None:
        return "#f1f3f5"
    t = min(1.0, abs(d) / 0.5)
    base = (214, 96, 77) if d < 0 else (67, 147, 195)
    r, g, b = (round(255 + (c - 255) * t) for c in base)
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap(
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    values: Sequence[Sequence[str | float | None]],
    *,
    label: str,
    colors: dict[str, str] | None = None,
    group_breaks: Sequence[int] = (),
    col_group_labels: Sequence[tuple[int, int, str]] = (),
    legend: Sequence[tuple[str, str]] = (),
    max_width: float = 1100,
) -> str:
    """A grid of squares: a category (coloured by `colors`) or a rate (sequential colour) per cell."""
    left = 12 + max((text_width(r, 10) for r in row_labels), default=40)
    ncol = max(len(col_labels), 1)
    cell = max(4.0, min(14.0, (max_width - left - 16) / ncol))  # column width
    row_h = max(cell, 12.0)  # rows stay tall enough for their labels when columns are narrow
    leg, legend_h = _legend(list(legend), left, 16, max_width - left)
    top = 24 + legend_h + (16 if col_group_labels else 0) + (34 if cell >= 9 else 0)
    gap = 6
    height = top + row_h * len(row_labels) + gap * len(group_breaks) + 12
    width = left + cell * ncol + 16
    body = list(leg)
    for start, end, name in col_group_labels:
        x0, x1 = left + start * cell, left + end * cell
        y = 24 + legend_h + 6
        body.append(f'<line x1="{x0 + 1:.1f}" x2="{x1 - 1:.1f}" y1="{y + 4:.1f}" y2="{y + 4:.1f}" stroke="{MUTED}"/>')
        if text_width(name, 10) < x1 - x0:
            body.append(text((x0 + x1) / 2, y, name, size=10, anchor="middle", fill=MUTED))
    if cell >= 9:
        for ci, col in enumerate(col_labels):
            x = left + ci * cell + cell / 2 + 3
            y = top - 4
            body.append(text(x, y, col, size=8, anchor="start", fill=MUTED, transform=f"rotate(-60 {x:.1f} {y:.1f})"))
    y = float(top)
    breaks = set(group_breaks)
    for ri, row in enumerate(row_labels):
        if ri in breaks:
            y += gap
        body.append(text(left - 6, y + row_h * 0.8, row, size=10, anchor="end"))
        for ci, v in enumerate(values[ri]):
            if v is None:
                continue
            if isinstance(v, str):
                color = (colors or {}).get(v, "#adb5bd")
                tip = f"{row} · {col_labels[ci]}: {v}"
            else:
                color = rate_color(v)
                tip = f"{row} · {col_labels[ci]}: {100 * v:.0f}% passed"
            body.append(
                f'<rect x="{left + ci * cell + 0.5:.1f}" y="{y + 0.5:.1f}" width="{cell - 1:.1f}" '
                f'height="{row_h - 1:.1f}" rx="1.5" fill="{color}"><title>{escape(tip)}</title></rect>'
            )
        y += row_h
    return _svg(width, height, body, label)


def matrix(
    title: str, rows: Sequence[str], cols: Sequence[str], cells: Sequence[Sequence[tuple[str, str, str]]], *, label: str
) -> str:
    """A small labelled matrix: each cell is (main text, sub text, fill colour)."""
    cw, ch = 112.0, 52.0
    left, top = 92.0, 44.0
    width = left + cw * len(cols) + 8
    height = top + ch * len(rows) + 8
    body = [text(8, 18, title, size=13, font_weight="600")]
    for ci, col in enumerate(cols):
        body.append(text(left + ci * cw + cw / 2, top - 8, col, size=11, anchor="middle", fill=MUTED))
    for ri, row in enumerate(rows):
        y = top + ri * ch
        body.append(text(left - 8, y + ch / 2 + 4, row, size=11, anchor="end", fill=MUTED))
        for ci, (main, sub, fill) in enumerate(cells[ri]):
            x = left + ci * cw
            body.append(el("rect", x=x + 2, y=y + 2, width=cw - 4, height=ch - 4, rx=6, fill=fill))
            y_main = y + ch / 2 + (0 if sub else 5)
            body.append(text(x + cw / 2, y_main, main, size=15, anchor="middle", font_weight="600"))
            if sub:
                body.append(text(x + cw / 2, y + ch / 2 + 16, sub, size=10, anchor="middle", fill="#3d4852"))
    return _svg(width, height, body, label)
