"""Oracle of bas-isotope-dielectric-shift: the infrared-weighted mean and spread of the TO frequencies of BAs with
95 % 11B, 50 % 10B and 95 % 10B, from a 4x4x4 supercell of the staged force constants (four configurations each),
and the shift of the mean between the two enriched samples.
Usage (in the working folder): enrich.py [--size L] [--seeds a,b,c,d] [--out answer.json]
"""

import argparse
import json
from pathlib import Path

import bas_isotope as bi

SAMPLES = {"B11_enriched": 0.05, "equal_mix": 0.50, "B10_enriched": 0.95}


def answer(ws=".", size=4, seeds=(0, 1, 2, 3), cr=None):
    cr = cr or bi.Crystal(ws, size)
    out = {}
    for key, x10 in SAMPLES.items():
        r = bi.response(cr, x10, seeds)
        out[key] = {"omega_TO_mean_cm1": round(r["mean"], 3), "sigma_TO_cm1": round(r["sd"], 3)}
    shift = out["B10_enriched"]["omega_TO_mean_cm1"] - out["B11_enriched"]["omega_TO_mean_cm1"]
    out["enrichment_shift_cm1"] = round(shift, 3)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=4)
    p.add_argument("--seeds", default="0,1,2,3")
    p.add_argument("--out", default="answer.json")
    a = p.parse_args()
    ans = answer(".", a.size, tuple(int(s) for s in a.seeds.split(",")))
    Path(a.out).write_text(json.dumps(ans, indent=2) + "\n")
    print(json.dumps(ans))


if __name__ == "__main__":
    main()
