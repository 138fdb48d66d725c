"""phx.* check types: ph.x 6.7 inputs read as ph.x reads them, effective settings, the pw.x pairing.

The behaviours asserted as ph.x's were observed with Debian's ph.x 6.7 (quantum-espresso 6.7-2) on a small BAs
ground state: an unquoted string, `nq1 = 1.0`, an unknown variable, a missing wave vector and `epsil` at q /= 0
stop it; a missing title line, `!` comments, `epsil = true` and `amass(1) = ...` are read; with `trans = .false.`
and `epsil = .true.` it still prints the dielectric tensor and the Born charges (d Force / d E).
"""

from __future__ import annotations

import pytest

from cmb.grading import REGISTRY, run_check
from cmb.grading._submission import Submission
from cmb.grading.phx import PhInputError, parse_ph_input, pw_control, same_folder
from cmb.grading.phx._reader import defaults
from tests.conftest import make_check, make_reference, write_files

PH = """Born charges and eps_inf
&inputph
  prefix = 'bas'
  outdir = './tmp'
  tr2_ph = 1.0d-16
  epsil = .true.
/
0.0 0.0 0.0
"""

SCF = """&control
  calculation = 'scf'
  prefix = 'bas'
  outdir = './tmp/'
  pseudo_dir = './pseudo'
/
&system
  ibrav = 2, celldm(1) = 8.92, nat = 2, ntyp = 2, ecutwfc = 70
/
&electrons
/
"""


def _check(type_: str, *, setting: str | None = None, **kw):
    check = make_check(type_, file="ph.in", field=None, reference=None, **kw)
    if setting is not None:
        check = check.model_copy(update={"target": check.target.model_copy(update={"setting": setting})})
    return check


def _run(tmp_path, check, ph: str = PH, scf: str = SCF):
    root = write_files(tmp_path / "sub", {"ph.in": ph, "scf.in": scf})
    return run_check(check, Submission(root), make_reference())


def test_family_is_registered_with_its_thresholds():
    assert {"phx.valid", "phx.param", "phx.qpoint", "phx.pw_match"} <= set(REGISTRY.types)
    assert REGISTRY.get("phx.param").thresholds == ("min", "max")


def test_reads_title_namelist_and_wave_vector():
    ph = parse_ph_input(PH)
    assert ph.title == "Born charges and eps_inf"
    assert ph.values == {"prefix": "bas", "outdir": "./tmp", "tr2_ph": 1e-16, "epsil": True}
    assert ph.xq == (0.0, 0.0, 0.0) and ph.computes_gamma()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("t\n&inputph\n prefix=bas\n/\n0 0 0\n", "quoted"),
        ("t\n&inputph\n nq1=1.0\n/\n0 0 0\n", "not an integer"),
        ("t\n&inputph\n bogus=1\n/\n0 0 0\n", "not a variable"),
        ("t\n&inputph\n prefix='bas'\n/\n", "reading xq"),
        ("t\n&inputph\n epsil=.true.\n/\n0 0 0.5\n", "gamma is needed"),
        ("t\n&inputph\n ldisp=.true.\n/\n", "greater than 0"),
        ("t\n&inputph\n zue=.true., trans=.false., epsil=.true.\n/\n0 0 0\n", "trans must be"),
        ("t\n&inputph\n tr2_ph=0.0\n/\n0 0 0\n", "positive"),
        ("t\n&inputph\n prefix='bas'\n0 0 0\n", "not closed"),
        ("t\nno namelist here\n", "no &inputph"),
    ],
)
def test_inputs_ph_x_stops_on(text, why):
    with pytest.raises(PhInputError, match=why):
        parse_ph_input(text)


@pytest.mark.parametrize(
    "text",
    [
        "&inputph\n prefix='bas', epsil=.true. /\n0 0 0\n",  # no title line: ph.x uses 'default'
        "t\n&inputph\n prefix='bas' ! a comment\n epsil=true\n/\n0 0 0\n",
        "t\n&INPUTPH\n amass(1)=11.0093, amass(2)=74.9216, epsil=.T.\n&end\n0.0d0, 0.0d0, 0.0d0\n",
        "t\n&inputph\n ldisp=.true., nq1=4, nq2=4, nq3=4\n/\n",
    ],
)
def test_inputs_ph_x_reads(text):
    ph = parse_ph_input(text)
    assert ph.value("epsil") is True


def test_effective_rules_of_the_table():
    ph = parse_ph_input("t\n&inputph\n ldisp=.true., nq1=2, nq2=2, nq3=2, trans=.false.\n/\n")
    assert ph.effective("trans").origin == "rule" and ph.value("trans") is True
    assert ph.effective("epsil").origin == "rule" and ph.value("epsil") is True
    plain = parse_ph_input("t\n&inputph\n prefix='x'\n/\n0 0 0\n")
    assert plain.value("epsil") is False and plain.value("zeu") is False  # zeu follows epsil
    assert plain.effective("tr2_ph").origin == "default" and plain.value("tr2_ph") == 1e-12
    assert plain.value("outdir") == "./" and plain.value("fildyn") == "matdyn"
    assert parse_ph_input("t\n&inputph\n lraman=.true.\n/\n0 0 0\n").value("epsil") is True


def test_table_declares_every_graded_variable():
    table = defaults()
    assert set(table["variables"]) <= set(table["declarations"])
    for rule in table["fatal"]:
        for key in rule["when"]:
            assert key in table["declarations"] or key in ("nq_positive", "xq_nonzero")


def test_valid_and_param_checks(tmp_path):
    assert _run(tmp_path, _check("phx.valid")).passed
    res = _run(tmp_path, _check("phx.valid"), ph=PH.replace("'bas'", "bas"))
    assert not res.passed and "quoted" in res.message
    assert _run(tmp_path, _check("phx.param", setting="inputph.epsil", params={"any_of": [True]})).passed
    tight = _check("phx.param", setting="tr2_ph", params={"max": 1e-14})
    assert _run(tmp_path, tight).passed
    loose = _run(tmp_path, tight, ph=PH.replace("  tr2_ph = 1.0d-16\n", ""))
    assert not loose.passed and "ph.x default" in loose.message
    no_eps = _run(
        tmp_path, _check("phx.param", setting="zeu", params={"any_of": [True]}), ph=PH.replace("epsil", "trans")
    )
    assert not no_eps.passed and "zeu = epsil" in no_eps.message
    explicit = _check("phx.param", setting="trans", params={"any_of": [True], "explicit": True})
    assert not _run(tmp_path, explicit).passed


def test_qpoint_check(tmp_path):
    assert _run(tmp_path, _check("phx.qpoint")).passed
    grid = "t\n&inputph\n prefix='bas', outdir='./tmp', ldisp=.true., nq1=1, nq2=1, nq3=1\n/\n"
    assert _run(tmp_path, _check("phx.qpoint"), ph=grid).passed
    assert not _run(tmp_path, _check("phx.qpoint", params={"allow_grid": False}), ph=grid).passed
    x_point = PH.replace("epsil = .true.", "epsil = .false.").replace("0.0 0.0 0.0", "0.0 0.0 1.0")
    assert not _run(tmp_path, _check("phx.qpoint"), ph=x_point).passed


def test_pw_match_check(tmp_path):
    check = _check("phx.pw_match", params={"pw_file": "scf.in"})
    assert _run(tmp_path, check).passed  # './tmp' and './tmp/' are the same folder
    res = _run(tmp_path, check, ph=PH.replace("prefix = 'bas'", "prefix = 'BAs'"))
    assert not res.passed and "prefix" in res.message
    res = _run(tmp_path, check, ph=PH.replace("  outdir = './tmp'\n", ""))
    assert not res.passed and "outdir" in res.message  # ph.x's default './' is not pw.x's './tmp/'
    res = _run(tmp_path, check, scf="&control\n/\n")  # pw.x's defaults: prefix 'pwscf', outdir './'
    assert not res.passed and "'pwscf'" in res.message


def test_pw_control_defaults_and_folders():
    assert pw_control("&control\n/\n") == {"prefix": "pwscf", "outdir": "./"}
    assert pw_control(SCF) == {"prefix": "bas", "outdir": "./tmp/"}
    assert same_folder("./tmp", "tmp/") and same_folder("./", ".") and not same_folder("./tmp", "./out")


def test_hostile_input_is_bounded():
    with pytest.raises(PhInputError):
        parse_ph_input("t\n&inputph\n" + "x=1\n" * 30_000 + "/\n0 0 0\n")
    with pytest.raises(PhInputError, match="unterminated"):
        parse_ph_input("t\n&inputph\n prefix='bas\n/\n0 0 0\n")


SCF_SPECIES = SCF.replace(
    "&electrons\n/\n", "&electrons\n/\nATOMIC_SPECIES\nB 11.0093 B.pz-vbc.UPF\nAs 74.9216 As.pz-bhs.UPF\n"
)


def test_masses_check(tmp_path):
    check = _check("phx.masses", params={"pw_file": "scf.in", "masses": {"B": 11.0093, "As": 74.9216}})
    assert _run(tmp_path, check, scf=SCF_SPECIES).passed
    natural = _run(tmp_path, check, scf=SCF_SPECIES.replace("11.0093", "10.811"))
    assert not natural.passed and "10.811" in natural.message
    fixed = PH.replace("epsil = .true.", "epsil = .true.\n  amass(1) = 11.0093")
    assert _run(tmp_path, check, ph=fixed, scf=SCF_SPECIES.replace("11.0093", "10.811")).passed
    standard = _run(tmp_path, check, scf=SCF_SPECIES.replace("11.0093", "0.0"))  # pw.x: standard weight 10.81
    assert not standard.passed and "standard weight" in standard.message
    assert not _run(tmp_path, check, scf=SCF).passed  # no ATOMIC_SPECIES card
