"""The README's table of measured figures, made from the benchmarks' JSON (never typed by hand):

    python bench/bench_scheduler.py --json > scheduler.json
    python bench/bench_analysis.py --json > analysis.json
    python bench/readme_figures.py scheduler.json analysis.json        # rewrites the table in README.md
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def _num(x: float) -> str:
    return f"{x:,.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def table(runs: list[dict[str, Any]]) -> str:
    lines = ["| figure | value | baseline (same run) | ratio |", "| --- | --- | --- | --- |"]
    for run in runs:
        for name, f in run["figures"].items():
            value = f"{_num(f['value'])} {f['unit']}"
            if f["baseline"] is None:
                baseline, ratio = "–", "–"
            else:
                baseline = f"{_num(f['baseline'])} {f['unit']}: {f['baseline_what']}"
                ratio = f"{f['ratio']:.2f}×"
            lines.append(f"| {f['what']} (`{run['bench']}.{name}`) | {value} | {baseline} | {ratio} |")
    stamps = sorted({f"{r['measured_at'][:10]}, {r['machine']['cpus']} CPUs" for r in runs})
    lines.append("")
    lines.append(f"Measured {'; '.join(stamps)}.")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json_files", nargs="+", type=Path)
    parser.add_argument("--print", action="store_true", help="print the table instead of rewriting README.md")
    args = parser.parse_args()
    made = table([json.loads(p.read_text()) for p in args.json_files])
    if args.print:
        print(made)
        return 0
    text = README.read_text()
    pattern = re.escape(BEGIN) + r"\n.*?\n" + re.escape(END)
    if not re.search(pattern, text, flags=re.S):
        print(f"README.md has no {BEGIN} ... {END} block", file=sys.stderr)
        return 1
    README.write_text(re.sub(pattern, lambda _: f"{BEGIN}\n{made}\n{END}", text, flags=re.S))
    return 0


if __name__ == "__main__":
    sys.exit(main())
