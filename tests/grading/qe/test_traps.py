"""Traps from real QE behaviour: defaults, overrides and spellings that change what pw.x runs."""

from __future__ import annotations

import numpy as np
import pytest
from pymatgen.core.lattice import Lattice
from pymatgen.core.structure import Structure

from cmb.grading import GraderConfigError
from cmb.grading.qe import parse_pw_input, pw_structure
from tests.grading.qe._cases import BOHR, OBSERVED, OBSERVED_FIELDS, case_text
from tests.grading.qe._helpers import SI, effective, grade_input, param, qe_check, with_system


def test_input_without_ecutrho_is_graded_as_4x_ecutwfc(tmp_path):
    assert OBSERVED["plain"][OBSERVED_FIELDS.index("ecutrho") + 1] == 48.0  # pw.x printed it
    res = param(tmp_path, SI, "system.ecutrho", 48.0)
    assert res.passed and "4 × system.ecutwfc" in res.message and res.actual == 48.0
    res = param(tmp_path, SI, "system.ecutrho", 96.0)
    assert not res.passed and "not in the input" in res.message


def test_input_without_ecutrho_fails_a_paw_check_of_ecutrho_at_least_8x_ecutwfc(tmp_path):
    res = param(tmp_path, SI, "system.ecutrho", ratio_to={"setting": "system.ecutwfc", "min": 8})
    assert not res.passed and "4 × system.ecutwfc" in res.message
    paw = {"setting": "SYSTEM.ecutwfc", "min": 8}
    assert param(tmp_path, with_system("ecutrho = 96"), "system.ecutrho", ratio_to=paw).passed
    assert not param(tmp_path, with_system("ecutrho = 95"), "system.ecutrho", ratio_to=paw).passed


def test_celldm_given_in_angstrom_fails_the_structure_check(tmp_path):
    check = qe_check("qe.structure", params={"reference_file": "ref.in"})
    ref = {"ref.in": SI}
    assert grade_input(tmp_path, SI, check, ref_files=ref).passed
    wrong = case_text("celldm_in_angstrom")  # celldm(1) = 5.43: the Å value in a bohr field; pw.x ran it
    assert OBSERVED["celldm_in_angstrom"][0] == "done"
    res = grade_input(tmp_path, wrong, check, ref_files=ref)
    assert not res.passed and "volume per atom" in res.message
    # A is in Å: the same number is right there
    assert grade_input(tmp_path, case_text("a_instead"), check, ref_files=ref).passed


def test_nspin2_without_starting_magnetization_is_caught(tmp_path):
    # pw.x 6.7 stops on both (recorded): with fixed occupations first on tot_magnetization.
    assert OBSERVED["nspin2_fixed"][1].startswith("fixed occupations and lsda need tot_magnetization")
    assert OBSERVED["nspin2_smear"][1].startswith("some starting_magnetization MUST be set")
    for name, message in (("nspin2_fixed", "need tot_magnetization"), ("nspin2_smear", "MUST be set")):
        res = grade_input(tmp_path, case_text(name), qe_check("qe.valid"))
        assert not res.passed and message in res.message
        res = param(tmp_path, case_text(name), "system.nspin", 2)
        assert not res.passed and "pw.x 6.7 stops" in res.message
    assert grade_input(tmp_path, case_text("nspin2_smear_mag"), qe_check("qe.valid")).passed
    assert param(tmp_path, case_text("nspin2_smear_mag"), "system.nspin", 2).passed


def test_kpoints_gamma_is_not_an_automatic_mesh(tmp_path):
    gamma = case_text("kp_gamma")
    res = grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"kind": "automatic"}))
    assert not res.passed and "gamma" in res.message
    assert not grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"min_mesh": [2, 2, 2]})).passed
    assert grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"kind": "gamma"})).passed
    auto1 = SI.replace("2 2 2 0 0 0", "1 1 1 0 0 0")
    assert not grade_input(tmp_path, auto1, qe_check("qe.kpoints", params={"kind": "gamma"})).passed
    res = grade_input(tmp_path, gamma, qe_check("qe.kpoints", params={"mesh": [1, 1, 1], "gamma_as_mesh": False}))
    assert not res.passed and "no Monkhorst-Pack mesh" in res.message


def test_missing_kpoints_card_means_gamma_only(tmp_path):
    assert OBSERVED["kp_absent"][OBSERVED_FIELDS.index("nks") + 1] == 1
    res = grade_input(tmp_path, case_text("kp_absent"), qe_check("qe.kpoints", params={"min_mesh": [2, 2, 2]}))
    assert not res.passed and "no K_POINTS card" in res.message


def test_kpoints_brace_glued_to_the_card_name_is_ignored_by_pw_and_graded_as_gamma(tmp_path):
    text = case_text("kp_glued_braces")  # 'K_POINTS{automatic}': pw.x warns 'card ignored' and uses Γ only
    assert OBSERVED["kp_glued_braces"][OBSERVED_FIELDS.index("nks") + 1] == 1
    res = grade_input(tmp_path, text, qe_check("qe.kpoints", params={"mesh": [2, 2, 2]}))
    assert not res.passed and "no K_POINTS card" in res.message
    res = grade_input(tmp_path, text, qe_check("qe.valid", params={"strict": True}))
    assert not res.passed and "K_POINTS{automatic}" in res.message
    assert grade_input(tmp_path, case_text("kp_braces"), qe_check("qe.kpoints", reference=True), [2, 2, 2]).passed


def test_kpoint_mesh_too_coarse_fails_a_minimum_mesh(tmp_path):
    res = grade_input(tmp_path, SI, qe_check("qe.kpoints", params={"min_mesh": [6, 6, 6]}))
    assert not res.passed and "coarser" in res.message
    fine = SI.replace("2 2 2 0 0 0", "8 8 8 1 1 1")
    assert grade_input(
        tmp_path, fine, qe_check("qe.kpoints", params={"min_mesh": [6, 6, 6], "shift": [1, 1, 1]})
    ).passed
    assert not grade_input(tmp_path, fine, qe_check("qe.kpoints", params={"shift": [0, 0, 0]})).passed
    assert not grade_input(tmp_path, fine, qe_check("qe.kpoints", params={"max_mesh": [4, 4, 4]})).passed


def test_kpoint_spacing_uses_the_cell_pw_x_builds(tmp_path):
    # fcc Si, a = 10.26 bohr: |b| = 2π·√3/a = 1.004 Å⁻¹ per reciprocal vector
    b = 2 * np.pi * np.sqrt(3) / (10.26 * BOHR)
    mesh8 = SI.replace("2 2 2 0 0 0", "8 8 8 0 0 0")
    assert grade_input(tmp_path, mesh8, qe_check("qe.kpoints", params={"max_spacing": b / 8 * 1.01})).passed
    res = grade_input(tmp_path, mesh8, qe_check("qe.kpoints", params={"max_spacing": b / 8 * 0.99}))
    assert not res.passed and "exceeds" in res.message


def test_explicit_kpoint_lists_have_no_mesh(tmp_path):
    text = case_text("kp_list")
    assert grade_input(tmp_path, text, qe_check("qe.kpoints", params={"kind": "list"})).passed
    res = grade_input(tmp_path, text, qe_check("qe.kpoints", params={"min_mesh": [2, 2, 2]}))
    assert not res.passed and "2 explicit points" in res.message


@pytest.mark.parametrize("spelling", ["grimme-d3", "Grimme-D3", "DFT-D3", "dft-d3"])
def test_vdw_corr_d3_spellings_pw_x_accepts(tmp_path, spelling):
    res = param(tmp_path, with_system(f"vdw_corr = '{spelling}'"), "system.vdw_corr", "DFT-D3")
    assert res.passed and res.actual == "grimme-d3"


@pytest.mark.parametrize("spelling", ["d3", "D3", "DFT-d3", "GRIMME-D3"])
def test_vdw_corr_spellings_pw_x_ignores_mean_no_correction(tmp_path, spelling):
    assert OBSERVED["vdw_d3"][OBSERVED_FIELDS.index("vdw") + 1] == "none"
    assert OBSERVED["vdw_D3mixed"][OBSERVED_FIELDS.index("vdw") + 1] == "none"
    res = param(tmp_path, with_system(f"vdw_corr = '{spelling}'"), "system.vdw_corr", "grimme-d3")
    assert not res.passed and res.actual == "none" and "unknown vdw correction" in res.message


def test_obsolete_london_flag_means_grimme_d2(tmp_path):
    assert OBSERVED["vdw_london"][OBSERVED_FIELDS.index("vdw") + 1] == "grimme-d2"
    assert param(tmp_path, case_text("vdw_london"), "system.vdw_corr", "dft-d").passed


def test_grader_spelling_of_a_value_pw_x_does_not_know_is_a_grader_error(tmp_path):
    with pytest.raises(GraderConfigError, match="knows no such value"):
        param(tmp_path, SI, "system.vdw_corr", "d3")


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        ("gauss", "gaussian"),
        ("mp", "methfessel-paxton"),
        ("M-V", "marzari-vanderbilt"),
        ("cold", "marzari-vanderbilt"),
        ("F-D", "fermi-dirac"),
    ],
)
def test_smearing_aliases(tmp_path, spelling, canonical):
    text = with_system(f"occupations = 'smearing', smearing = '{spelling}', degauss = 0.02")
    res = param(tmp_path, text, "system.smearing", any_of=["cold", "gaussian", "m-p", "fd"])
    assert res.passed and res.actual == canonical


def test_smearing_spelling_pw_x_rejects_stops_it(tmp_path):
    assert OBSERVED["smear_COLD"] == ("stop", "smearing COLD unknown")
    res = param(tmp_path, case_text("smear_COLD"), "system.smearing", "cold")
    assert not res.passed and "not accepted" in res.message


def test_smearing_is_ignored_unless_occupations_is_smearing(tmp_path):
    text = case_text("smear_ignored")  # smearing='COLD', degauss=0.02 with fixed occupations: pw.x runs
    assert OBSERVED["smear_ignored"][0] == "done"
    res = param(tmp_path, text, "system.smearing", "cold")
    assert not res.passed and res.actual == "none" and "only with occupations='smearing'" in res.message
    assert effective(text, "system.degauss") == 0.0


def test_case_of_calculation_matters_to_pw_x(tmp_path):
    assert OBSERVED["calc_upper"][0] == "stop"
    res = param(tmp_path, case_text("calc_upper"), "control.calculation", "scf")
    assert not res.passed and "'SCF' is not accepted" in res.message
    assert param(tmp_path, SI, "control.calculation", "SCF").passed  # the grader's spelling is normalised


def test_input_dft_names_are_case_insensitive_and_unset_depends_on_the_pseudopotential(tmp_path):
    assert param(tmp_path, case_text("dft_pbe"), "system.input_dft", "PBE").passed
    res = param(tmp_path, SI, "system.input_dft", "pz")
    assert not res.passed and "pseudopotential files" in res.message


def test_forces_and_stress_are_forced_by_the_calculation(tmp_path):
    relax = case_text("relax_tprnfor_false")  # tprnfor=.false. in a relax: pw.x computed forces anyway
    assert OBSERVED["relax_tprnfor_false"][OBSERVED_FIELDS.index("forces") + 1] is True
    res = param(tmp_path, relax, "control.tprnfor", True)
    assert res.passed and "overridden" in res.message
    assert param(tmp_path, case_text("vcrelax"), "control.tstress", True).passed
    assert param(tmp_path, SI, "control.tstress", False).passed


def test_starting_magnetization_is_clamped_like_pw_x_does(tmp_path):
    res = param(tmp_path, case_text("smag_clamp"), "system.starting_magnetization(1)", max=1.0, min=1.0)
    assert res.passed and "brought into [-1, 1]" in res.message


FE_AFM = """&control
  calculation = 'scf'
/
&system
  ibrav = 1, celldm(1) = 5.42, nat = 2, ntyp = 2
  ecutwfc = 30, ecutrho = 240
  occupations = 'smearing', smearing = 'mv', degauss = 0.02
  nspin = 2
  starting_magnetization(1) = 0.5
  starting_magnetization(2) = {m2}
/
&electrons
/
ATOMIC_SPECIES
Fe1 55.845 Fe.pbe-spn-kjpaw_psl.0.2.1.UPF
Fe2 55.845 Fe.pbe-spn-kjpaw_psl.0.2.1.UPF
ATOMIC_POSITIONS crystal
Fe1 0.0 0.0 0.0
Fe2 0.5 0.5 0.5
K_POINTS automatic
6 6 6 0 0 0
"""


def test_starting_magnetization_by_species_index_label_or_element(tmp_path):
    text = FE_AFM.format(m2=-0.5)
    assert param(tmp_path, text, "system.starting_magnetization(2)", -0.5).passed
    assert param(tmp_path, text, "system.starting_magnetization(Fe2)", -0.5).passed
    by_element = param(tmp_path, text, "system.starting_magnetization(Fe)", min=0.1)
    assert not by_element.passed and "Fe2" in by_element.message  # every Fe species must satisfy it
    res = param(tmp_path, text, "system.starting_magnetization(Co)", min=0.1)
    assert not res.passed and "no species" in res.message


def test_magnetic_order_from_starting_magnetization_is_compared(tmp_path):
    check = qe_check("qe.structure", params={"reference_file": "afm.in"})
    ref = {"afm.in": FE_AFM.format(m2=-0.5)}
    assert grade_input(tmp_path, FE_AFM.format(m2=-0.3), check, ref_files=ref).passed
    res = grade_input(tmp_path, FE_AFM.format(m2=0.5), check, ref_files=ref)
    assert not res.passed and "magnetic order differs" in res.message
    non_spin = FE_AFM.format(m2=-0.5).replace("  nspin = 2\n", "")
    assert not grade_input(tmp_path, non_spin, check, ref_files=ref).passed  # nspin=1: no moments at all
    bcc_fm = FE_AFM.format(m2=0.5).replace("ibrav = 1,", "ibrav = 3,").replace("nat = 2, ntyp = 2", "nat = 1, ntyp = 1")
    bcc_fm = bcc_fm.replace("Fe2 55.845 Fe.pbe-spn-kjpaw_psl.0.2.1.UPF\n", "").replace("Fe2 0.5 0.5 0.5\n", "")
    res = grade_input(tmp_path, bcc_fm, check, ref_files=ref)
    assert not res.passed and "magnetic" in res.message


def test_structure_against_a_reference_structure_file(tmp_path):
    si = Structure(Lattice.cubic(10.26 * BOHR), ["Si"] * 8, _diamond_sites())
    check = qe_check("qe.structure", params={"reference_file": "si.cif"})
    res = grade_input(tmp_path, SI, check, ref_files={"si.cif": si.to(fmt="cif")})
    assert res.passed, res.message
    res = grade_input(tmp_path, case_text("celldm_in_angstrom"), check, ref_files={"si.cif": si.to(fmt="cif")})
    assert not res.passed


def _diamond_sites() -> list[list[float]]:
    fcc = [[0, 0, 0], [0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]]
    return fcc + [[x + 0.25, y + 0.25, z + 0.25] for x, y, z in fcc]


# pw.x 6.7 output for one atom at crystal (0.1, 0.2, 0.3): alat (bohr), a1..a3 and tau in alat units.
# fmt: off
PW_CELLS: dict[str, tuple[int, str, float, list[list[float]], list[float]]] = {
    "1": (1, "celldm(1)=10.0", 10.0, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0.1, 0.2, 0.3]),
    "2": (2, "celldm(1)=10.0", 10.0, [[-0.5, 0, 0.5], [0, 0.5, 0.5], [-0.5, 0.5, 0]], [-0.2, 0.25, 0.15]),
    "3": (3, "celldm(1)=10.0", 10.0, [[0.5, 0.5, 0.5], [-0.5, 0.5, 0.5], [-0.5, -0.5, 0.5]], [-0.2, 0.0, 0.3]),
    "-3": (-3, "celldm(1)=10.0", 10.0, [[-0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.5, 0.5, -0.5]], [0.2, 0.1, 0.0]),
    "4": (4, "celldm(1)=8.0, celldm(3)=1.6", 8.0, [[1, 0, 0], [-0.5, 0.866025, 0], [0, 0, 1.6]], [0, 0.1732051, 0.48]),
    "5": (
        5, "celldm(1)=10.0, celldm(4)=0.3", 10.0,
        [[0.591608, -0.341565, 0.730297], [0, 0.68313, 0.730297], [-0.591608, -0.341565, 0.730297]],
        [-0.1183216, 0.0, 0.438178],
    ),
    "-5": (
        -5, "celldm(1)=10.0, celldm(4)=0.3", 10.0,
        [[-0.136136, 0.700524, 0.700524], [0.700524, -0.136136, 0.700524], [0.700524, 0.700524, -0.136136]],
        [0.3366482, 0.2529822, 0.1693162],
    ),
    "6": (6, "celldm(1)=8.0, celldm(3)=1.3", 8.0, [[1, 0, 0], [0, 1, 0], [0, 0, 1.3]], [0.1, 0.2, 0.39]),
    "7": (7, "celldm(1)=8.0, celldm(3)=1.3", 8.0, [[0.5, -0.5, 0.65], [0.5, 0.5, 0.65], [-0.5, -0.5, 0.65]],
          [0.0, -0.1, 0.39]),
    "8": (8, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[1, 0, 0], [0, 1.1, 0], [0, 0, 1.3]],
          [0.1, 0.22, 0.39]),
    "9": (9, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[0.5, 0.55, 0], [-0.5, 0.55, 0], [0, 0, 1.3]],
          [-0.05, 0.165, 0.39]),
    "-9": (-9, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[0.5, -0.55, 0], [0.5, 0.55, 0], [0, 0, 1.3]],
           [0.15, 0.055, 0.39]),
    "91": (91, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[1, 0, 0], [0, 0.55, -0.65], [0, 0.55, 0.65]],
           [0.1, 0.275, 0.065]),
    "10": (10, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0, [[0.5, 0, 0.65], [0.5, 0.55, 0], [0, 0.55, 0.65]],
           [0.15, 0.275, 0.26]),
    "11": (11, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3", 8.0,
           [[0.5, 0.55, 0.65], [-0.5, 0.55, 0.65], [-0.5, -0.55, 0.65]], [-0.2, 0.0, 0.39]),
    "12": (12, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(4)=0.2", 8.0,
           [[1, 0, 0], [0.22, 1.077775, 0], [0, 0, 1.3]], [0.144, 0.2155551, 0.39]),
    "-12": (-12, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(5)=0.2", 8.0,
            [[1, 0, 0], [0, 1.1, 0], [0.26, 0, 1.273735]], [0.178, 0.22, 0.3821204]),
    "13": (13, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(4)=0.2", 8.0,
           [[0.5, 0, -0.65], [0.22, 1.077775, 0], [0.5, 0, 0.65]], [0.244, 0.2155551, 0.13]),
    "-13": (-13, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(5)=0.2", 8.0,
            [[0.5, 0.55, 0], [-0.5, 0.55, 0], [0.26, 0, 1.273735]], [0.028, 0.165, 0.3821204]),
    "14": (14, "celldm(1)=8.0, celldm(2)=1.1, celldm(3)=1.3, celldm(4)=0.2, celldm(5)=0.1, celldm(6)=0.3", 8.0,
           [[1, 0, 0], [0.33, 1.049333, 0], [0.13, 0.231671, 1.272568]], [0.205, 0.2793679, 0.3817703]),
    "A4": (4, "A=4.0, C=6.5", 7.5589, [[1, 0, 0], [-0.5, 0.866025, 0], [0, 0, 1.625]], [0.0, 0.1732051, 0.4875]),
    "A5": (5, "A=5.0, cosAB=0.3", 9.4486,
           [[0.591608, -0.341565, 0.730297], [0, 0.68313, 0.730297], [-0.591608, -0.341565, 0.730297]],
           [-0.1183216, 0.0, 0.438178]),
    "A14": (14, "A=4.0, B=4.4, C=5.2, cosBC=0.2, cosAC=0.1, cosAB=0.3", 7.5589,
            [[1, 0, 0], [0.33, 1.049333, 0], [0.13, 0.231671, 1.272568]], [0.205, 0.2793679, 0.3817703]),
    "A-12": (-12, "A=4.0,B=4.4,C=5.2,cosAC=0.2", 7.5589, [[1, 0, 0], [0, 1.1, 0], [0.26, 0, 1.273735]],
             [0.178, 0.22, 0.3821204]),
    "A-13": (-13, "A=4.0,B=4.4,C=5.2,cosAC=0.2", 7.5589, [[0.5, 0.55, 0], [-0.5, 0.55, 0], [0.26, 0, 1.273735]],
             [0.028, 0.165, 0.3821204]),
}
# fmt: on


def cell_input(ibrav: int, celldm: str) -> str:
    return (
        f"&control\n/\n&system\n ibrav={ibrav}, {celldm}, nat=1, ntyp=1, ecutwfc=8\n/\n&electrons\n/\n"
        "ATOMIC_SPECIES\nSi 28.086 Si.pz-vbc.UPF\nATOMIC_POSITIONS crystal\nSi 0.1 0.2 0.3\nK_POINTS gamma\n"
    )


@pytest.mark.parametrize("key", sorted(PW_CELLS))
def test_cells_and_positions_are_the_ones_pw_x_printed(key):
    """ibrav/celldm (bohr) or A..cosAB (Å) -> the lattice pw.x 6.7 built (ibrav=-9 included: qe-tools swaps v1/v2)."""
    ibrav, celldm, alat, axes, tau = PW_CELLS[key]
    structure = pw_structure(parse_pw_input(cell_input(ibrav, celldm)))
    scale = alat * BOHR
    assert np.allclose(structure.lattice.matrix, np.array(axes) * scale, atol=2e-5 * scale)
    assert np.allclose(structure.cart_coords[0], np.array(tau) * scale, atol=2e-5 * scale)


def test_ibrav_cell_errors_are_failed_checks(tmp_path):
    check = qe_check("qe.structure", params={"reference_file": "ref.in"})
    for name in ("ibrav4_no_c", "ibrav_bad", "ibrav0_nocell", "ibrav2_with_cell", "ibrav0_ang_celldm", "a_and_celldm"):
        res = grade_input(tmp_path, case_text(name), check, ref_files={"ref.in": SI})
        assert not res.passed and res.message, name
