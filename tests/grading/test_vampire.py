"""The vampire check family on a small deck: AFM-[110]2 Cr moments of rock-salt CrN in the orthorhombic 4-Cr cell.

Each test edits one thing VAMPIRE would read differently and names the check that must notice.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from cmb.grading import grade
from cmb.grading.vampire import VampireInputError, parse_input, parse_material_file, parse_ucf, read_deck
from cmb.models import Check, GraderSpec, Reference

A0 = 4.15
SIZE = (A0 * 2**0.5, A0 / 2**0.5, A0)
CR = [(0.0, 0.0, 0.0), (0.25, 0.5, 0.5), (0.5, 0.0, 0.0), (0.75, 0.5, 0.5)]  # (110) planes 0, 1, 2, 3
SPINS = [1, 1, -1, -1]
MEV = 1.602176487e-22
# VAMPIRE convention (E = -sum_{i<j} J S_i.S_j, unit spins): meV per pair, by shell and spin relation
J = {(0, True): 2.0, (0, False): -6.0, (1, True): 1.0, (1, False): -0.5}
SHELLS = [{"r": A0 / 2**0.5, "parallel": 6, "antiparallel": 6}, {"r": A0, "parallel": 2, "antiparallel": 4}]


def pairs(spins=SPINS):
    """(i, j, cell, shell, parallel) for every directed pair of the first two shells."""
    out = []
    size = np.array(SIZE)
    for i, j in itertools.product(range(4), repeat=2):
        for cell in itertools.product(range(-2, 3), repeat=3):
            r = float(np.linalg.norm((np.array(CR[j]) + cell - np.array(CR[i])) * size))
            for k, s in enumerate(SHELLS):
                if abs(r - s["r"]) < 0.05:
                    out.append((i, j, cell, k, spins[i] * spins[j] > 0))
    return out


def ucf_text(scale=MEV, mats=(0, 0, 1, 1), spins=SPINS, drop_last=False, shape="1 0 0\n0 1 0\n0 0 1\n"):
    lines = ["# cell", f"{SIZE[0]:.6f} {SIZE[1]:.6f} {SIZE[2]:.6f}", "# shape", shape.rstrip(), "# atoms", "4 2"]
    lines += [f"{k} {x} {y} {z} {m} 0 0" for k, ((x, y, z), m) in enumerate(zip(CR, mats, strict=True))]
    terms = pairs(spins)
    if drop_last:
        terms = terms[:-1]
    lines += ["# interactions", f"{len(terms)} isotropic"]
    lines += [
        f"{n} {i} {j} {c[0]} {c[1]} {c[2]} {J[(k, par)] * scale:.6e}" for n, (i, j, c, k, par) in enumerate(terms)
    ]
    return "\n".join(lines) + "\n"


MAT = """material:num-materials = 2
material[1]:material-name = Cr_up
material[1]:atomic-spin-moment = 2.6 !muB
material[1]:initial-spin-direction = 0,0,1
material[1]:unit-cell-category = 1
material[2]:material-name = Cr_down
material[2]:atomic-spin-moment = 2.6 !muB
material[2]:initial-spin-direction = 0,0,-1
material[2]:unit-cell-category = 2
"""

INPUT = """# CrN Neel temperature
create:full
create:periodic-boundaries-x
create:periodic-boundaries-y
create:periodic-boundaries-z
material:file = crn.mat
material:unit-cell-file = "crn.ucf"
dimensions:system-size-x = 8.0 !nm
dimensions:system-size-y = 8.0 !nm
dimensions:system-size-z = 8.0 !nm
sim:program = curie-temperature
sim:integrator = monte-carlo
sim:minimum-temperature = 10
sim:maximum-temperature = 600
sim:temperature-increment = 10
sim:equilibration-time-steps = 5000
sim:loop-time-steps = 10000
output:temperature
output:material-magnetisation
"""

REFERENCE_SUMS = []
for k, s in enumerate(SHELLS):
    REFERENCE_SUMS += [s["parallel"] * J[(k, True)] * MEV, s["antiparallel"] * J[(k, False)] * MEV]


def checks() -> list[Check]:
    raw = [
        {"id": "deck", "type": "vampire.deck", "category": "software", "target": {"file": "input"}},
        {
            "id": "program",
            "type": "vampire.setting",
            "category": "scientific",
            "target": {"file": "input", "setting": "sim:program"},
            "params": {"any_of": ["curie-temperature"]},
        },
        {
            "id": "pbc-x",
            "type": "vampire.setting",
            "category": "scientific",
            "target": {"file": "input", "setting": "create:periodic-boundaries-x"},
            "params": {"any_of": [True]},
        },
        {
            "id": "size-x",
            "type": "vampire.setting",
            "category": "scientific",
            "target": {"file": "input", "setting": "dimensions:system-size-x"},
            "params": {"min": 5.0, "unit": "nm"},
            "states": ["at least 5 nm"],
        },
        {
            "id": "moment",
            "type": "vampire.material",
            "category": "scientific",
            "target": {"file": "input", "setting": "atomic-spin-moment"},
            "reference": "moment",
            "tolerance": {"rel": 0.1},
            "params": {"reference_unit": "muB"},
        },
        {
            "id": "order",
            "type": "vampire.sublattices",
            "category": "scientific",
            "target": {"file": "input"},
            "params": {"shells": SHELLS},
        },
        {
            "id": "exchange",
            "type": "vampire.exchange",
            "category": "scientific",
            "target": {"file": "input"},
            "reference": "sums",
            "tolerance": {"rel": 0.05},
            "params": {"shells": SHELLS},
        },
    ]
    return [Check.model_validate(c) for c in raw]


SPEC = GraderSpec(task="vampire-test", checks=checks())
REFERENCE = Reference.model_validate(
    {"task": "vampire-test", "values": {"moment": {"value": 2.6}, "sums": {"value": REFERENCE_SUMS}}}
)


def write(folder: Path, input_text=INPUT, mat=MAT, ucf=None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "input").write_text(input_text)
    (folder / "crn.mat").write_text(mat)
    (folder / "crn.ucf").write_text(ucf_text() if ucf is None else ucf)
    return folder


def failed(folder: Path) -> set[str]:
    report = grade(SPEC, REFERENCE, folder)
    return {c.id for c in report.checks if not c.passed}


# ------------------------------------------------------------------------------------------------ reading


def test_input_tokenised_as_vampire_does():
    stmts = parse_input('sim : program = curie-temperature  # sweep\n  material:unit-cell-file = "a b.ucf"\n# x\n')
    assert [(s.name, s.value) for s in stmts] == [
        ("sim:program", "curie-temperature"),
        ("material:unit-cell-file", "ab.ucf"),
    ]
    (size,) = parse_input("dimensions:system-size-x = 8.0 !nm\n")
    assert (size.value, size.unit) == ("8.0", "nm")


def test_material_file_indices():
    stmts = parse_material_file("material[2]:exchange-matrix[1] = -1.5 !meV\nmaterial : num-materials = 2\n")
    assert (stmts[0].index, stmts[0].word, stmts[0].sub_index, stmts[0].unit) == (2, "exchange-matrix", 1, "meV")
    assert stmts[1].index is None and stmts[1].word == "num-materials"


def test_ucf_material_ids_must_exist():
    with pytest.raises(VampireInputError, match="material id 1"):
        parse_ucf(ucf_text(), num_materials=1)


def test_deck_follows_the_input_to_its_files(tmp_path):
    d = read_deck(lambda n: (write(tmp_path) / n).read_text(), "input")
    assert d.num_materials == 2 and len(d.ucf.atoms) == 4 and d.setting("sim:loop-time-steps").value == 10000
    assert d.setting("sim:integrator").value == "monte-carlo"
    assert d.setting("dimensions:system-size-x").value == pytest.approx(80.0)  # internal unit: angstrom


# ------------------------------------------------------------------------------------------------ the checks


def test_good_deck_passes(tmp_path):
    assert failed(write(tmp_path)) == set()


def test_no_heights_no_categories_passes(tmp_path):
    # with create:full and no height windows VAMPIRE keeps the unit-cell file's materials: categories not needed
    mat = "\n".join(ln for ln in MAT.splitlines() if "category" not in ln) + "\n"
    assert failed(write(tmp_path, mat=mat)) == set()


def test_heights_without_categories_merge_the_sublattices(tmp_path):
    # minimum/maximum-height switch on selection by height; every material then claims category 1 (the first
    # unit-cell material) and the last one wins: all four Cr end in material 2, both spin directions in one
    mat = "\n".join(ln for ln in MAT.splitlines() if "category" not in ln) + "\n"
    mat += "material[1]:minimum-height = 0.0\nmaterial[1]:maximum-height = 1.0\n"
    mat += "material[2]:minimum-height = 0.0\nmaterial[2]:maximum-height = 1.0\n"
    assert failed(write(tmp_path, mat=mat)) == {"order", "exchange"}


def test_heights_with_categories_pass(tmp_path):
    mat = MAT + "material[1]:minimum-height = 0.0\nmaterial[2]:maximum-height = 1.0\n"
    assert failed(write(tmp_path, mat=mat)) == set()


def test_single_layer_order_fails(tmp_path):
    spins = [1, -1, 1, -1]
    mat = MAT
    assert failed(write(tmp_path, mat=mat, ucf=ucf_text(mats=(0, 1, 0, 1), spins=spins))) == {"order", "exchange"}


def test_one_material_for_both_sublattices_fails(tmp_path):
    mat = MAT.replace("material:num-materials = 2", "material:num-materials = 1")
    mat = "\n".join(ln for ln in mat.splitlines() if not ln.startswith("material[2]")) + "\n"
    assert "order" in failed(write(tmp_path, mat=mat, ucf=ucf_text(mats=(0, 0, 0, 0))))


def test_missing_reverse_interaction_stops_vampire(tmp_path):
    assert "deck" in failed(write(tmp_path, ucf=ucf_text(drop_last=True)))


def test_moment_without_unit_stops_vampire(tmp_path):
    mat = MAT.replace("2.6 !muB", "2.6", 1)
    assert {"deck", "moment"} <= failed(write(tmp_path, mat=mat))


def test_non_orthogonal_shape_fails(tmp_path):
    assert failed(write(tmp_path, ucf=ucf_text(shape="1 0 0\n0.5 0.866 0\n0 0 1\n"))) == {"deck"}


@pytest.mark.parametrize(
    ("name", "scale"),
    [("meV written as joules", 1.0), ("TB2J's double-counted J not doubled", MEV / 2), ("sign flipped", -MEV)],
)
def test_exchange_errors_fail(name, scale, tmp_path):
    assert failed(write(tmp_path, ucf=ucf_text(scale=scale))) == {"exchange"}, name


def test_system_size_without_unit_is_angstrom(tmp_path):
    text = INPUT.replace("dimensions:system-size-x = 8.0 !nm", "dimensions:system-size-x = 8.0")
    assert failed(write(tmp_path, input_text=text)) == {"size-x"}


def test_open_boundaries_fail(tmp_path):
    text = INPUT.replace("create:periodic-boundaries-x\n", "")
    assert failed(write(tmp_path, input_text=text)) == {"pbc-x"}


def test_default_program_fails(tmp_path):
    text = INPUT.replace("sim:program = curie-temperature\n", "")
    assert failed(write(tmp_path, input_text=text)) == {"program"}


def test_random_initial_spins_fail(tmp_path):
    mat = MAT.replace("initial-spin-direction = 0,0,-1", "initial-spin-direction = random")
    assert {"order", "exchange", "deck"} <= failed(write(tmp_path, mat=mat))


def test_missing_material_file_fails_cleanly(tmp_path):
    write(tmp_path)
    (tmp_path / "crn.mat").unlink()
    assert failed(tmp_path) >= {"deck", "order", "exchange", "moment"}


# ------------------------------------------------------------------------------------------------ vampire.cell

CELL_SPEC = GraderSpec.model_validate(
    {
        "task": "vampire-test",
        "checks": [
            {
                "id": "cell",
                "type": "vampire.cell",
                "category": "scientific",
                "target": {"file": "input"},
                "reference": "lengths",
                "tolerance": {"rel": 0.002},
                "params": {"positions": [list(p) for p in CR]},
            }
        ],
    }
)
CELL_REF = Reference.model_validate({"task": "vampire-test", "values": {"lengths": {"value": list(SIZE)}}})


def cell_failed(folder: Path) -> bool:
    return not grade(CELL_SPEC, CELL_REF, folder).passed


def ucf_of(size, frac, mats) -> str:
    lines = [" ".join(f"{x:.6f}" for x in size), "1 0 0", "0 1 0", "0 0 1", f"{len(frac)} 2"]
    lines += [f"{k} {x:.6f} {y:.6f} {z:.6f} {m} 0 0" for k, ((x, y, z), m) in enumerate(zip(frac, mats, strict=True))]
    return "\n".join([*lines, "0 isotropic"]) + "\n"


def test_cell_reference_passes(tmp_path):
    assert not cell_failed(write(tmp_path))


def test_cell_axes_relabelled_and_supercell_pass(tmp_path):
    perm = (2, 0, 1)  # new x = old z, new y = old x, new z = old y
    size = [SIZE[p] for p in perm]
    frac = [tuple(f[p] for p in perm) for f in CR]
    assert not cell_failed(write(tmp_path / "relabelled", ucf=ucf_of(size, frac, (0, 0, 1, 1))))
    frac2 = [((x + k) / 2, y, z) for k in (0, 1) for (x, y, z) in CR]  # 2x1x1
    size2 = (2 * SIZE[0], SIZE[1], SIZE[2])
    assert not cell_failed(write(tmp_path / "super", ucf=ucf_of(size2, frac2, (0, 0, 1, 1) * 2)))


def test_cell_shifted_origin_passes_and_a_moved_atom_fails(tmp_path):
    shifted = [((x + 0.3) % 1, (y + 0.1) % 1, z) for x, y, z in CR]
    assert not cell_failed(write(tmp_path / "shift", ucf=ucf_of(SIZE, shifted, (0, 0, 1, 1))))
    moved = [*CR[:3], (0.75 + 0.02, 0.5, 0.5)]  # 0.12 A off its site
    assert cell_failed(write(tmp_path / "moved", ucf=ucf_of(SIZE, moved, (0, 0, 1, 1))))


@pytest.mark.parametrize(("scale", "fails"), [(1.0019, False), (1.0021, True), (0.9979, True)])
def test_cell_length_tolerance_edges(scale, fails, tmp_path):
    size = (SIZE[0] * scale, SIZE[1], SIZE[2])
    assert cell_failed(write(tmp_path, ucf=ucf_of(size, CR, (0, 0, 1, 1)))) is fails


def test_cell_with_extra_atoms_fails(tmp_path):
    frac = [*CR, (0.125, 0.0, 0.0)]
    assert cell_failed(write(tmp_path, ucf=ucf_of(SIZE, frac, (0, 0, 1, 1, 0))))
