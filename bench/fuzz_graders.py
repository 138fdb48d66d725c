"""Fuzzing every grader of the suite with hostile submissions: zero crashes, every grade under 1 s and 256 MiB.

Seeds are real submissions of every task: its recall baseline's files (an input deck for every input-preparation
task, an answer for the others) and, for input-preparation and output-analysis tasks, the oracle's own files. Two
engines mutate them:

  hypothesis  structured mutations (tokens of the seeds and of each code's input language, hostile numbers,
              deep nesting, repeated lines, LAMMPS variables, loops, includes and ifs, binary bytes, truncation)
  atheris     coverage-guided byte mutation of the same seeds (libFuzzer), for a fixed time budget

Each case replaces one answer file of one task and grades the whole task. A crash is an exception escaping
`grade`, or one that a check function raised and the engine had to mask (check functions may raise only
SubmissionError); a case over 1 s (hypothesis; atheris's grades run instrumented and are not timed against it) or
over 256 MiB (traced allocations, one case in five) is a violation too. Every crash found becomes a
named regression test under tests/grading/.

    python bench/fuzz_graders.py [--cases 10000] [--atheris-seconds 120] [--seed 0] [--jobs N] [--json]

CMB_FUZZ_SAVE=DIR keeps every case that crashed or broke a limit; CMB_FUZZ_CURRENT=FILE holds the case in flight.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cmb.catalog import Catalog, TaskEntry, stage_bundle  # noqa: E402
from cmb.catalog._verify import run_solution  # noqa: E402
from cmb.grading import REGISTRY, GraderConfigError, grade  # noqa: E402
from cmb.grading._registry import Registry  # noqa: E402
from cmb.grading._submission import MAX_FILE_BYTES, SubmissionError  # noqa: E402
from cmb.models import Condition, Kind  # noqa: E402

CURRENT: Path | None = Path(os.environ["CMB_FUZZ_CURRENT"]) if os.environ.get("CMB_FUZZ_CURRENT") else None
SAVE: Path | None = Path(os.environ["CMB_FUZZ_SAVE"]) if os.environ.get("CMB_FUZZ_SAVE") else None
TIME_LIMIT_S = 1.0
MEMORY_EVERY = 5  # one case in five runs under tracemalloc for its peak allocation
MAX_MUTANT_CHARS = 2 * MAX_FILE_BYTES  # mutants past the graders' file limit test one refusal only
ADDRESS_SPACE_B = 6 * 2**30  # per fuzzing process (the interpreter with numpy, scipy and pymatgen maps about 2 GiB)
MEMORY_LIMIT_B = 256 * 2**20

# Tokens of the input languages the graders read, and numbers and shapes that break parsers.
TOKENS = {
    "qe": ["&control", "&system", "&electrons", "&ions", "&cell", "/", "&end", "=", ",", "!", "'", '"', "2*", "1e999",
           "nan", "-0", ".true.", "1.0d-3", "celldm(1)", "starting_magnetization(1)", "hubbard_u(1)", "nat", "ntyp",
           "ibrav", "ATOMIC_SPECIES", "ATOMIC_POSITIONS", "crystal", "angstrom", "K_POINTS", "automatic", "gamma",
           "CELL_PARAMETERS", "alat", "HUBBARD", "ortho-atomic", "lberry", "gdir", "nppstr", "vdw_corr", "'dft-d3'"],
    "vasp": ["ENCUT", "ISMEAR", "SIGMA", "EDIFF", "ISPIN", "MAGMOM", "LDAU", "LDAUL", "LDAUU", "LDAUJ", "LASPH",
             "LSORBIT", "SAXIS", "ISYM", "IBRION", "NSW", "ISIF", "KPOINTS", "Gamma", "Monkhorst-Pack", "Auto",
             "Direct", "Cartesian", "Selective dynamics", "=", ";", "#", "!", ".TRUE.", "F", "3*1.0", "1e999", "nan",
             "\\", "PAW_PBE", "Si", "Fe", "Ni", "O"],
    "lammps": ["units", "metal", "atom_style", "atomic", "read_data", "pair_style", "pair_coeff", "* *", "eam/alloy",
               "tersoff", "sw", "variable", "equal", "loop", "index", "string", "${a}", "$a", "v_a", "include",
               "in.lmp", "label", "jump", "SELF", "if", "then", "else", "next", "fix", "npt", "nvt", "temp", "iso",
               "run", "100000000", "thermo", "velocity", "create", "&", "#", "\"\"\"", "1e999", "nan", "quit"],
    "json": ["{", "}", "[", "]", ":", ",", '"', "null", "true", "NaN", "Infinity", "-Infinity", "1e999", "-0",
             "9" * 400, '"\\ud800"', '"\\u0000"', "0x10", "1_000"],
    "csv": [",", ";", "\t", "\n", "\r\n", '"', "nan", "inf", "1e999", "-", "#", "a", "1", "0.5", "\ufeff"],
}
HOSTILE_LINES = ["\x00" * 8, "\xff\xfe", "A" * 100_000, "[" * 5000, "{" * 5000, "label x\njump SELF x",
                 "variable a loop 1000000000\nlabel l\nnext a\njump SELF l", "include in.lmp", "include /etc/passwd",
                 "1" * 5000 + "e" + "9" * 100, "\u202e\u200b", "$(rm -rf /)", "${" * 200]  # fmt: skip


def family_of(name: str) -> str:
    base = Path(name).name.lower()
    if base.endswith(".json"):
        return "json"
    if base.endswith(".csv"):
        return "csv"
    if base.startswith(("incar", "kpoints", "poscar", "potcar")):
        return "vasp"
    if base.startswith("in.") or base.endswith((".lmp", ".data")):
        return "lammps"
    return "qe"


@dataclass
class Target:
    """One task's seed submission (file name -> bytes), from its recall baseline or its oracle."""

    entry: TaskEntry
    origin: str
    files: dict[str, bytes]

    def __post_init__(self) -> None:
        self.grader, self.reference = self.entry.grader(), self.entry.reference()  # read once, not per case


@dataclass
class Stats:
    """What a fuzz run saw."""

    cases: int = 0
    crashes: list[dict[str, Any]] = field(default_factory=list)
    slow: list[dict[str, Any]] = field(default_factory=list)
    heavy: list[dict[str, Any]] = field(default_factory=list)
    max_seconds: float = 0.0
    max_bytes: int = 0
    per_family: Counter[str] = field(default_factory=Counter)
    per_task: Counter[str] = field(default_factory=Counter)
    check_types: set[str] = field(default_factory=set)


def seed_targets(catalog: Catalog, oracles: bool = True) -> list[Target]:
    """Every single task's recall submission, and the oracle's files of the tasks whose oracle is quick."""
    targets = []
    for entry in catalog.entries.values():
        if entry.spec.kind is Kind.WORKFLOW:
            continue
        if (entry.reference_dir / "recall.yaml").is_file():
            files = {n: t.encode() for n, t in entry.recall().submission().items()}
            targets.append(Target(entry, "recall", files))
        if oracles and entry.spec.kind in (Kind.INPUT_PREPARATION, Kind.OUTPUT_ANALYSIS):
            oracle = _oracle_files(entry)
            if oracle:
                targets.append(Target(entry, "oracle", oracle))
    return targets


def _oracle_files(entry: TaskEntry) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory(prefix="cmb-fuzz-oracle-") as tmp:
        work = Path(tmp) / "work"
        stage_bundle(entry, Condition.SF, work)
        try:
            proc = run_solution(entry, work, 120)
        except subprocess.TimeoutExpired:
            return {}
        if proc.returncode != 0:
            return {}
        out = {}
        for name in entry.spec.answer_files:
            path = work / name
            if path.is_file():
                out[name] = path.read_bytes()
        return out


def masking_registry(stats: Stats, context: dict[str, Any]) -> Registry:
    """The suite's check types, each wrapped to record any exception besides SubmissionError before the engine
    masks it."""
    reg = Registry()
    for name, ctype in REGISTRY.types.items():

        def fn(ctx: Any, _fn: Any = ctype.fn, _name: str = name) -> Any:
            stats.check_types.add(_name)
            try:
                return _fn(ctx)
            except (SubmissionError, GraderConfigError):
                raise
            except Exception as exc:
                stats.crashes.append({**context, "check_type": _name, "error": f"{type(exc).__name__}: {exc}"[:300]})
                raise

        reg.types.add(name, dataclasses.replace(ctype, fn=fn), replace=True)
    return reg


def run_case(target: Target, name: str, data: bytes, stats: Stats, engine: str) -> None:
    """Grade the target's task with one answer file replaced by `data`."""
    entry = target.entry
    context = {"engine": engine, "task": entry.id, "file": name, "origin": target.origin, "bytes": len(data),
               "head": data[:120].decode("latin-1")}  # fmt: skip
    crashes_before = len(stats.crashes)
    registry = masking_registry(stats, context)
    if CURRENT is not None:  # the case in flight, for a crash that takes the process down
        CURRENT.write_bytes(json.dumps(context).encode() + b"\n" + data)
    with tempfile.TemporaryDirectory(prefix="cmb-fuzz-") as tmp:
        root = Path(tmp)
        for fname, content in {**target.files, name: data}.items():
            path = root / fname
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        traced = stats.cases % MEMORY_EVERY == 0  # tracing slows a grade down several times: time the others
        if traced:
            tracemalloc.start()
        t0 = time.perf_counter()
        try:
            grade(target.grader, target.reference, root, entry.reference_dir, registry)
        except Exception as exc:  # noqa: BLE001 - what the fuzzer is looking for
            stats.crashes.append({**context, "check_type": "grade", "error": f"{type(exc).__name__}: {exc}"[:300]})
        seconds = 0.0 if traced else time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
        if traced:
            tracemalloc.stop()
    stats.cases += 1
    stats.per_family[family_of(name)] += 1
    stats.per_task[entry.id] += 1
    stats.max_seconds = max(stats.max_seconds, seconds)
    stats.max_bytes = max(stats.max_bytes, peak)
    if seconds > TIME_LIMIT_S and engine != "atheris":  # coverage instrumentation slows atheris's grades down
        stats.slow.append({**context, "seconds": round(seconds, 3)})
        _save("slow", context, data)
    if peak > MEMORY_LIMIT_B:
        stats.heavy.append({**context, "peak_mib": round(peak / 2**20, 1)})
        _save("heavy", context, data)
    if len(stats.crashes) > crashes_before:
        _save("crash", context, data)


def _save(kind: str, context: dict[str, Any], data: bytes) -> None:
    """Keep a case that broke a limit (CMB_FUZZ_SAVE=DIR): its context line, then the file, as the regression
    test will need it."""
    if SAVE is None:
        return
    SAVE.mkdir(parents=True, exist_ok=True)
    path = SAVE / f"{kind}-{context['task']}-{time.monotonic_ns()}.bin"
    path.write_bytes(json.dumps(context).encode() + b"\n" + data)


# -- hypothesis --------------------------------------------------------------------------------------------------


def mutate(rng: random.Random, seed: bytes, family: str, donors: list[bytes]) -> bytes:
    """One structured mutation of a seed (a few edits of lines and tokens)."""
    text = seed.decode("utf-8", errors="surrogateescape")
    lines = text.splitlines(keepends=True) or [""]
    tokens = TOKENS[family]
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(11)
        i = rng.randrange(len(lines))
        if op == 0:  # replace a token of a line
            words = lines[i].split(" ")
            words[rng.randrange(len(words))] = rng.choice(tokens)
            lines[i] = " ".join(words)
        elif op == 1:  # insert a line of tokens
            lines.insert(i, " ".join(rng.choice(tokens) for _ in range(rng.randint(1, 8))) + "\n")
        elif op == 2:  # delete lines
            del lines[i : i + rng.randint(1, 5)]
            lines = lines or [""]
        elif op == 3:  # repeat a line many times (the whole file kept under the graders' size limit and a bit)
            times = rng.choice([2, 100, 10_000])
            size = sum(len(x) for x in lines)
            times = max(1, min(times, (MAX_MUTANT_CHARS - size) // max(1, len(lines[i]))))
            lines[i : i + 1] = [lines[i]] * times
        elif op == 4:  # a hostile line
            lines.insert(i, rng.choice(HOSTILE_LINES) + "\n")
        elif op == 5:  # a number made extreme
            lines[i] = _extreme_number(rng, lines[i])
        elif op == 6:  # truncate the file
            cut = rng.randrange(max(1, len("".join(lines))))
            lines = ["".join(lines)[:cut]]
        elif op == 7:  # splice a line from another seed of the same family
            donor = rng.choice(donors).decode("utf-8", errors="surrogateescape").splitlines(keepends=True)
            if donor:
                lines.insert(i, rng.choice(donor))
        elif op == 8:  # swap two lines
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 9:  # case and whitespace
            lines[i] = rng.choice([lines[i].upper(), lines[i].lower(), lines[i].replace(" ", "\t"), "  " + lines[i]])
        else:  # nesting
            depth = rng.choice([10, 1000, 100_000])
            lines.insert(i, rng.choice(["[", "{", "(", "&system\n", "if a then \"", "${"]) * depth + "\n")
    out = "".join(lines).encode("utf-8", errors="surrogateescape")[: MAX_MUTANT_CHARS * 2]
    if rng.random() < 0.05:  # raw byte damage
        buf = bytearray(out)
        for _ in range(rng.randint(1, 16)):
            if buf:
                buf[rng.randrange(len(buf))] = rng.randrange(256)
        out = bytes(buf)
    return out


def _extreme_number(rng: random.Random, line: str) -> str:
    import re

    numbers = list(re.finditer(r"-?\d+(\.\d*)?([eEdD][-+]?\d+)?", line))
    if not numbers:
        return line
    m = rng.choice(numbers)
    value = rng.choice(["nan", "inf", "-inf", "1e999", "-1e999", "0", "-0", "1e-999", "9" * 400, "1e308", "4e-320"])
    return line[: m.start()] + value + line[m.end() :]


def run_hypothesis_jobs(targets: list[Target], cases: int, seed: int, jobs: int) -> dict[str, Any]:
    """The hypothesis cases split over `jobs` forked processes (each with its own seed); their summaries merged."""
    if jobs <= 1:
        return _hypothesis_part(targets, cases, seed)
    import multiprocessing

    shares = [cases // jobs + (k < cases % jobs) for k in range(jobs)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        parts = pool.starmap(_hypothesis_part, [(targets, n, seed * 1000 + k) for k, n in enumerate(shares)])
    return merge(parts)


def cap_memory() -> None:
    """Cap this process's address space: a grader that allocates without bound raises MemoryError (a crash the run
    records, with its case) instead of bringing the out-of-memory killer to the machine."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_B, hard))


def _hypothesis_part(targets: list[Target], cases: int, seed: int) -> dict[str, Any]:
    global CURRENT
    cap_memory()
    if CURRENT is not None:
        CURRENT = CURRENT.with_name(f"{CURRENT.name}.{seed}")
    stats = Stats()
    run_hypothesis(targets, cases, seed, stats)
    return summary(stats, "hypothesis")


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One summary of several runs of the same engine."""
    out = dict(parts[0])
    for key in ("cases", "crashes", "slow", "heavy"):
        out[key] = sum(p[key] for p in parts)
    out["max_seconds"] = max(p["max_seconds"] for p in parts)
    out["max_mib"] = max(p["max_mib"] for p in parts)
    families: Counter[str] = Counter()
    for p in parts:
        families.update(p["per_family"])
    out["per_family"] = dict(families)
    out["tasks"] = max(p["tasks"] for p in parts)
    out["check_types"] = max(p["check_types"] for p in parts)
    for key in ("first_crashes", "first_slow", "first_heavy"):
        out[key] = [x for p in parts for x in p[key]][:20]
    return out


def run_hypothesis(targets: list[Target], cases: int, seed: int, stats: Stats) -> None:
    """`cases` structured mutations, drawn by hypothesis (reproducible from --seed)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    donors: dict[str, list[bytes]] = {}
    pairs = []
    for t in targets:
        for name, data in t.files.items():
            donors.setdefault(family_of(name), []).append(data)
            pairs.append((t, name))

    @settings(max_examples=cases, deadline=None, database=None, derandomize=True, phases=["generate"],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(index=st.integers(0, len(pairs) - 1), salt=st.integers(0, 2**32 - 1))
    def one(index: int, salt: int) -> None:
        target, name = pairs[index]
        rng = random.Random(seed * 2**32 + salt)
        run_case(target, name, mutate(rng, target.files[name], family_of(name), donors[family_of(name)]), stats,
                 "hypothesis")  # fmt: skip

    one()


# -- atheris ---------------------------------------------------------------------------------------------------------


def run_atheris(seconds: int, seed: int, out: Path) -> dict[str, Any]:
    """A coverage-guided run in a child process (libFuzzer ends its process); its stats come back as JSON."""
    with tempfile.TemporaryDirectory(prefix="cmb-atheris-") as tmp:
        stats_path = Path(tmp) / "stats.json"
        cmd = [sys.executable, __file__, "--atheris-child", str(stats_path), "--seed", str(seed),
               f"-max_total_time={seconds}", f"-seed={seed + 1}", "-rss_limit_mb=2048", "-timeout=10"]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 600, check=False)
        if not stats_path.is_file():
            return {"error": f"atheris child exited {proc.returncode}: {proc.stderr[-1500:]}"}
        result = json.loads(stats_path.read_text())
        result["exit"] = proc.returncode
        return result


def instrument_cmb(atheris: Any) -> int:
    """Coverage for every loaded function of cmb, the code under test. `atheris.instrument_all()` would also patch
    every function of numpy, scipy and pymatgen, which takes minutes on two CPUs and guides nothing of ours."""
    funcs = [
        obj
        for obj in gc.get_objects()
        if isinstance(obj, types.FunctionType) and str(getattr(obj, "__module__", "")).split(".")[0] == "cmb"
    ]
    for func in funcs:
        atheris.instrument_func(func)
    return len(funcs)


def atheris_child(stats_path: Path, seed: int, argv: list[str]) -> None:
    import atheris

    REGISTRY.types.load()  # every family's check types (they load on first lookup)
    # What they import where a structure is built, loaded now so that the time budget goes to cases.
    import pymatgen.analysis.structure_matcher  # noqa: F401
    import pymatgen.io.cif  # noqa: F401
    import pymatgen.io.vasp.inputs  # noqa: F401

    print(f"INFO: instrumented {instrument_cmb(atheris)} functions of cmb", file=sys.stderr)
    cap_memory()
    targets = seed_targets(Catalog.load(REPO), oracles=False)
    pairs = [(t, name) for t in targets for name in t.files]
    stats = Stats()
    last = [time.monotonic()]

    def dump() -> None:
        stats_path.write_text(json.dumps(summary(stats, "atheris")))

    def one(data: bytes) -> None:
        if len(data) < 2:
            return
        target, name = pairs[int.from_bytes(data[:2], "little") % len(pairs)]
        run_case(target, name, target.files[name][: len(data)] if not data[2:] else data[2:], stats, "atheris")
        if time.monotonic() - last[0] > 2:
            dump()
            last[0] = time.monotonic()

    import atexit

    atexit.register(dump)
    dump()
    atheris.Setup([sys.argv[0], *argv], one)
    atheris.Fuzz()


# -- report ----------------------------------------------------------------------------------------------------------


def summary(stats: Stats, engine: str) -> dict[str, Any]:
    return {
        "engine": engine,
        "cases": stats.cases,
        "crashes": len(stats.crashes),
        "slow": len(stats.slow),
        "heavy": len(stats.heavy),
        "max_seconds": round(stats.max_seconds, 4),
        "max_mib": round(stats.max_bytes / 2**20, 2),
        "per_family": dict(stats.per_family),
        "tasks": len(stats.per_task),
        "check_types": len(stats.check_types),
        "first_crashes": stats.crashes[:20],
        "first_slow": stats.slow[:10],
        "first_heavy": stats.heavy[:10],
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--atheris-child":
        rest = argv[2:]
        seed = int(rest[rest.index("--seed") + 1]) if "--seed" in rest else 0
        atheris_child(Path(argv[1]), seed, [a for a in rest if a.startswith("-") and a[1] != "-"])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="hypothesis cases")
    parser.add_argument("--atheris-seconds", type=int, default=120, help="coverage-guided budget (0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes for the hypothesis cases")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    targets = seed_targets(Catalog.load(REPO))
    result: dict[str, Any] = {"seeds": len(targets)}
    result["hypothesis"] = run_hypothesis_jobs(targets, args.cases, args.seed, args.jobs)
    if args.atheris_seconds > 0:
        try:
            import atheris  # noqa: F401
        except ImportError:
            result["atheris"] = {"error": "atheris is not installed (pip install atheris)"}
        else:
            result["atheris"] = run_atheris(args.atheris_seconds, args.seed, Path(tempfile.gettempdir()))
    engines = [r for r in (result["hypothesis"], result.get("atheris", {})) if "cases" in r]
    result["total"] = {k: sum(r[k] for r in engines) for k in ("cases", "crashes", "slow", "heavy")}
    result["seconds"] = round(time.monotonic() - t0, 1)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for name in ("hypothesis", "atheris"):
            r = result.get(name)
            if r is None:
                continue
            if "cases" not in r:
                print(f"{name:<10}  {r.get('error')}")
                continue
            print(f"{name:<10}  {r['cases']:>6} cases  {r['crashes']} crashes  {r['slow']} over 1 s  "
                  f"{r['heavy']} over 256 MiB  slowest {r['max_seconds']:.3f} s  largest {r['max_mib']:.1f} MiB  "
                  f"({r['tasks']} tasks, {r['check_types']} check types)")  # fmt: skip
            for crash in r["first_crashes"][:5]:
                print(f"   crash  {crash['task']} {crash['file']} {crash['check_type']}: {crash['error']}")
            for slow in r["first_slow"][:5]:
                print(f"   slow   {slow['task']} {slow['file']} {slow['seconds']} s: {slow['head'][:60]!r}")
        t = result["total"]
        print(f"total       {t['cases']:>6} cases  {t['crashes']} crashes  {t['slow']} slow  {t['heavy']} heavy  "
              f"in {result['seconds']} s from {result['seeds']} seed submissions")  # fmt: skip
    return 0 if result["total"]["crashes"] == result["total"]["slow"] == result["total"]["heavy"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
