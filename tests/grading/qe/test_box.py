"""qe.box: the box of an isolated atom, measured between its opposite faces, in every way pw.x can set a cell."""

from __future__ import annotations

import pytest

from tests.grading.qe._helpers import grade_input, qe_check

ATOM = """&control
  calculation = 'scf', pseudo_dir = 'pseudo', outdir = 'tmp'
/
&system
  {cell}, nat = 1, ntyp = 1, ecutwfc = 45, ecutrho = 360,
  nspin = 2, occupations = 'smearing', degauss = 0.005, tot_magnetization = 4
/
&electrons
/
ATOMIC_SPECIES
Fe 55.845 Fe.pbe-nd-rrkjus.UPF
ATOMIC_POSITIONS angstrom
Fe 0.0 0.0 0.0
{cards}K_POINTS gamma
"""


def grade(tmp_path, cell: str, cards: str = "", min_height: float = 12.0):
    text = ATOM.format(cell=cell, cards=cards)
    return grade_input(tmp_path, text, qe_check("qe.box", params={"min_height": min_height}))


@pytest.mark.parametrize(
    ("cell", "thinnest", "passes"),
    [
        ("ibrav = 8, A = 12.0, B = 12.5, C = 13.0", 12.0, True),
        ("ibrav = 8, A = 11.99, B = 12.5, C = 13.0", 11.99, False),
        ("ibrav = 8, A = 12.5, B = 13.0, C = 11.9", 11.9, False),
        ("ibrav = 1, A = 6.0", 6.0, False),
        # celldm(1) in bohr: 23 bohr = 12.171 Å
        ("ibrav = 1, celldm(1) = 23.0", 12.171, True),
    ],
)
def test_the_thinnest_distance_between_opposite_faces_is_graded(tmp_path, cell, thinnest, passes):
    res = grade(tmp_path, cell)
    assert res.passed is passes, res.message
    assert res.actual == pytest.approx(thinnest, abs=1e-3)
    assert res.expected == 12.0


def test_a_skewed_cell_with_long_edges_but_thin_layers_fails(tmp_path):
    # Edges of 13 Å, but the third vector leans so far that its layers are only 13 x cos(60°) = 6.5 Å apart.
    cards = "CELL_PARAMETERS angstrom\n13.0 0.0 0.0\n0.0 13.0 0.0\n0.0 11.258330 6.5\n"
    res = grade(tmp_path, "ibrav = 0", cards)
    assert not res.passed
    assert res.actual == pytest.approx(6.5, abs=1e-3)
    assert "6.500" in res.message


def test_an_fcc_cell_is_measured_by_its_heights_not_its_edges(tmp_path):
    # ibrav = 2 with a = 20 Å: edges a/√2 = 14.14 Å, heights a/√3 = 11.55 Å
    res = grade(tmp_path, "ibrav = 2, A = 20.0")
    assert not res.passed
    assert res.actual == pytest.approx(20 / 3**0.5, abs=1e-3)
