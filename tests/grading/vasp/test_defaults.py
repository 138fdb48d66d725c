"""Every VASP default of the table, resolved: the values VASP uses, and the origin and rule of each."""

from __future__ import annotations

import pytest

from cmb.grading.settings import Origin
from cmb.grading.vasp import IncarResolver, PotcarInfo, parse_incar, vasp_defaults

NIO_POTCAR = PotcarInfo("POTCAR", ["Ni_pv", "O"], [367.9, 400.0], [275.9, 300.0], ["PE", "PE"])
UNKNOWN = "unknown"

PLAIN = {
    "AEXX": 0.0, "ALGO": "Normal", "EDIFF": 0.0001, "EDIFFG": 0.001, "ENCUT": 400.0, "GGA": "PE", "HFSCREEN": 0.0,
    "IBRION": -1, "IDIPOL": None, "ISIF": 2, "ISMEAR": 1, "ISPIN": 1, "ISYM": 2, "IVDW": 0, "KGAMMA": True,
    "KSPACING": 0.5, "LASPH": False, "LCALCEPS": False, "LCHARG": True, "LDAU": False, "LDAUTYPE": 2,
    "LDIPOL": False, "LEPSILON": False, "LHFCALC": False, "LMAXMIX": 2, "LNONCOLLINEAR": False, "LOPTICS": False,
    "LORBIT": None, "LREAL": ".FALSE.", "LSORBIT": False, "LWAVE": True, "MAGMOM": [1.0, 1.0], "NBANDS": UNKNOWN,
    "NEDOS": 301, "NELM": 60, "NSW": 0, "POTIM": 0.5, "PREC": "Normal", "SAXIS": [0.0, 0.0, 1.0], "SIGMA": 0.2,
    "SYSTEM": "unknown system",
}  # fmt: skip
HYBRID_SOC_MD = {
    **PLAIN, "AEXX": 0.25, "ENCUT": 500.0, "IBRION": 0, "ISIF": 0, "ISYM": 3, "LHFCALC": True,
    "LNONCOLLINEAR": True, "LSORBIT": True, "MAGMOM": [1.0] * 6, "NSW": 10, "POTIM": None, "PREC": "High",
}  # fmt: skip


@pytest.mark.parametrize(
    ("incar", "expected"),
    [("LVDW_EWALD = .TRUE.\n", PLAIN), ("NSW = 10\nLHFCALC = T\nLSORBIT = T\nPREC = High\n", HYBRID_SOC_MD)],
)
def test_every_default_of_the_table_resolves_to_the_value_vasp_uses(incar, expected):
    r = IncarResolver(parse_incar(incar), nions=lambda: 2, potcar=lambda: NIO_POTCAR)
    got = {tag: r.effective(tag).value if r.effective(tag).known else UNKNOWN for tag in vasp_defaults()}
    assert got == expected


def test_each_value_says_where_it_comes_from_and_which_rule_decided_it():
    r = IncarResolver(parse_incar("NSW = 10\nISMEAR = 0\n"), nions=lambda: 2, potcar=lambda: None)
    assert r.effective("ISMEAR").origin is Origin.SET
    sigma, ibrion = r.effective("SIGMA"), r.effective("IBRION")
    assert sigma.origin is Origin.DEFAULT and sigma.rule is None
    assert ibrion.origin is Origin.CONDITIONAL_DEFAULT and ibrion.value == 0
    assert ibrion.rule is vasp_defaults()["IBRION"].rules[-1] and not ibrion.rule.when  # the NSW > 0 fallback
    isif = r.effective("ISIF")
    assert isif.origin is Origin.CONDITIONAL_DEFAULT and "IBRION" in isif.rule.when
    assert r.effective("ENCUT").origin is Origin.UNKNOWN  # from the POTCAR, and there is none
    assert r.effective("LVDW_EWALD").origin is Origin.ABSENT  # no default on record
