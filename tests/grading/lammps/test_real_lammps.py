"""The interpreter against the real LAMMPS, where it is installed."""

from __future__ import annotations

import pytest

from cmb.grading._submission import Submission
from cmb.grading.lammps import interpret, lookup, tables
from tests.conftest import write_files
from tests.grading.lammps._helpers import POTENTIALS, box, needs_lmp, printed, run_lmp


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("units", sorted(tables().dt))
def test_default_timestep_matches_lammps(tmp_path, units):
    status, out = run_lmp(f'units {units}\n{box()}print "DT $(dt)"\n', tmp_path)
    assert status == 0, out
    assert float(printed(out, "DT")) == pytest.approx(tables().dt[units], rel=1e-12)


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("units", ["lj", "metal", "real"])
def test_default_neighbor_skin_matches_lammps(tmp_path, units):
    """LAMMPS prints cutoff + skin as 'master list distance cutoff'; pair cutoff is 1.0 here."""
    script = (f"units {units}\nlattice sc 1.0\n{box()}create_atoms 1 box\nmass 1 1.0\n"
              "pair_style lj/cut 1.0\npair_coeff * * 0.0 0.5\nrun 0\n")  # fmt: skip
    status, out = run_lmp(script, tmp_path)
    assert status == 0, out
    cutoff = float(out.split("master list distance cutoff =")[1].split()[0])
    assert cutoff - 1.0 == pytest.approx(tables().skin[units])


# Scripts with the value LAMMPS prints as "OUT", and the setting path whose value must agree.
AGREEMENT = {
    "units-resets-timestep": ("timestep 0.002\nunits metal\n" + box() + 'print "OUT $(dt)"\n', "timestep"),
    "continuation": ("units metal\n" + box() + "timestep 0.00&\n5\n" + 'print "OUT $(dt)"\n', "timestep"),
    "comment-ampersand": (
        "units metal\n" + box() + "timestep 0.002 # c &\ntimestep 0.003\n" + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "immediate": ("units real\n" + box() + "timestep $(0.5*dt)\n" + 'print "OUT $(dt)"\n', "timestep"),
    "equal-var": (
        "variable d equal 2*0.0005\nunits metal\n" + box() + "timestep ${d}\n" + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "loop": (
        "variable i loop 3\nlabel l\nvariable t equal ${i}*0.001\nnext i\njump SELF l\nunits metal\n"
        + box()
        + "timestep ${t}\n"
        + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "if-else": (
        'variable a equal 2\nif "${a} > 3" then "units real" elif "${a} > 1" "units si" else '
        '"units lj"\n' + box() + 'print "OUT $(dt)"\n',
        "timestep",
    ),  # fmt: skip
    "if-jump-out-of-loop": (
        "variable a index 1 2 3 4\nlabel top\nvariable t equal ${a}*0.0001\n"
        'if "${a} >= 3" then "jump SELF done"\nnext a\njump SELF top\nlabel done\nunits metal\n'
        + box()
        + "timestep ${t}\n"
        + 'print "OUT $(dt)"\n',
        "timestep",
    ),
    "clear": ("units metal\n" + box() + "clear\nunits real\n" + box() + 'print "OUT $(dt)"\n', "timestep"),
}


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(AGREEMENT))
def test_interpreter_agrees_with_lammps(tmp_path, name):
    script, path = AGREEMENT[name]
    status, out = run_lmp(script, tmp_path)
    assert status == 0, out
    root = write_files(tmp_path / "sub", {"in.lmp": script})
    result = interpret(Submission(root), "in.lmp")
    assert result.stop is None
    assert lookup(path, result.stages[-1].values) == pytest.approx(float(printed(out, "OUT")), rel=1e-12)


# Scripts LAMMPS refuses: the interpreter must stop on them too (and fail every check).
LAMMPS_ERRORS = {
    "sw-elements": "units metal\n" + box(6) + f"pair_style sw\npair_coeff * * {POTENTIALS}/Si.sw Si Si\n",
    "sw-not-star": "units metal\n" + box(1) + f"pair_style sw\npair_coeff 1 1 {POTENTIALS}/Si.sw Si\n",
    "units-after-box": "units metal\n" + box() + "units real\n",
    "bad-units": "units Metal\n",
    "undefined-var": "print OUT ${nope}\n",
    "equal-with-spaces": "variable a equal 2 * 3\n",
    "run-1e4": "units metal\n" + box() + "run 1e4\n",
    "timestep-ps": "units metal\n" + box() + "timestep 0.001ps\n",
    "unbalanced-quote": 'print "OUT a" "b\n',
    "quote-glued": 'print "OUT a"b\n',
    "divide-by-zero": 'variable x equal 1/0\nprint "OUT $x"\n',
    "fix-before-box": "units metal\nfix 1 all nve\n",
    "run-before-box": "units metal\nrun 0\n",
    "mass-out-of-range": "units metal\n" + box(2) + "mass 3 1.0\n",
    "unfix-missing": "units metal\n" + box() + "unfix 3\n",
    "replace-fix-style": "units metal\n" + box() + "fix 1 all npt temp 1 1 1 iso 0 0 1\nfix 1 all nvt temp 1 1 1\n",
    "redefine-style": "variable a equal 3\nvariable a string x\n",
    "pair-coeff-first": "units metal\n" + box() + "pair_coeff * * 1 1\n",
    "missing-label": "jump SELF nowhere\n",
}


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAMMPS_ERRORS))
def test_interpreter_stops_where_lammps_stops(tmp_path, name):
    script = LAMMPS_ERRORS[name]
    status, out = run_lmp(script, tmp_path)
    assert status != 0, f"LAMMPS accepted it:\n{out}"
    root = write_files(tmp_path / "sub", {"in.lmp": script})
    result = interpret(Submission(root), "in.lmp")
    assert result.stop is not None and "LAMMPS stops here" in result.stop


LAMMPS_ACCEPTS = {
    "hybrid": "units metal\n" + box(2) + f"pair_style hybrid sw tersoff\npair_coeff * * sw {POTENTIALS}/Si.sw Si NULL\n"
    f"pair_coeff * * tersoff {POTENTIALS}/SiC.tersoff NULL C\n",
    "eam-star": "units metal\n" + box(2) + f"pair_style eam\npair_coeff * * {POTENTIALS}/Cu_u3.eam\n",
    "index-redefined": "variable T index 300\nvariable T index 500\n",
    "fix-replaced-same-style": "units metal\n" + box() + "fix 1 all nvt temp 1 1 1\nfix 1 all nvt temp 2 2 1\n",
    "loop": "label a\nvariable i loop 3\nnext i\njump SELF a\n",
    "quoted-hash": "print 'OUT #1'\n",
}


@needs_lmp
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAMMPS_ACCEPTS))
def test_interpreter_accepts_what_lammps_accepts(tmp_path, name):
    script = LAMMPS_ACCEPTS[name]
    status, out = run_lmp(script, tmp_path)
    assert status == 0, out
    root = write_files(tmp_path / "sub", {"in.lmp": script})
    assert interpret(Submission(root), "in.lmp").stop is None
