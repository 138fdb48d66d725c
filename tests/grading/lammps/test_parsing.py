"""Lines, words and formulas as LAMMPS reads them."""

from __future__ import annotations

from cmb.grading._submission import Submission
from cmb.grading.lammps import interpret, logical_lines, lookup
from tests.conftest import write_files
from tests.grading.lammps._helpers import _script, box, setting_check


def test_continuation_drops_the_ampersand_and_joins_directly():
    assert logical_lines("timestep 0.00&\n5\nrun 1") == [(1, "timestep 0.005"), (3, "run 1")]
    assert logical_lines("fix 1 all nvt &\n  temp 1 1 1") == [(1, "fix 1 all nvt   temp 1 1 1")]


def test_comment_ending_in_ampersand_swallows_the_next_line(tmp_path):
    text = "units metal\ntimestep 0.001 # comment &\ntimestep 0.003\n" + box() + "run 0\n"
    assert _script(tmp_path, text, setting_check("timestep"), x=0.001).passed


def test_hash_and_dollar_inside_quotes_are_literal(tmp_path):
    text = "units metal\n" + box() + "thermo_style custom step '#temp' \"$x\"\nrun 0\n"
    res = _script(tmp_path, text, setting_check("thermo_style"), x=["custom", "step", "#temp", "$x"])
    assert res.passed, res.message


def test_formula_precedence_follows_lammps(tmp_path):
    text = "variable a equal -2^2\nvariable b equal 2^3^2\nvariable c equal 2+3*4^2/8-1\n" + box() + "run 0\n"
    root = write_files(tmp_path, {"in.lmp": text})
    values = interpret(Submission(root), "in.lmp").stages[-1].values
    assert [lookup(f"variable.{v}", values) for v in "abc"] == ["4", "64", "7"]


def test_redefining_an_index_variable_is_ignored(tmp_path):
    text = "variable T index 300\nvariable T index 500\nunits metal\n" + box() + "fix 1 all nvt temp $T $T 0.1\nrun 1\n"
    assert _script(tmp_path, text, setting_check("fix.nvt.temp.0"), x=300).passed
