"""The pw.x 6.7 table: it loads, every curated setting evaluates, its defaults are the documented ones."""

from __future__ import annotations

from cmb.grading.qe import Evaluator, parse_pw_input, qe_table
from cmb.grading.settings import Origin
from tests.grading.qe._helpers import SI, effective, with_system


def test_table_loads_and_every_curated_setting_evaluates_on_an_empty_input():
    table = qe_table()
    ev = Evaluator({})
    for key, spec in table.variables.items():
        assert spec.source, key
        ev.effective(f"{key}(1)" if spec.per_species or key == "system.celldm" else key)
    assert {"system.ecutrho", "system.vdw_corr", "electrons.conv_thr", "cell.press"} <= set(table.variables)


def test_table_defaults_match_the_qe67_documentation():
    ev = Evaluator({})
    expected = {
        "control.calculation": "scf",
        "control.tprnfor": False,
        "control.tstress": False,
        "control.etot_conv_thr": 1e-4,
        "control.forc_conv_thr": 1e-3,
        "system.occupations": "fixed",
        "system.nspin": 1,
        "system.vdw_corr": "none",
        "system.lda_plus_u": False,
        "system.nosym": False,
        "electrons.conv_thr": 1e-6,
        "electrons.mixing_beta": 0.7,
        "electrons.electron_maxstep": 100,
        "electrons.diagonalization": "david",
        "cell.press": 0.0,
        "system.starting_magnetization(1)": 0.0,
    }
    assert {k: ev.effective(k).value for k in expected} == expected
    assert qe_table().cards.K_POINTS.bare == "tpiba"
    assert qe_table().variables["system.smearing"].default == "gaussian"
    assert qe_table().variables["system.degauss"].default == 0.0


def test_conditional_defaults_follow_the_calculation():
    relax = SI.replace("'scf'", "'relax'")
    vc = SI.replace("'scf'", "'vc-relax'")
    md = SI.replace("'scf'", "'md'")
    assert effective(relax, "ions.ion_dynamics") == "bfgs"
    assert effective(vc, "ions.ion_dynamics") == "bfgs"
    assert effective(vc, "cell.cell_dynamics") == "bfgs"
    assert effective(md, "ions.ion_dynamics") == "verlet"
    assert effective(SI, "ions.ion_dynamics") == "none"
    assert effective(SI.replace("'scf'", "'vc-md'"), "ions.ion_dynamics") == "beeman"
    assert effective(relax, "control.nstep") == 50 and effective(SI, "control.nstep") == 1


def test_effective_values_carry_their_origin_and_the_rule_that_decided_them():
    ev = Evaluator(parse_pw_input(SI.replace("'scf'", "'relax'")).values)
    assert ev.effective("system.ecutwfc").origin is Origin.SET
    assert ev.effective("electrons.conv_thr").origin is Origin.DEFAULT
    rho = ev.effective("system.ecutrho")
    assert (rho.value, rho.origin, rho.rule) == (48.0, Origin.CONDITIONAL_DEFAULT, None)  # 4 × ecutwfc
    dynamics = ev.effective("ions.ion_dynamics")
    assert dynamics.origin is Origin.CONDITIONAL_DEFAULT and dynamics.value == "bfgs"
    assert dynamics.rule is not None and dynamics.rule.when == {"control.calculation": ["relax", "vc-relax"]}
    forces = ev.effective("control.tprnfor")
    assert forces.origin is Origin.FORCED and forces.rule is not None and forces.rule.force
    assert ev.effective("system.input_dft").origin is Origin.UNKNOWN  # from the pseudopotential files
    wrong = Evaluator(parse_pw_input(with_system("occupations = 'smearing', smearing = 'COLD'")).values)
    assert wrong.effective("system.smearing").origin is Origin.INVALID  # pw.x stops on 'COLD'
    d3 = Evaluator(parse_pw_input(with_system("vdw_corr = 'd3'")).values).effective("system.vdw_corr")
    assert (d3.value, d3.origin) == ("none", Origin.FORCED)  # pw.x 6.7 replaces a spelling it does not know
