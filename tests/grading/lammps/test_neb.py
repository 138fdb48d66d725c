"""lammps.neb_coords: the final-replica file of an NEB run read as LAMMPS reads it, and the replica it gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cmb.grading.lammps._neb import NebFileError, nearest_image, parse_neb_coords, read_atomic_data

DATA = """LAMMPS data file (two atoms in a sheared cell)

2 atoms
1 atom types

0 10 xlo xhi
0 8 ylo yhi
0 20 zlo zhi
5 0 0 xy xz yz

Atoms # atomic

1 1 0 0 5 0 0 0
2 1 {x2} 1 5 0 0 0
"""


def test_reads_counts_ids_and_skips_comments_and_blank_lines():
    moved = parse_neb_coords("# final state\n\n2\n1 0.5 0 5  # moved\n\n2 3 1 5\n")
    assert sorted(moved) == [1, 2]
    assert moved[1].tolist() == [0.5, 0.0, 5.0]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no count line"),
        ("1 0 0 5\n", "first line must hold the number"),
        ("2\n1 0 0 5\n", "says 2 atoms but 1"),
        ("1\n1 1 0 0 5\n", "not an 'ID x y z' line"),
        ("1\n1 0 zero 5\n", "not an 'ID x y z' line"),
        ("2\n1 0 0 5\n1 0 0 6\n", "listed twice"),
    ],
)
def test_files_lammps_would_not_read(text, why):
    with pytest.raises(NebFileError, match=why):
        parse_neb_coords(text)


def test_nearest_image_in_a_sheared_cell():
    box, atoms = read_atomic_data(DATA.format(x2=2), "two.data")
    assert box.tolist() == [[10, 0, 0], [5, 8, 0], [0, 0, 20]]
    assert atoms[2].tolist() == [2, 1, 5]
    # one b vector away (5, 8, 0) plus a small step reduces to the step
    step = nearest_image(np.array([[5.1, 8.0, 0.0]]), box)
    assert step == pytest.approx(np.array([[0.1, 0.0, 0.0]]))


def _grade(tmp_path: Path, coords: str, x2_final: float, tolerance: float = 0.01):
    from cmb.grading import grade
    from cmb.models import GraderSpec, Reference

    ref = tmp_path / "ref"
    (ref / "states").mkdir(parents=True, exist_ok=True)
    (ref / "states" / "a.data").write_text(DATA.format(x2=2))
    (ref / "states" / "b.data").write_text(DATA.format(x2=x2_final))
    sub = tmp_path / "sub"
    sub.mkdir(exist_ok=True)
    (sub / "final.coords").write_text(coords)
    grader = GraderSpec.model_validate(
        {
            "version": 1,
            "task": "t",
            "checks": [
                {
                    "id": "final-replica",
                    "type": "lammps.neb_coords",
                    "category": "software",
                    "target": {"file": "final.coords"},
                    "params": {
                        "initial_state": "states/a.data",
                        "final_state": "states/b.data",
                        "tolerance": tolerance,
                    },
                }
            ],
        }
    )
    reference = Reference.model_validate({"version": 1, "task": "t", "values": {}})
    return grade(grader, reference, sub, reference_dir=ref).checks[0]


def test_listed_atom_in_another_image_gives_the_final_state(tmp_path):
    # atom 2 goes from x = 2 to x = 4; written one a vector away (x = 14), LAMMPS takes x = 4
    assert _grade(tmp_path, "1\n2 14 1 5\n", 4).passed


def test_unlisted_moving_atom_and_wrong_ids_fail(tmp_path):
    assert not _grade(tmp_path, "1\n1 0 0 5\n", 4).passed  # atom 2 left at x = 2, 2 A off
    result = _grade(tmp_path, "1\n3 4 1 5\n", 4)
    assert not result.passed and "not in the initial state" in result.message


def test_missing_and_binary_files_fail(tmp_path):
    assert not _grade(tmp_path, "", 4).passed
    (tmp_path / "bin").mkdir()
    result = _grade(tmp_path / "bin", "\x00\x01\x02", 4)
    assert not result.passed
