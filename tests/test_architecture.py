"""The architecture as checks: the import contracts hold, and the reference scripts stand apart from cmb.

The scripts under references/ reproduce the expensive simulations once; they must run without the harness, so that
a reference value never depends on the code that grades against it.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCES = REPO / "references"
NIO = "references/nio-vasp-afm-u-inputs/reproduce/make_inputs.py"  # once compared its cells with cmb.grading
SHELL_USE = re.compile(r"\b(?:import|from) cmb\b|(?<!\S)-m cmb\b|^\s*cmb\s|[;&|(]\s*cmb\s", re.M)  # in shell scripts


def _imports_cmb(path: Path) -> list[str]:
    """The lines of a script that import or run cmb."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return [m.group(0).strip() for m in SHELL_USE.finditer(text)]
    found = []
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        found += [f"l.{node.lineno}: {n}" for n in names if n == "cmb" or n.startswith("cmb.")]
    return found


def _offenders() -> dict[str, list[str]]:
    scripts = [p for p in sorted(REFERENCES.rglob("*")) if p.is_file() and p.suffix in (".py", ".sh")]
    assert scripts, "references/ holds reproduce scripts"
    found = {str(p.relative_to(REPO)): _imports_cmb(p) for p in scripts}
    return {k: v for k, v in found.items() if v}


def test_no_reference_script_imports_cmb() -> None:
    assert _offenders() == {}


def test_the_nio_reproduce_script_does_not_import_cmb() -> None:
    assert (REPO / NIO).is_file() and NIO not in _offenders()


def test_the_scan_sees_an_import_of_cmb(tmp_path: Path) -> None:
    script = tmp_path / "make.py"
    script.write_text("import numpy\n\ndef f():\n    from cmb.grading._structure import compare\n")
    assert _imports_cmb(script) == ["l.4: cmb.grading._structure"]
    shell = tmp_path / "run.sh"
    shell.write_text(
        "set -e\npython3 -m cmb grade x y\ncmb tasks list\necho cmbx cmb-data\npython3 - <<EOF\nimport cmb\nEOF\n"
    )
    assert len(_imports_cmb(shell)) == 3


def test_the_import_contracts_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    cli = pytest.importorskip("importlinter.cli", reason="import-linter is a development dependency")
    monkeypatch.chdir(REPO)
    assert cli.lint_imports(no_cache=True) == 0, "run `lint-imports` to see the broken contract"


def test_a_launcher_imports_only_what_every_attempt_needs() -> None:
    """A Ray launcher imports cmb.scheduler when it starts, before its first attempt, in every sweep: grading
    families, pymatgen, the gateway's server, pandas and MLflow load later, where an attempt needs them."""
    heavy = ("pandas", "pymatgen", "scipy", "aiohttp", "mlflow", "cmb.grading.qe", "cmb.gateway._server")
    code = f"import sys, cmb.scheduler\nprint(sorted({{m for m in sys.modules if m.startswith({heavy!r})}}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]", out.stdout
