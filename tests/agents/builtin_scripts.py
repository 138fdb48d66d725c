"""Scripted model replies that solve si-eos-analysis, for the built-in agents driven by the scripted test server."""

from __future__ import annotations

import json
from pathlib import Path

from cmb.catalog import Catalog
from cmb.grading import grade
from cmb.models import GradeReport

REPO = Path(__file__).resolve().parents[2]
TASK = "si-eos-analysis"

# Written for these tests: a third-order Birch-Murnaghan fit is a cubic in V^(-2/3), so np.polyfit does it exactly.
FIT_CODE = r"""
import glob, json, re
import numpy as np
BOHR_A, RY_EV, EV_A3_GPA = 0.529177211, 13.605693, 160.21766
points = []
for path in sorted(glob.glob("scf_*.out")):
    text = open(path).read()
    nat = int(re.search(r"number of atoms/cell\s*=\s*(\d+)", text).group(1))
    vol = float(re.search(r"unit-cell volume\s*=\s*([\d.]+)", text).group(1))
    energy = float(re.findall(r"^!\s+total energy\s*=\s*(-?[\d.]+)", text, re.M)[-1])
    points.append((vol * BOHR_A**3 / nat, energy * RY_EV / nat))
v, e = np.array(points).T
x = v ** (-2.0 / 3.0)
c = np.polyfit(x, e, 3)
d1, d2 = np.polyder(c), np.polyder(c, 2)
x0 = min((r.real for r in np.roots(d1) if abs(r.imag) < 1e-9 and np.polyval(d2, r.real) > 0),
         key=lambda r: abs(r - x.mean()))
v0 = x0 ** -1.5
b0 = 4.0 / 9.0 * x0 ** 3.5 * np.polyval(d2, x0) * EV_A3_GPA
a0 = (8 * v0) ** (1.0 / 3.0)  # eight atoms in the conventional diamond cube
e0 = np.polyval(c, x0)  # eV/atom at the minimum
answer = {"a0_angstrom": round(a0, 5), "B0_GPa": round(b0, 3), "V0_per_atom_A3": round(v0, 5),
          "E0_eV_per_atom": round(e0, 5)}
with open("answer.json", "w") as f:
    json.dump(answer, f)
print(answer)
"""

# A minimal external agent: one chat request through the gateway; the reply's text is the program it runs.
CLIENT = r"""
import json, os, sys, urllib.request
body = {"model": os.environ["CMB_MODEL"], "messages": [{"role": "user", "content": "solve"}]}
req = urllib.request.Request(os.environ["CMB_BASE_URL"] + "/v1/chat/completions", data=json.dumps(body).encode(),
                             headers={"Authorization": "Bearer " + os.environ["CMB_API_KEY"],
                                      "Content-Type": "application/json"})
try:
    reply = json.load(urllib.request.urlopen(req, timeout=120))
except Exception as exc:
    print("model call failed:", exc, file=sys.stderr)
    sys.exit(3)
exec(reply["choices"][0]["message"]["content"])
"""

USAGE = [
    {"prompt": 1500, "completion": 60, "cached": 0},
    {"prompt": 1800, "completion": 400, "cached": 1400, "reasoning": 50},
    {"prompt": 2300, "completion": 30, "cached": 1700},
]
# gpt-4o-mini in the pinned genai-prices table: 0.15 USD/M input, 0.075 cached input, 0.60 output
MINI = {"input": 0.15e-6, "cached": 0.075e-6, "output": 0.60e-6}


def expected_cost(usage: list[dict[str, int]]) -> float:
    """The cost of the scripted usage at gpt-4o-mini prices."""
    return sum(
        (u["prompt"] - u.get("cached", 0)) * MINI["input"]
        + u.get("cached", 0) * MINI["cached"]
        + u["completion"] * MINI["output"]
        for u in usage
    )


def codeact_replies() -> list[dict[str, object]]:
    """Look around, fit and write the answer (using a variable from step 1), then the final answer."""
    steps = [
        {"thought": "See the inputs.", "code": "import glob\nfiles = sorted(glob.glob('scf_*.out'))\nprint(files)"},
        {"thought": "Fit BM3.", "code": FIT_CODE + "\nprint('fitted', len(files), 'files')"},
        {"thought": "answer.json is written.", "final_answer": "a0, B0 and V0 are in answer.json"},
    ]
    return [{"content": json.dumps(s), "usage": u} for s, u in zip(steps, USAGE, strict=True)]


def react_replies() -> list[dict[str, object]]:
    """write_file the fit script, run_shell it, read_file the answer, submit."""
    calls = [
        [{"name": "write_file", "arguments": {"path": "fit.py", "content": FIT_CODE}}],
        [{"name": "run_shell", "arguments": {"command": "python3 fit.py && ls"}}],
        [
            {"name": "read_file", "arguments": {"path": "answer.json"}},
            {"name": "submit", "arguments": {"summary": "done"}},
        ],
    ]
    return [{"content": None, "tool_calls": c, "usage": u} for c, u in zip(calls, USAGE, strict=True)]


def grade_folder(folder: Path) -> GradeReport:
    """Grade a folder holding answer.json against the task's hidden reference."""
    entry = Catalog.load(REPO).get(TASK)
    return grade(entry.grader(), entry.reference(), folder, entry.reference_dir)


def stage_task(dest: Path) -> Path:
    """The task's workspace files and prompt in a fresh folder (what a sandbox would hold)."""
    from cmb.catalog import stage_bundle
    from cmb.models import Condition

    entry = Catalog.load(REPO).get(TASK)
    stage_bundle(entry, Condition.SF, dest)
    (dest / "PROMPT.md").write_text(entry.prompt(Condition.SF), encoding="utf-8")
    return dest
