"""qe.dipole_correction and qe.constraints on a polar bilayer: the sawtooth or a 2D cutoff; if_pos flags."""

from __future__ import annotations

import pytest

from tests.grading.qe._helpers import grade_input, qe_check

# AB-stacked bilayer hBN, c = 25 Å, layers at 0.434 and 0.566 of the cell (z = 10.85 and 14.15 Å).
BILAYER = """&control
  calculation = 'scf', pseudo_dir = 'pseudo', outdir = 'tmp'
  {control}
/
&system
  ibrav = 4, celldm(1) = 4.731874, celldm(3) = 9.984026, nat = 4, ntyp = 2,
  ecutwfc = 45, ecutrho = 360, vdw_corr = 'dft-d3'
  {system}
/
&electrons
/
ATOMIC_SPECIES
B 10.811 B.pbe-n-rrkjus_psl.1.0.0.UPF
N 14.007 N.pbe-n-rrkjus_psl.1.0.0.UPF
ATOMIC_POSITIONS crystal
B 0.0 0.0 0.434
N 0.333333333 0.666666667 0.434
B 0.333333333 0.666666667 0.566
N 0.666666667 0.333333333 0.566
K_POINTS automatic
12 12 1 0 0 0
"""

GOOD = {"control": "tefield = .true., dipfield = .true.", "system": "edir = 3, emaxpos = 0.9, eopreg = 0.05"}


def grade(tmp_path, control: str, system: str, **params):
    text = BILAYER.format(control=control, system=system)
    return grade_input(tmp_path, text, qe_check("qe.dipole_correction", params=params))


def test_sawtooth_along_the_normal_with_its_ramp_in_the_vacuum_passes(tmp_path):
    res = grade(tmp_path, **GOOD)
    assert res.passed, res.message
    # the ramp (0.90-0.95 of 25 Å) is 0.334 x 25 = 8.35 Å above the top layer
    assert res.actual == pytest.approx(8.35, abs=0.01)


def test_the_2d_coulomb_cutoff_is_an_alternative(tmp_path):
    assert grade(tmp_path, "", "assume_isolated = '2D'").passed
    assert not grade(tmp_path, "", "assume_isolated = '2D'", allow_2d_cutoff=False).passed


@pytest.mark.parametrize(
    ("control", "system", "says"),
    [
        ("", "", "tefield = .false."),
        ("tefield = .true.", "edir = 3, emaxpos = 0.9, eopreg = 0.05", "without dipfield"),
        # pw.x's default edir = 1 is an in-plane axis here
        ("tefield = .true., dipfield = .true.", "emaxpos = 0.9, eopreg = 0.05", "edir = 1"),
        # the default ramp (0.5 to 0.6) runs through the bilayer
        ("tefield = .true., dipfield = .true.", "edir = 3", "from the nearest atom"),
        (
            "tefield = .true., dipfield = .true.",
            "edir = 3, emaxpos = 0.9, eopreg = 0.05, eamp = 0.001",
            "external field",
        ),
    ],
)
def test_what_leaves_the_images_coupled_or_adds_a_field_fails(tmp_path, control, system, says):
    res = grade(tmp_path, control, system)
    assert not res.passed and says in res.message, res.message


def test_the_ramp_distance_edge(tmp_path):
    # top layer at 0.566 x 25 = 14.15 Å; a ramp starting at 0.65 is 2.10 Å above it, at 0.645 1.975 Å
    control = GOOD["control"]
    assert grade(tmp_path, control, "edir = 3, emaxpos = 0.65, eopreg = 0.05").passed
    assert not grade(tmp_path, control, "edir = 3, emaxpos = 0.645, eopreg = 0.05").passed
    # the ramp may wrap around the cell boundary: 0.98 + 0.05 ends at 0.03 of the cell
    assert grade(tmp_path, control, "edir = 3, emaxpos = 0.98, eopreg = 0.05").passed
    # below the bottom layer (0.434 x 25 = 10.85 Å): a ramp ending at 0.35 is 2.1 Å away
    assert grade(tmp_path, control, "edir = 3, emaxpos = 0.30, eopreg = 0.05").passed
    assert not grade(tmp_path, control, "edir = 3, emaxpos = 0.33, eopreg = 0.05").passed


def _with_flags(flags: list[str]) -> str:
    text = BILAYER.format(control="", system="").replace("calculation = 'scf'", "calculation = 'relax'")
    lines = text.splitlines()
    start = lines.index("ATOMIC_POSITIONS crystal") + 1
    for k, f in enumerate(flags):
        lines[start + k] += f" {f}"
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("flags", "passed", "says"),
    [
        (["0 0 1"] * 4, True, "holds x, y"),
        (["0 0 0", "0 0 0", "0 0 1", "0 0 1"], True, "holds x, y"),  # one layer anchored: still a relaxation
        ([""] * 4, False, "4 of 4 atoms may move along x"),  # no flags: the layers may slide back
        (["0 0 1", "0 0 1", "0 0 1", "1 1 1"], False, "1 of 4 atoms may move along x"),
        (["0 0 0", "0 0 0", "0 0 0", "0 0 1"], False, "only 1 of 4 atoms may move along z"),
    ],
)
def test_in_plane_components_held_and_the_normal_free(tmp_path, flags, passed, says):
    check = qe_check("qe.constraints", params={"fixed": ["x", "y"], "free": ["z"]})
    res = grade_input(tmp_path, _with_flags(flags), check)
    assert res.passed is passed and says in res.message, res.message


def test_non_integer_flags_stop_pw_x(tmp_path):
    res = grade_input(tmp_path, _with_flags(["0 0 1", "0 0 1", "0 0 1", "0 0 a"]), qe_check("qe.valid"))
    assert not res.passed and "if_pos" in res.message
